package remote_test

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/sync/remote"
)

const syncChildEnv = "NORN_TEST_SYNC_CHILD"

// killTrials: how often TestRemotes_SyncKilled kills the replica; raise it to
// hunt a rare crash state (go test ./sync/remote -run SyncKilled -args -kill-trials 40).
var killTrials = flag.Int("kill-trials", 4, "TestRemotes_SyncKilled: kills per run")

// TestMain lets the test binary double as the syncing process the kill test
// kills.
func TestMain(m *testing.M) {
	if dir := os.Getenv(syncChildEnv); dir != "" {
		syncChild(dir)
		return
	}
	os.Exit(m.Run())
}

// syncChild writes and syncs with origin until killed, printing "ACK <commit>"
// for each acknowledged write.
func syncChild(dir string) {
	ctx := context.Background()
	v, err := repo.Open(ctx, dir, repo.Options{Owner: repo.Author{Name: "Child", Email: "c@x"}})
	if err != nil {
		fmt.Println("ERR", err)
		os.Exit(1)
	}
	r, err := remote.Open(v.GitDir(), remote.Options{})
	if err != nil {
		fmt.Println("ERR", err)
		os.Exit(1)
	}
	out := bufio.NewWriter(os.Stdout)
	for i := 0; ; i++ {
		p := note.Path("shared.md")
		b, err := v.Read(ctx, p, "")
		content := "child\n"
		rev := repo.Revision("")
		if err == nil {
			content, rev = string(b.Content)+fmt.Sprintf("child %d %d\n", os.Getpid(), i), b.Revision
		}
		res, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "child"}, Op: repo.OpWrite, Changes: []repo.Change{
			{Kind: repo.Put, Path: p, Content: []byte(content), ExpectedRevision: rev},
			{Kind: repo.Put, Path: note.Path(fmt.Sprintf("child/%d-%d.md", os.Getpid(), i)), Content: []byte("x\n")},
		}})
		if err == nil {
			fmt.Fprintln(out, "ACK", res.Commit)
			out.Flush()
		}
		if _, err := r.Sync(ctx, v, "origin", remote.SyncOptions{Machine: "child"}); err != nil {
			fmt.Fprintln(out, "SYNCERR", err)
			out.Flush()
		}
	}
}

// TestRemotes_SyncKilled kills a replica with SIGKILL while it writes and syncs
// against a remote another replica pushes to, several times; afterwards every
// replica converges to one tree, git fsck is clean, and every write the killed
// process acknowledged is in the history.
func TestRemotes_SyncKilled(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	trials := *killTrials
	if testing.Short() {
		trials = min(trials, 2)
	}
	bare := newBare(t)
	a := newReplica(t, "laptop", bare, true)
	a.put(t, "shared.md", "start\n")
	a.sync(t)
	child := filepath.Join(t.TempDir(), "child")
	git(t, "", "clone", "-q", bare, child)
	ctx := context.Background()
	var acked []string
	for trial := range trials {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), syncChildEnv+"="+child)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Signal(syscall.SIGKILL); cmd.Wait() })
		lines := make(chan string, 1024)
		go func() {
			defer close(lines)
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				lines <- sc.Text()
			}
		}()
		want := 1 + rng.IntN(4)
		for l := range lines {
			if c, ok := strings.CutPrefix(l, "ACK "); ok {
				acked = append(acked, c)
				if want--; want == 0 {
					break
				}
			}
			if strings.HasPrefix(l, "ERR") {
				t.Fatalf("trial %d: child: %s", trial, l)
			}
		}
		a.put(t, "shared.md", a.read(t, "shared.md")+fmt.Sprintf("laptop %d\n", trial))
		// The child syncs in a tight loop: the laptop's sync may not settle,
		// which it says, losing nothing.
		if _, err := a.r.Sync(ctx, a.v, "origin", remote.SyncOptions{Machine: "laptop"}); err != nil && !errors.Is(err, remote.ErrSyncBusy) {
			t.Fatalf("trial %d: laptop sync: %v", trial, err)
		}
		time.Sleep(time.Duration(rng.IntN(30)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		for l := range lines {
			if c, ok := strings.CutPrefix(l, "ACK "); ok {
				acked = append(acked, c)
			}
		}
		cmd.Wait()
	}
	v, err := repo.Open(ctx, child, repo.Options{Owner: repo.Author{Name: "Child", Email: "c@x"}})
	if err != nil {
		t.Fatalf("seed %d: reopen after kill: %v", seed, err)
	}
	defer v.Close()
	c := &replica{name: "child", v: v, r: open(t, child, remote.Options{})}
	var syncErr error
	for range 2 {
		if _, syncErr = c.r.Sync(ctx, c.v, "origin", remote.SyncOptions{Machine: "child", Now: replicaNow}); syncErr != nil {
			break
		}
		a.sync(t)
	}
	// Synced or not, every acknowledged write is in the child's own history.
	for _, id := range acked {
		if _, err := gitErr(child, "merge-base", "--is-ancestor", id, "HEAD"); err != nil {
			t.Errorf("seed %d: acknowledged %s is not in the child's history", seed, id)
		}
	}
	if syncErr != nil {
		t.Fatalf("seed %d: child: sync after the kills: %v\n%s", seed, syncErr, crashState(child))
	}
	for _, rp := range []*replica{a, c} {
		checkRepl(t, rp)
	}
	if at, ct := git(t, a.v.Dir(), "rev-parse", "HEAD^{tree}"), git(t, child, "rev-parse", "HEAD^{tree}"); at != ct {
		t.Fatalf("seed %d: trees differ after the kills", seed)
	}
	for _, id := range acked {
		if _, err := gitErr(a.v.Dir(), "merge-base", "--is-ancestor", id, "HEAD"); err != nil {
			t.Fatalf("seed %d: acknowledged %s lost", seed, id)
		}
	}
	if len(acked) == 0 {
		t.Fatal("the child acknowledged nothing")
	}
}

// crashState describes what a killed replica left, for a failure message: its
// pack folder, its tracking ref, and what git makes of its objects.
func crashState(dir string) string {
	var b strings.Builder
	ents, _ := os.ReadDir(filepath.Join(dir, ".git", "objects", "pack"))
	for _, e := range ents {
		if fi, err := e.Info(); err == nil {
			fmt.Fprintf(&b, "objects/pack/%s %d bytes\n", e.Name(), fi.Size())
		}
	}
	ref, err := os.ReadFile(filepath.Join(dir, ".git", "refs", "remotes", "origin", "main"))
	fmt.Fprintf(&b, "refs/remotes/origin/main: %q %v\n", ref, err)
	for _, args := range [][]string{{"count-objects", "-v"}, {"fsck", "--no-progress"}} {
		out, err := gitErr(dir, args...)
		fmt.Fprintf(&b, "git %s: %v\n%s", args[0], err, out)
	}
	return b.String()
}
