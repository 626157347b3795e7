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

// crashWriter writes until killed. It prints "READY" once the vault is open,
// "ACK <commit> <path> <revision>" once each write is acknowledged, and
// "FAIL <error>" for the first few writes that fail. Half its writes overwrite one
// of 20 notes per writer goroutine, half create or overwrite one of 1,000, so
// that writes spread over the index across trials, however few fit in each.
func crashWriter(dir string) {
	ctx := context.Background()
	v, err := repo.Open(ctx, dir, repo.Options{Owner: repo.Author{Name: "Owner", Email: "o@x"}})
	if err != nil {
		fmt.Println("ERR", err)
		os.Exit(1)
	}
	out := bufio.NewWriter(os.Stdout)
	fmt.Fprintln(out, "READY")
	out.Flush()
	var mu sync.Mutex
	fails := 0
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(w)))
			for i := 0; ; i++ {
				p := note.Path(fmt.Sprintf("d%d/n%d.md", w, i%20))
				if i%2 == 1 {
					p = note.Path(fmt.Sprintf("d%d/m%03d.md", w, rng.IntN(1000)))
				}
				content := strings.Repeat(fmt.Sprintf("writer %d write %d\n", w, i), 50)
				res, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: fmt.Sprintf("w%d", w)}, Op: repo.OpWrite,
					Changes: []repo.Change{put(string(p), content, v.Revision(p))}})
				mu.Lock()
				if err != nil {
					if fails++; fails <= 5 {
						fmt.Fprintf(out, "FAIL %v\n", err)
						out.Flush()
					}
					mu.Unlock()
					continue
				}
				if res.Unchanged {
					// A write an earlier trial's writer already made: nothing committed.
					mu.Unlock()
					continue
				}
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
	crashTrials(t, dir, 50, 42)
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
		crashTrials(t, dir, 50, 43+uint64(round))
		if sharedIndexNames(t, dir) != before {
			return
		}
	}
	t.Fatal("no new shared index was written: the test never crashed around one")
}

// crashTrials runs the writer and kills it trials times: one trial in four at a
// random moment up to 400 ms after it starts (opening and recovering included),
// the others once it has acknowledged 0–7 writes, up to 100 ms later. Counting
// acknowledgements rather than time keeps writes in flight at the kill on a
// loaded machine too.
func crashTrials(t *testing.T, dir string, trials int, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	totalAcks := 0
	var fails []string
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
		var acks, other []string
		ready := make(chan struct{})
		acked := make(chan struct{}, 1024)
		done := make(chan struct{})
		go func() {
			defer close(done)
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				switch l := sc.Text(); {
				case l == "READY":
					close(ready)
				case strings.HasPrefix(l, "ACK "):
					acks = append(acks, l)
					select {
					case acked <- struct{}{}:
					default:
					}
				default:
					other = append(other, l)
				}
			}
		}()
		if rng.IntN(4) == 0 {
			time.Sleep(time.Duration(rng.IntN(400)) * time.Millisecond)
		} else {
			waitAcks(ready, acked, done, rng.IntN(8))
			time.Sleep(time.Duration(rng.IntN(100)) * time.Millisecond)
		}
		cmd.Process.Signal(syscall.SIGKILL)
		<-done
		cmd.Wait()
		for _, l := range other {
			if !strings.HasPrefix(l, "FAIL ") {
				t.Fatalf("trial %d: writer said %q", trial, l)
			}
			fails = append(fails, l)
		}
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
			if len(f) != 4 {
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
		t.Fatalf("the writer never acknowledged a write; failures: %q", fails[:min(len(fails), 5)])
	}
	t.Logf("%d trials, %d acknowledged writes, %d failed writes reported", trials, totalAcks, len(fails))
}

// waitAcks waits for the writer to say READY and then to acknowledge n writes, for
// at most a minute, or until it exits.
func waitAcks(ready, acked, done <-chan struct{}, n int) {
	timeout := time.After(time.Minute)
	select {
	case <-ready:
	case <-done:
		return
	case <-timeout:
		return
	}
	for range n {
		select {
		case <-acked:
		case <-done:
			return
		case <-timeout:
			return
		}
	}
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
