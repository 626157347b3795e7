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

// TestServe_RSS builds the cpp-docs index, then serves the cpp-docs known-item
// queries from a fresh process (this test binary re-run as TestServeChild) and
// checks that process's peak RSS (VmHWM) stays under 150 MB.
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
	ix, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Rebuild(context.Background(), "c1", parsedSeq(rawVault(t, root)), nil); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeChild$", "-test.v")
	cmd.Env = append(os.Environ(), "NORN_SERVE_DIR="+dir,
		"NORN_SERVE_QUERIES="+filepath.Join(benchDir, "queries", "cpp-docs.queries.jsonl"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var hwm, rss int
	for _, line := range strings.Split(string(out), "\n") {
		if s, ok := strings.CutPrefix(line, "serve-rss: "); ok {
			fmt.Sscanf(s, "hwm=%dkB rss=%dkB", &hwm, &rss)
		}
	}
	if hwm == 0 {
		t.Fatalf("child printed no RSS:\n%s", out)
	}
	t.Logf("serving cpp-docs: peak RSS %.1f MB, after the queries %.1f MB", float64(hwm)/1024, float64(rss)/1024)
	if hwm > 150*1024 {
		t.Errorf("peak RSS %d kB, want under 150 MB", hwm)
	}
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
