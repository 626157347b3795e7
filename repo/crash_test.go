package repo_test

import (
	"bufio"
	"context"
	"crypto/sha1"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

const crashEnv = "NORN_TEST_CRASH_WRITER"

// TestMain lets the test binary double as the writer process the crash test kills
// and as the writer processes of the multi-process test.
func TestMain(m *testing.M) {
	if dir := os.Getenv(crashEnv); dir != "" {
		crashWriter(dir)
		return
	}
	if spec := os.Getenv(multiEnv); spec != "" {
		os.Exit(multiWriter(spec))
	}
	os.Exit(m.Run())
}

// crashWriter writes until killed, printing "ACK <commit> <path> <revision>" once
// each write is acknowledged.
func crashWriter(dir string) {
	ctx := context.Background()
	v, err := repo.Open(ctx, dir, repo.Options{Owner: repo.Author{Name: "Owner", Email: "o@x"}})
	if err != nil {
		fmt.Println("ERR", err)
		os.Exit(1)
	}
	out := bufio.NewWriter(os.Stdout)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				p := note.Path(fmt.Sprintf("d%d/n%d.md", w, i%20))
				content := strings.Repeat(fmt.Sprintf("writer %d write %d\n", w, i), 50)
				res, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: fmt.Sprintf("w%d", w)}, Op: repo.OpWrite,
					Changes: []repo.Change{put(string(p), content, v.Revision(p))}})
				if err != nil {
					continue
				}
				mu.Lock()
				fmt.Fprintf(out, "ACK %s %s %s\n", res.Commit, p, res.Changes[0].Revision)
				out.Flush()
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

// TestVault_CrashSafety kills a writer process with SIGKILL at random moments and
// reopens the vault each time: git fsck is clean, HEAD holds every write acknowledged
// before the kill, no working-tree file is half-written, and git status is clean.
func TestVault_CrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test skipped in -short mode")
	}
	v := newVault(t, repo.Options{})
	dir := v.Dir()
	v.Close()
	crashTrials(t, dir, 50, 42, 80*time.Millisecond)
}

// TestVault_CrashSafetySplitIndex is the crash test on a vault of 1,200 notes, whose
// git index is split: kills land while a split index or a new shared index is
// being written, and git must read whatever is left.
func TestVault_CrashSafetySplitIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test skipped in -short mode")
	}
	v := bigVault(t, 1200)
	dir := v.Dir()
	v.Close()
	before := sharedIndexNames(t, dir)
	// A new shared index is written every few dozen writes; on a loaded machine
	// fewer writes fit in the trials, so run more rounds (bounded) until one was.
	for round := range 3 {
		crashTrials(t, dir, 50, 43+uint64(round), 250*time.Millisecond)
		if sharedIndexNames(t, dir) != before {
			return
		}
	}
	t.Fatal("no new shared index was written: the test never crashed around one")
}

// crashTrials runs the writer and kills it trials times, each after at least
// minDelay (opening a big vault takes a while) and up to 400 ms more.
func crashTrials(t *testing.T, dir string, trials int, seed uint64, minDelay time.Duration) {
	rng := rand.New(rand.NewPCG(seed, 1))
	totalAcks := 0
	for trial := range trials {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), crashEnv+"="+dir)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var acks []string
		done := make(chan struct{})
		go func() {
			defer close(done)
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				acks = append(acks, sc.Text())
			}
		}()
		time.Sleep(minDelay + time.Duration(rng.IntN(400))*time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		<-done
		cmd.Wait()
		totalAcks += len(acks)

		// No working-tree file may hold bytes that are not a complete blob.
		checkNoTornFiles(t, dir)

		v2, err := repo.Open(context.Background(), dir, repo.Options{})
		if err != nil {
			t.Fatalf("trial %d: reopen: %v", trial, err)
		}
		gitCmd(t, dir, "fsck", "--strict", "--no-progress", "--no-dangling")
		history := map[string]bool{}
		for _, c := range strings.Fields(gitCmd(t, dir, "rev-list", "HEAD")) {
			history[c] = true
		}
		for _, a := range acks {
			f := strings.Fields(a)
			if len(f) != 4 || f[0] != "ACK" {
				t.Fatalf("trial %d: writer said %q", trial, a)
			}
			if !history[f[1]] {
				t.Fatalf("trial %d: acknowledged commit %s (%s) is not in HEAD's history", trial, f[1], f[2])
			}
		}
		if st := gitCmd(t, dir, "status", "--porcelain", "--untracked-files=all"); st != "" {
			t.Fatalf("trial %d: git status after reopen:\n%s", trial, st)
		}
		v2.Close()
	}
	if totalAcks == 0 {
		t.Fatal("the writer never acknowledged a write")
	}
	t.Logf("%d trials, %d acknowledged writes", trials, totalAcks)
}

// checkNoTornFiles asserts every note in the working tree is a blob git has.
func checkNoTornFiles(t *testing.T, dir string) {
	t.Helper()
	var ids []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.IsDir() || strings.HasPrefix(d.Name(), ".norn-tmp-") {
			return nil // temp files are never in place; Open removes them
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		h := sha1.New()
		fmt.Fprintf(h, "blob %d\x00", len(b))
		h.Write(b)
		ids = append(ids, fmt.Sprintf("%x", h.Sum(nil)))
		return nil
	})
	cmd := exec.Command("git", "-C", dir, "cat-file", "--batch-check")
	cmd.Stdin = strings.NewReader(strings.Join(ids, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "missing") {
		t.Fatalf("a working-tree file holds bytes no blob has (torn write):\n%s", out)
	}
}

// sharedIndexNames lists the shared index files of the repository at dir.
func sharedIndexNames(t *testing.T, dir string) string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, ".git", "sharedindex.*"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(m, ",")
}
