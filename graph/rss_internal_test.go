package graph

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestServe_RSS rebuilds the cpp-docs index in one child process (this test
// binary re-run as TestServeChild), then serves the cpp-docs known-item queries
// from a fresh one, and checks the serving process's peak RSS (VmHWM) stays under
// 150 MB. The rebuild's peak (raw files and parsed notes included) is logged.
func TestServe_RSS(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("needs the cpp-docs corpus and no -race")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc: cannot read RSS")
	}
	root := filepath.Join(corporaDir, "md-cpp-docs", "notes")
	needDir(t, root)
	dir := t.TempDir()
	child := func(env ...string) string {
		cmd := exec.Command(os.Args[0], "-test.run=^TestServeChild$", "-test.v")
		cmd.Env = append(append(os.Environ(), "NORN_SERVE_DIR="+dir), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		return string(out)
	}
	bhwm, _ := childRSS(t, child("NORN_SERVE_REBUILD="+root))
	t.Logf("rebuilding cpp-docs (files read and parsed in the same process): peak RSS %.1f MB", float64(bhwm)/1024)
	hwm, rss := childRSS(t, child("NORN_SERVE_QUERIES="+filepath.Join(benchDir, "queries", "cpp-docs.queries.jsonl")))
	t.Logf("serving cpp-docs: peak RSS %.1f MB, after the queries %.1f MB", float64(hwm)/1024, float64(rss)/1024)
	if hwm > 150*1024 {
		t.Errorf("peak RSS %d kB, want under 150 MB", hwm)
	}
}

func childRSS(t *testing.T, out string) (hwm, rss int) {
	for _, line := range strings.Split(out, "\n") {
		if s, ok := strings.CutPrefix(line, "serve-rss: "); ok {
			fmt.Sscanf(s, "hwm=%dkB rss=%dkB", &hwm, &rss)
		}
	}
	if hwm == 0 {
		t.Fatalf("child printed no RSS:\n%s", out)
	}
	return hwm, rss
}

// TestServeChild is TestServe_RSS's child process; it does nothing otherwise.
func TestServeChild(t *testing.T) {
	dir := os.Getenv("NORN_SERVE_DIR")
	if dir == "" {
		t.Skip("run by TestServe_RSS")
	}
	ix, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if root := os.Getenv("NORN_SERVE_REBUILD"); root != "" {
		if err := ix.Rebuild(context.Background(), "c1", DocRecords(parsedSeq(rawVault(t, root))), nil); err != nil {
			t.Fatal(err)
		}
		fmt.Printf("serve-rss: hwm=%dkB rss=%dkB\n", procStatus(t, "VmHWM"), procStatus(t, "VmRSS"))
		return
	}
	qs := readQueries(t, os.Getenv("NORN_SERVE_QUERIES"))
	for range 3 {
		for _, q := range qs {
			if _, err := ix.Search(context.Background(), q.Text, SearchOptions{Limit: 10, Literal: true}); err != nil {
				t.Fatal(err)
			}
		}
	}
	fmt.Printf("serve-rss: hwm=%dkB rss=%dkB\n", procStatus(t, "VmHWM"), procStatus(t, "VmRSS"))
}

func procStatus(t *testing.T, key string) int {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), key+":"); ok {
			n, _ := strconv.Atoi(strings.Fields(v)[0])
			return n
		}
	}
	return 0
}
