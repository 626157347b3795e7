package repo_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

const multiEnv = "NORN_TEST_MULTI_WRITER"

// multiProcWrites is how many writes each writer makes in the multi-process test.
const multiProcWrites = 40

// multiWriter is a writer process of TestVault_MultiProcess: spec is "dir name";
// it writes multiProcWrites versions over ten notes of its own folder, retrying
// conflicts, and returns the exit code.
func multiWriter(spec string) int {
	dir, name, _ := strings.Cut(spec, " ")
	ctx := context.Background()
	if strings.HasPrefix(name, "cold") {
		if err := coldWrites(ctx, dir, name); err != nil {
			fmt.Println("ERR", err)
			return 1
		}
		return 0
	}
	v, err := repo.Open(ctx, dir, repo.Options{Owner: repo.Author{Name: "Owner", Email: "o@x"}})
	if err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	defer v.Close()
	if name == "gc" {
		err = gcWrites(ctx, v)
	} else {
		err = multiWrites(ctx, v, name)
	}
	if err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	return 0
}

// multiWrites makes one writer's writes: version i of note name/n(i%10).md.
func multiWrites(ctx context.Context, v *repo.Vault, name string) error {
	for i := range multiProcWrites {
		p := note.Path(fmt.Sprintf("%s/n%d.md", name, i%10))
		content := fmt.Sprintf("%s write %d\n", name, i)
		for try := 0; ; try++ {
			_, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: name}, Op: repo.OpWrite,
				Changes: []repo.Change{put(string(p), content, v.Revision(p))}})
			if err == nil {
				break
			}
			if !errors.Is(err, repo.ErrConflict) || try == 20 {
				return fmt.Errorf("write %s: %w", p, err)
			}
		}
	}
	return nil
}

// coldWrites makes one writer's writes as one-shot commands do: each from a vault
// opened lean for it alone.
func coldWrites(ctx context.Context, dir, name string) error {
	for i := range multiProcWrites {
		p := note.Path(fmt.Sprintf("%s/n%d.md", name, i%10))
		content := fmt.Sprintf("%s write %d\n", name, i)
		for try := 0; ; try++ {
			v, err := repo.Open(ctx, dir, repo.Options{Owner: repo.Author{Name: "Owner", Email: "o@x"}, Lean: true})
			if err != nil {
				return err
			}
			_, err = v.Apply(ctx, repo.Tx{Author: repo.Author{Name: name}, Op: repo.OpWrite,
				Changes: []repo.Change{put(string(p), content, v.Revision(p))}})
			v.Close()
			if err == nil {
				break
			}
			if !errors.Is(err, repo.ErrConflict) || try == 20 {
				return fmt.Errorf("write %s: %w", p, err)
			}
		}
	}
	return nil
}

// TestVault_MultiProcessCold: a long-lived writer (a server) and two processes
// making one-shot lean writes (norn commands) on a vault with a split index. Every
// write lands and git's index and working tree end up HEAD's: a lean write takes
// the writer lock, catches up with the server's commits and writes git's index
// from the entries it pulled in, never from a stale view.
func TestVault_MultiProcessCold(t *testing.T) {
	if testing.Short() {
		t.Skip("multi-process test skipped in -short mode")
	}
	ctx := context.Background()
	v := bigVault(t, 1100)
	dir := v.Dir()
	writeFromProcesses(ctx, t, v, "cold1", "cold2")
	if n, _ := strconv.Atoi(strings.TrimSpace(gitCmd(t, dir, "rev-list", "--count", "HEAD"))); n != 1+3*multiProcWrites {
		t.Fatalf("%d commits, want %d", n, 1+3*multiProcWrites)
	}
	if err := v.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	v.Close()
	assertIndexMatchesHead(t, v)
}

// TestVault_MultiProcess runs two writer processes and a writer in this process on
// one vault at once. Every write lands, nothing conflicts for good, and afterwards
// git finds a clean repository whose index and working tree match HEAD: the writer
// lock keeps one process from writing git's index from a stale view while another
// commits. Refresh then brings this process's view to the branch's tip.
func TestVault_MultiProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("multi-process test skipped in -short mode")
	}
	ctx := context.Background()
	var seen []repo.Event
	var mu sync.Mutex
	v := newVault(t, repo.Options{OnEvent: func(ev repo.Event) {
		mu.Lock()
		seen = append(seen, ev)
		mu.Unlock()
	}})
	dir := v.Dir()
	writeFromProcesses(ctx, t, v, "p1", "p2")
	if err := v.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	tip := strings.TrimSpace(gitCmd(t, dir, "rev-parse", "HEAD"))
	if string(v.Head()) != tip {
		t.Fatalf("head after Refresh %s, branch at %s", v.Head(), tip)
	}
	// The import, then every write of the three writers.
	if n, _ := strconv.Atoi(strings.TrimSpace(gitCmd(t, dir, "rev-list", "--count", "HEAD"))); n != 1+3*multiProcWrites {
		t.Fatalf("%d commits, want %d", n, 1+3*multiProcWrites)
	}
	for _, name := range []string{"p0", "p1", "p2"} {
		for k := range 10 {
			p := fmt.Sprintf("%s/n%d.md", name, k)
			want := fmt.Sprintf("%s write %d\n", name, multiProcWrites-10+k)
			b, err := v.Read(ctx, note.Path(p), "")
			if err != nil || string(b.Content) != want {
				t.Fatalf("read %s: %v %q, want %q", p, err, b.Content, want)
			}
			if got := readFile(t, v, p); got != want {
				t.Fatalf("working tree %s: %q, want %q", p, got, want)
			}
		}
	}
	assertClean(t, v)
	if out := gitCmd(t, dir, "diff", "--cached", "--name-only"); out != "" {
		t.Fatalf("git's index differs from HEAD:\n%s", out)
	}
	// The observer heard of every commit once, the other processes' ones included,
	// parents before children (Close delivers what is queued).
	v.Close()
	mu.Lock()
	defer mu.Unlock()
	order := strings.Fields(gitCmd(t, dir, "rev-list", "--reverse", "HEAD")) // the import too
	if len(seen) != len(order) {
		t.Fatalf("observer told of %d commits, want %d", len(seen), len(order))
	}
	for i, c := range seen {
		if string(c.ID) != order[i] {
			t.Fatalf("event %d is %s, want %s", i, c.ID, order[i])
		}
		if c.Source != repo.SourceLocal || len(c.Changes) == 0 {
			t.Fatalf("event %d: source %q, %d changes; want local with changes", i, c.Source, len(c.Changes))
		}
	}
}

// gcWrites is the other process of TestVault_GCInOtherProcess: it writes a note
// and rolls every pack into one (deleting the old ones), again and again.
func gcWrites(ctx context.Context, v *repo.Vault) error {
	for i := range gcRounds {
		p := note.Path(fmt.Sprintf("gc/n%d.md", i))
		if _, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "gc"}, Op: repo.OpWrite,
			Changes: []repo.Change{put(string(p), fmt.Sprintf("gc round %d\n", i), "")}}); err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
		if _, err := v.GC(ctx, repo.GCOptions{PackLimit: 1}); err != nil {
			return fmt.Errorf("gc round %d: %w", i, err)
		}
	}
	return nil
}

const gcRounds = 15

// TestVault_GCInOtherProcess: while another process writes and rolls every pack
// into one over and over (deleting the packs this process has open or indexed),
// this one keeps reading every version of its notes, taking in the other's
// commits (Refresh) and writing: no read fails or returns other bytes.
func TestVault_GCInOtherProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("multi-process test skipped in -short mode")
	}
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	var versions []struct {
		commit  repo.CommitID
		content string
	}
	for i := range 10 {
		c := fmt.Sprintf("version %d\n", i)
		res := write(t, v, put("mine.md", c, v.Revision("mine.md")))
		versions = append(versions, struct {
			commit  repo.CommitID
			content string
		}{res.Commit, c})
	}
	if _, err := v.GC(ctx, repo.GCOptions{PackLimit: 1}); err != nil {
		t.Fatal(err)
	}
	first := packsIn(t, v.Dir())
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), multiEnv+"="+v.Dir()+" gc")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	reads := 0
	for running := true; running; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("gc process: %v\n%s", err, out.String())
			}
			running = false
		default:
		}
		for _, ver := range versions {
			b, err := v.Read(ctx, "mine.md", string(ver.commit))
			if err != nil || string(b.Content) != ver.content {
				t.Fatalf("read mine.md at %s while the other process packs: %v %q", ver.commit, err, b.Content)
			}
			reads++
		}
		if err := v.Refresh(ctx); err != nil {
			t.Fatalf("refresh while the other process packs: %v", err)
		}
		if reads%50 == 0 {
			write(t, v, put("mine.md", "latest\n", v.Revision("mine.md")))
		}
	}
	if err := v.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range gcRounds {
		p := fmt.Sprintf("gc/n%d.md", i)
		if b, err := v.Read(ctx, note.Path(p), ""); err != nil || string(b.Content) != fmt.Sprintf("gc round %d\n", i) {
			t.Fatalf("read %s: %v %+v", p, err, b)
		}
	}
	for _, p := range first {
		if _, err := os.Stat(p); err == nil {
			t.Fatalf("pack %s survived the other process's gc: the test read nothing from a deleted pack", p)
		}
	}
	t.Logf("%d reads while the other process packed %d times", reads, gcRounds)
	assertClean(t, v)
	if out := gitCmd(t, v.Dir(), "fsck", "--strict"); strings.Contains(out, "error") {
		t.Fatalf("git fsck: %s", out)
	}
}

// TestVault_Refresh: a commit another handle makes is invisible to this one until
// Refresh (or its next write), which publishes it and tells OnCommit (in step)
// and the event observers.
func TestVault_Refresh(t *testing.T) {
	ctx := context.Background()
	var seen []repo.CommitID
	v := newVault(t, repo.Options{OnCommit: func(head repo.CommitID) { seen = append(seen, head) }})
	evs := collectEvents(v)
	other, err := repo.Open(ctx, v.Dir(), repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	seen = nil // the import
	before := v.Head()
	var ids []repo.CommitID
	for i := range 3 {
		res, err := other.Apply(ctx, repo.Tx{Author: repo.Author{Name: "other"}, Op: repo.OpWrite,
			Changes: []repo.Change{put(fmt.Sprintf("o%d.md", i), "from the other handle\n", "")}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Commit)
	}
	if v.Head() != before || len(seen) != 0 {
		t.Fatalf("head moved to %s before Refresh, %d commits told", v.Head(), len(seen))
	}
	if err := v.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if v.Head() != ids[2] {
		t.Fatalf("head %s after Refresh, want %s", v.Head(), ids[2])
	}
	if len(seen) != 1 || seen[0] != ids[2] {
		t.Fatalf("OnCommit told %v, want [%s]", seen, ids[2])
	}
	if got := evs.wait(t, 3); got[0].ID != ids[0] || got[1].ID != ids[1] || got[2].ID != ids[2] {
		t.Fatalf("events %+v, want %v", got, ids)
	}
	if b, err := v.Read(ctx, "o1.md", ""); err != nil || string(b.Content) != "from the other handle\n" {
		t.Fatalf("read o1.md: %v %+v", err, b)
	}
	// Nothing new: Refresh tells nothing.
	if err := v.Refresh(ctx); err != nil || len(seen) != 1 {
		t.Fatalf("second Refresh: %v, %d commits told", err, len(seen))
	}
	assertClean(t, v)
}

// TestVault_TempFileMarker: Open looks for stray temporary files only when a writer
// died mid-write (its marker is left); RemoveTempFiles finds them anywhere.
func TestVault_TempFileMarker(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	write(t, v, put("d/a.md", "a\n", ""))
	dir := v.Dir()
	marker := filepath.Join(dir, ".git", "norn", "worktree-writing")
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("marker left after a write: %v", err)
	}
	v.Close()
	stray := filepath.Join(dir, "d", ".norn-tmp-0123456789ab")
	if err := os.WriteFile(stray, []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	// No marker: Open does not walk the working tree, the file stays.
	v, err := repo.Open(ctx, dir, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stray); err != nil {
		t.Fatalf("stray file removed without a marker: %v", err)
	}
	if ch, err := v.Changes(ctx); err != nil || len(ch) != 0 {
		t.Fatalf("a temporary file counted as an edit: %v %+v", err, ch)
	}
	if n, err := v.RemoveTempFiles(ctx); err != nil || n != 1 {
		t.Fatalf("RemoveTempFiles: %d, %v; want 1", n, err)
	}
	if _, err := os.Stat(stray); !os.IsNotExist(err) {
		t.Fatalf("stray file still there: %v", err)
	}
	v.Close()
	// With the marker a crashed writer leaves, Open removes it and the marker.
	if err := os.WriteFile(stray, []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	v, err = repo.Open(ctx, dir, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	for _, p := range []string{stray, marker} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Fatalf("%s still there after Open: %v", p, err)
		}
	}
	assertClean(t, v)
}

// writeFromProcesses runs multiWrites in a child process for each of names (the
// test binary again, multiEnv naming the vault and the writer) and as "p0" in
// this one on v, all at once, and fails t with every error once all are done.
func writeFromProcesses(ctx context.Context, t *testing.T, v *repo.Vault, names ...string) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, len(names)+1)
	for _, name := range names {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), multiEnv+"="+v.Dir()+" "+name)
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("writer %s: %v\n%s", name, err, out)
			}
		})
	}
	wg.Go(func() {
		if err := multiWrites(ctx, v, "p0"); err != nil {
			errs <- err
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}
}
