package repo

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// takeUntil merges what w reports until it names p (or asks for a full scan).
func takeUntil(t *testing.T, w *Watcher, p string) Scope {
	t.Helper()
	var got Scope
	deadline := time.After(30 * time.Second)
	for {
		s := w.Take()
		got.Full = got.Full || s.Full
		got.Paths = append(got.Paths, s.Paths...)
		if got.Full || slices.Contains(got.Paths, p) {
			return got
		}
		select {
		case <-w.Changed():
		case <-deadline:
			t.Fatalf("the watcher never reported %s (got %v)", p, got.Paths)
		}
	}
}

// TestWatcher_OverflowScansAll: events lost (here a folder's watch removed, as an
// overflowed kernel queue loses them) leave an edit unseen by the scoped scan; the
// overflow error makes the next Take a full scan, which commits it. git status is
// the oracle.
func TestWatcher_OverflowScansAll(t *testing.T) {
	ctx := context.Background()
	v, _, err := Init(ctx, t.TempDir(), InitOptions{Options: Options{Owner: Author{Name: "O", Email: "o@x"}},
		Seed: map[string][]byte{"d/a.md": []byte("a\n"), "b.md": []byte("b\n")}})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	w := v.Watch(WatchOptions{})
	defer w.Close()
	if s := w.Take(); !s.Full {
		t.Fatalf("first Take %+v: want a full scan (the start)", s)
	}
	if err := w.fsw.Remove(filepath.Join(v.dir, "d")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(v.dir, "d", "a.md"), []byte("a, unseen\n"), 0o644)
	os.WriteFile(filepath.Join(v.dir, "b.md"), []byte("b, seen\n"), 0o644)
	s := takeUntil(t, w, "b.md")
	if s.Full || slices.Contains(s.Paths, "d/a.md") || slices.Contains(s.Paths, "d") {
		t.Fatalf("Take %+v: d's events were to be lost", s)
	}
	if _, err := v.CommitExternalIn(ctx, s, "", ""); err != nil {
		t.Fatal(err)
	}
	if st := gitIn(t, v.dir, "status", "--porcelain"); st != "M d/a.md" {
		t.Fatalf("git status after the scoped commit: %q (want only the unseen edit left)", st)
	}
	w.lost(fsnotify.ErrEventOverflow)
	if s := w.Take(); !s.Full {
		t.Fatalf("Take after an overflow %+v: want a full scan", s)
	} else if _, err := v.CommitExternalIn(ctx, s, "", ""); err != nil {
		t.Fatal(err)
	}
	if st := gitIn(t, v.dir, "status", "--porcelain"); st != "" {
		t.Fatalf("git status after the full scan: %q", st)
	}
	if got := gitIn(t, v.dir, "show", "HEAD:d/a.md"); got != "a, unseen" {
		t.Fatalf("HEAD:d/a.md = %q", got)
	}
}

// waitMoved waits until w reports the branch moved.
func waitMoved(t *testing.T, w *Watcher) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for !w.TakeMoved() {
		select {
		case <-w.Changed():
		case <-deadline:
			t.Fatal("the watcher never reported the branch moving")
		}
	}
}

// TestWatcher_ReportsBranchMoves: a commit the git CLI makes (nothing in the
// working tree: an empty commit), and a branch moved by git update-ref, are
// reported by TakeMoved; git's own files changing without the branch moving (git
// add rewriting .git/index) are not, and never show as working-tree paths. The
// watcher's events arrive in order, so a working-tree edit after git add is the
// mark that git add's events were all seen.
func TestWatcher_ReportsBranchMoves(t *testing.T) {
	v := seededVault(t)
	w := v.Watch(WatchOptions{})
	defer w.Close()
	w.Take() // the start's full scan
	if w.TakeMoved() {
		t.Fatal("moved before anything happened")
	}

	os.WriteFile(filepath.Join(v.dir, "a.md"), []byte("a, staged\n"), 0o644)
	gitIn(t, v.dir, "add", "a.md")
	os.WriteFile(filepath.Join(v.dir, "mark.md"), []byte("mark\n"), 0o644)
	s := takeUntil(t, w, "mark.md")
	for _, p := range s.Paths {
		if p == ".git" || len(p) > 5 && p[:5] == ".git/" {
			t.Fatalf("Take %+v names git's own files", s)
		}
	}
	if w.TakeMoved() {
		t.Fatal("git add reported as the branch moving")
	}

	gitIn(t, v.dir, "commit", "-q", "-m", "by hand")
	waitMoved(t, w)
	head := gitIn(t, v.dir, "rev-parse", "HEAD")

	gitIn(t, v.dir, "commit", "-q", "--allow-empty", "-m", "empty, by hand")
	gitIn(t, v.dir, "update-ref", v.branch, head)
	waitMoved(t, w)
}

// TestVault_Behind: the branch moved by the git CLI is Behind until Refresh takes
// it in; a write of the vault's own never is.
func TestVault_Behind(t *testing.T) {
	ctx := context.Background()
	v := seededVault(t)
	if v.Behind() {
		t.Fatal("behind at the start")
	}
	gitIn(t, v.dir, "commit", "-q", "--allow-empty", "-m", "by hand")
	if !v.Behind() {
		t.Fatal("a hand commit is not behind")
	}
	if err := v.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if v.Behind() || string(v.Head()) != gitIn(t, v.dir, "rev-parse", "HEAD") {
		t.Fatal("behind after Refresh")
	}
	if _, err := v.Apply(ctx, Tx{Author: Author{Name: "O", Email: "o@x"}, Op: OpWrite, Changes: []Change{{Kind: Put, Path: "b.md", Content: []byte("b\n")}}}); err != nil {
		t.Fatal(err)
	}
	if v.Behind() {
		t.Fatal("behind after the vault's own write")
	}
}

// seededVault is a new vault holding a.md, closed when the test ends.
func seededVault(t *testing.T) *Vault {
	t.Helper()
	v, _, err := Init(context.Background(), t.TempDir(), InitOptions{Options: Options{Owner: Author{Name: "O", Email: "o@x"}},
		Seed: map[string][]byte{"a.md": []byte("a\n")}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}
