package remote_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/sync/remote"
)

// replica is one machine: a vault and its remotes, synced with origin.
type replica struct {
	name string
	v    *repo.Vault
	r    *remote.Remotes
}

var replicaClock atomic.Int64

func replicaNow() time.Time {
	return time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC).Add(time.Duration(replicaClock.Add(1)) * time.Second)
}

// newReplica opens a vault at dir (made with repo.Init when new, else cloned
// with git) whose origin is bare.
func newReplica(t testing.TB, name, bare string, first bool) *replica {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), name)
	opts := repo.Options{Now: replicaNow, Owner: repo.Author{Name: "Owner " + name, Email: name + "@example.com"}}
	var v *repo.Vault
	var err error
	if first {
		v, _, err = repo.Init(ctx, dir, repo.InitOptions{Options: opts, Seed: map[string][]byte{"start.md": []byte("# Start\n")}})
	} else {
		git(t, "", "clone", "-q", bare, dir)
		v, err = repo.Open(ctx, dir, opts)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	r := open(t, dir, remote.Options{})
	if first {
		if err := r.Add("origin", bare); err != nil {
			t.Fatal(err)
		}
	}
	return &replica{name: name, v: v, r: r}
}

func (rp *replica) sync(t testing.TB) *remote.SyncResult {
	t.Helper()
	res, err := rp.r.Sync(context.Background(), rp.v, "origin", remote.SyncOptions{Machine: rp.name, Now: replicaNow})
	if err != nil {
		out, _ := gitErr(rp.v.Dir(), "count-objects", "-v")
		ls, _ := gitErr(rp.v.Dir(), "log", "--oneline", "-3", "--all")
		t.Fatalf("%s: sync: %v\n%s\n%s", rp.name, err, out, ls)
	}
	return res
}

func (rp *replica) put(t testing.TB, p, content string) {
	t.Helper()
	_, err := rp.v.Apply(context.Background(), repo.Tx{Author: repo.Author{Name: "agent-" + rp.name}, Op: repo.OpWrite,
		Changes: []repo.Change{{Kind: repo.Put, Path: note.Path(p), Content: []byte(content), ExpectedRevision: rp.v.Revision(note.Path(p))}}})
	if err != nil {
		t.Fatalf("%s: write %s: %v", rp.name, p, err)
	}
}

func (rp *replica) archive(t testing.TB, p string) {
	t.Helper()
	_, err := rp.v.Apply(context.Background(), repo.Tx{Author: repo.Author{Name: "agent-" + rp.name}, Op: repo.OpArchive, Reason: repo.ReasonArchived,
		Changes: []repo.Change{{Kind: repo.Archive, Path: note.Path(p)}}})
	if err != nil {
		t.Fatalf("%s: archive %s: %v", rp.name, p, err)
	}
}

func (rp *replica) move(t testing.TB, from, to string) {
	t.Helper()
	_, err := rp.v.Apply(context.Background(), repo.Tx{Author: repo.Author{Name: "agent-" + rp.name}, Op: repo.OpMove,
		Changes: []repo.Change{{Kind: repo.Move, From: note.Path(from), Path: note.Path(to)}}})
	if err != nil {
		t.Fatalf("%s: move %s: %v", rp.name, from, err)
	}
}

func (rp *replica) read(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(rp.v.Dir(), p))
	if err != nil {
		t.Fatalf("%s: %v", rp.name, err)
	}
	return string(b)
}

// checkRepl checks a replica with the git CLI: fsck clean, status clean.
func checkRepl(t testing.TB, rp *replica) {
	t.Helper()
	git(t, rp.v.Dir(), "fsck", "--strict", "--no-progress")
	if st := git(t, rp.v.Dir(), "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Fatalf("%s: git status not clean:\n%s", rp.name, st)
	}
}

func TestRemotes_SyncOutcomes(t *testing.T) {
	bare := newBare(t)
	a := newReplica(t, "laptop", bare, true)
	if res := a.sync(t); res.Outcome != remote.FirstPush || remoteTip(t, bare) != a.v.Head() {
		t.Fatalf("first sync: %+v, remote at %s", res, remoteTip(t, bare))
	}
	b := newReplica(t, "desktop", bare, false)
	if res := b.sync(t); res.Outcome != remote.UpToDate {
		t.Fatalf("clone's sync: %+v", res)
	}
	a.put(t, "n.md", "one\n")
	if res := a.sync(t); res.Outcome != remote.Pushed {
		t.Fatalf("local ahead: %+v", res)
	}
	if res := b.sync(t); res.Outcome != remote.FastForward || b.read(t, "n.md") != "one\n" {
		t.Fatalf("remote ahead: %+v", res)
	}
	checkRepl(t, b)
	// Diverged: both edit the same note on different lines, and each adds a file.
	a.put(t, "n.md", "one\ntwo\nthree\nfour\n")
	a.sync(t)
	b.sync(t)
	a.put(t, "n.md", "ONE\ntwo\nthree\nfour\n")
	a.put(t, "a.md", "from a\n")
	b.put(t, "n.md", "one\ntwo\nthree\nFOUR\n")
	b.put(t, "b.md", "from b\n")
	a.sync(t)
	res := b.sync(t)
	if res.Outcome != remote.Merged || len(res.Merges) != 1 || len(res.Conflicts) != 0 {
		t.Fatalf("diverged: %+v", res)
	}
	a.sync(t)
	for _, rp := range []*replica{a, b} {
		if got := rp.read(t, "n.md"); got != "ONE\ntwo\nthree\nFOUR\n" {
			t.Fatalf("%s: merged note %q", rp.name, got)
		}
		if rp.read(t, "a.md") != "from a\n" || rp.read(t, "b.md") != "from b\n" {
			t.Fatalf("%s: a side's new file is missing", rp.name)
		}
		checkRepl(t, rp)
	}
	if a.v.Head() != b.v.Head() || remoteTip(t, bare) != a.v.Head() {
		t.Fatalf("heads differ: %s %s remote %s", a.v.Head(), b.v.Head(), remoteTip(t, bare))
	}
	msg := git(t, b.v.Dir(), "log", "-1", "--format=%B")
	for _, want := range []string{"Norn-Op: merge", "Norn-Remote: origin", "Norn-Ours: ", "Norn-Theirs: "} {
		if !strings.Contains(msg, want) {
			t.Fatalf("merge message lacks %q:\n%s", want, msg)
		}
	}
}

func TestRemotes_SyncConflicts(t *testing.T) {
	bare := newBare(t)
	a := newReplica(t, "laptop", bare, true)
	a.put(t, "same.md", "line\n")
	a.put(t, "gone.md", "keep me\n")
	a.put(t, "moved.md", "title\nbody one\nbody two\nbody three\n")
	a.put(t, "img.png", "\x89PNG\x00one")
	a.put(t, "moved2.md", "one\ntwo\nthree\nfour\n")
	a.put(t, "sim.md", "alpha\nbeta\ngamma\ndelta\nepsilon\n")
	a.sync(t)
	b := newReplica(t, "desktop", bare, false)
	a.put(t, "same.md", "ours\n")
	a.put(t, "both.md", "created by a\n")
	a.archive(t, "gone.md")
	a.move(t, "moved.md", "sub/moved.md")
	a.put(t, "img.png", "\x89PNG\x00two")
	b.put(t, "same.md", "theirs\n")
	b.put(t, "both.md", "created by b\n")
	b.put(t, "gone.md", "keep me, edited\n")
	b.put(t, "moved.md", "title\nbody one\nbody two edited\nbody three\n")
	b.put(t, "img.png", "\x89PNG\x00three")
	// b (ours at the merge) moves; a (theirs) edits: the edit follows the move,
	// found by identical bytes, and by similar lines for a move that also edited.
	b.move(t, "moved2.md", "sub/moved2.md")
	a.put(t, "moved2.md", "one\ntwo\nthree\nfour, edited by a\n")
	if _, err := b.v.Apply(context.Background(), repo.Tx{Author: repo.Author{Name: "agent"}, Op: repo.OpMove,
		Changes: []repo.Change{{Kind: repo.Move, From: "sim.md", Path: "sub/sim.md", Content: []byte("ALPHA\nbeta\ngamma\ndelta\nepsilon\n")}}}); err != nil {
		t.Fatal(err)
	}
	a.put(t, "sim.md", "alpha\nbeta\ngamma\ndelta\nepsilon, edited by a\n")
	a.sync(t)
	res := b.sync(t)
	a.sync(t)
	if res.Outcome != remote.Merged {
		t.Fatalf("outcome %s", res.Outcome)
	}
	sib := func(p string) string {
		s, _ := note.ConflictPath(note.Path(p), replicaNow(), "desktop", 1)
		return string(s)
	}
	for _, rp := range []*replica{a, b} {
		checkRepl(t, rp)
		// b merged: ours is b's, theirs (a's) goes to the siblings.
		if got := rp.read(t, "same.md"); got != "theirs\n" {
			t.Fatalf("%s: same.md %q", rp.name, got)
		}
		if got := rp.read(t, sib("same.md")); !strings.Contains(got, "ours\n") || !strings.Contains(got, "conflict") {
			t.Fatalf("%s: conflict sibling %q", rp.name, got)
		}
		if got := rp.read(t, sib("both.md")); !strings.Contains(got, "created by a\n") {
			t.Fatalf("%s: create/create sibling %q", rp.name, got)
		}
		if got := rp.read(t, sib("img.png")); got != "\x89PNG\x00two" {
			t.Fatalf("%s: attachment sibling %q", rp.name, got)
		}
		if got := rp.read(t, "gone.md"); got != "keep me, edited\n" {
			t.Fatalf("%s: edit against archive lost: %q", rp.name, got)
		}
		if got := rp.read(t, "sub/moved.md"); got != "title\nbody one\nbody two edited\nbody three\n" {
			t.Fatalf("%s: move + edit: %q", rp.name, got)
		}
		for _, gone := range []string{"moved.md", "moved2.md", "sim.md"} {
			if _, err := os.Stat(filepath.Join(rp.v.Dir(), gone)); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("%s: %s came back", rp.name, gone)
			}
		}
		if got := rp.read(t, "sub/moved2.md"); got != "one\ntwo\nthree\nfour, edited by a\n" {
			t.Fatalf("%s: edit after an exact move: %q", rp.name, got)
		}
		if got := rp.read(t, "sub/sim.md"); got != "ALPHA\nbeta\ngamma\ndelta\nepsilon, edited by a\n" {
			t.Fatalf("%s: edit after a move with edits: %q", rp.name, got)
		}
	}
	if len(res.Conflicts) != 3 || len(res.Kept) != 1 {
		t.Fatalf("conflicts %+v kept %v", res.Conflicts, res.Kept)
	}
	if n := strings.Count(git(t, b.v.Dir(), "log", "-1", "--format=%B"), "Norn-Conflict: "); n != 3 {
		t.Fatalf("%d Norn-Conflict trailers, want 3", n)
	}
}

func TestRemotes_SyncDirtyWorktree(t *testing.T) {
	bare := newBare(t)
	a := newReplica(t, "laptop", bare, true)
	a.put(t, "n.md", "one\n")
	a.sync(t)
	b := newReplica(t, "desktop", bare, false)
	a.put(t, "n.md", "two\n")
	a.sync(t)
	if err := os.WriteFile(filepath.Join(b.v.Dir(), "n.md"), []byte("a person's edit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := b.v.Head()
	_, err := b.r.Sync(context.Background(), b.v, "origin", remote.SyncOptions{Machine: "desktop"})
	if !errors.Is(err, repo.ErrWorktreeDirty) || !strings.Contains(err.Error(), "n.md") {
		t.Fatalf("err %v, want ErrWorktreeDirty naming n.md", err)
	}
	if b.v.Head() != before || b.read(t, "n.md") != "a person's edit\n" {
		t.Fatal("the sync moved the branch or overwrote the edit")
	}
	st, err := b.r.Status(context.Background(), "origin", b.v.Head())
	if err != nil {
		t.Fatal(err)
	}
	if st.Behind != 1 || st.Ahead != 0 || st.LastError == "" || st.ErrorSince.IsZero() || st.LastFetch.IsZero() {
		t.Fatalf("status %+v", st)
	}
	if _, err := b.v.CommitExternal(context.Background(), "", ""); err != nil {
		t.Fatal(err)
	}
	res := b.sync(t)
	if res.Outcome != remote.Merged {
		t.Fatalf("after commit: %+v", res)
	}
	st, err = b.r.Status(context.Background(), "origin", b.v.Head())
	if err != nil {
		t.Fatal(err)
	}
	if st.Ahead != 0 || st.Behind != 0 || st.LastError != "" || st.LastPush.IsZero() {
		t.Fatalf("status after sync %+v", st)
	}
}

// TestRemotes_StatusDamagedState: a damaged .git/norn/sync.json loses only the
// recorded times: Status still answers, and the next sync writes it afresh.
func TestRemotes_StatusDamagedState(t *testing.T) {
	bare := newBare(t)
	a := newReplica(t, "laptop", bare, true)
	a.sync(t)
	state := filepath.Join(a.v.GitDir(), "norn", "sync.json")
	if err := os.WriteFile(state, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := a.r.Status(context.Background(), "origin", a.v.Head())
	if err != nil || !st.LastPush.IsZero() || st.Ahead != 0 {
		t.Fatalf("status with a damaged file: %+v, %v", st, err)
	}
	a.sync(t)
	if st, err = a.r.Status(context.Background(), "origin", a.v.Head()); err != nil || st.LastFetch.IsZero() {
		t.Fatalf("status after a sync: %+v, %v", st, err)
	}
	if _, err := a.r.Status(context.Background(), "nope", a.v.Head()); !errors.Is(err, remote.ErrNotFound) {
		t.Fatalf("status of an unknown remote: %v", err)
	}
}

// TestRemotes_SyncUnrelatedHistories: a vault started on its own joins a remote
// that already has history: no merge base; the same file on both sides is taken
// once, the rest from each side.
func TestRemotes_SyncUnrelatedHistories(t *testing.T) {
	bare := newBare(t)
	a := newReplica(t, "laptop", bare, true)
	a.put(t, "a.md", "from a\n")
	a.sync(t)
	c := newReplica(t, "desktop", bare, true)
	c.put(t, "c.md", "from c\n")
	res := c.sync(t)
	if res.Outcome != remote.Merged || len(res.Conflicts) != 0 {
		t.Fatalf("unrelated: %+v", res)
	}
	a.sync(t)
	for _, rp := range []*replica{a, c} {
		checkRepl(t, rp)
		if rp.read(t, "a.md") != "from a\n" || rp.read(t, "c.md") != "from c\n" || rp.read(t, "start.md") != "# Start\n" {
			t.Fatalf("%s: a side's file is missing", rp.name)
		}
	}
}
