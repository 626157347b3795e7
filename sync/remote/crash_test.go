package remote_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/sync/remote"
)

// The states a process killed while it fetched or wrote packs leaves behind,
// made with the git CLI; the next sync must converge from each, losing nothing.

// packFiles lists the names in dir/.git/objects/pack.
func packFiles(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, ".git", "objects", "pack"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// crashReplicas makes a remote, a laptop that pushed to it, and a child cloned
// from it; the laptop then writes and pushes again, so the child's next fetch
// brings one new pack.
func crashReplicas(t *testing.T) (a *replica, child string) {
	t.Helper()
	bare := newBare(t)
	a = newReplica(t, "laptop", bare, true)
	a.put(t, "shared.md", "start\n")
	a.sync(t)
	child = filepath.Join(t.TempDir(), "child")
	git(t, "", "clone", "-q", bare, child)
	a.put(t, "shared.md", "start\nlaptop\n")
	a.sync(t)
	return a, child
}

// openChild opens the child as a restarted process would and returns it; write:
// after writing one note (which changes what the next fetch asks for).
func openChild(t *testing.T, child string, write bool) *replica {
	t.Helper()
	v, err := repo.Open(context.Background(), child, repo.Options{Now: replicaNow, Owner: repo.Author{Name: "Child", Email: "c@x"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	c := &replica{name: "child", v: v, r: open(t, child, remote.Options{})}
	if write {
		c.put(t, "child.md", "child\n")
	}
	return c
}

// converged syncs both replicas and checks them with the git CLI: fsck clean,
// one tree, the child's write and the laptop's in both histories.
func converged(t *testing.T, a, c *replica) {
	t.Helper()
	mine := c.v.Head()
	c.sync(t)
	a.sync(t)
	for _, rp := range []*replica{a, c} {
		checkRepl(t, rp)
		if _, err := gitErr(rp.v.Dir(), "merge-base", "--is-ancestor", string(mine), "HEAD"); err != nil {
			t.Fatalf("%s: the child's write %s is not in the history", rp.name, mine.Short())
		}
	}
	if at, ct := git(t, a.v.Dir(), "rev-parse", "HEAD^{tree}"), git(t, c.v.Dir(), "rev-parse", "HEAD^{tree}"); at != ct {
		t.Fatal("trees differ")
	}
	git(t, c.v.Dir(), "cat-file", "-e", "refs/remotes/origin/main^{commit}")
}

// fetchedPack fetches into child with the git CLI's order undone: it returns the
// base name of the pack the fetch brought, and resets the tracking ref to where
// it was, so a fetch brings the same pack again.
func fetchedPack(t *testing.T, child string) string {
	t.Helper()
	before := packFiles(t, child)
	old := git(t, child, "rev-parse", "refs/remotes/origin/main")
	r := open(t, child, remote.Options{})
	if _, err := r.Fetch(context.Background(), "origin", nil); err != nil {
		t.Fatal(err)
	}
	git(t, child, "update-ref", "refs/remotes/origin/main", old)
	for _, n := range packFiles(t, child) {
		if base, ok := strings.CutSuffix(n, ".pack"); ok && !slices.Contains(before, n) {
			return base
		}
	}
	t.Fatal("the fetch wrote no pack")
	return ""
}

// TestRemotes_SyncAfterKilledIndexWrite: go-git writes a fetched pack's index in
// place, then renames the pack; killed while writing the index, it leaves a
// truncated index without its pack. The next fetch brings the same pack (same
// name), keeps the truncated index (it exists) and moves the tracking ref to a
// commit no reader can find.
func TestRemotes_SyncAfterKilledIndexWrite(t *testing.T) {
	a, child := crashReplicas(t)
	pack := filepath.Join(child, ".git", "objects", "pack", fetchedPack(t, child))
	idx := readFile(t, pack+".idx")
	if err := os.Remove(pack + ".pack"); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(pack+".idx", 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pack+".idx", idx[:len(idx)/2], 0o444); err != nil {
		t.Fatal(err)
	}
	c := openChild(t, child, false)
	converged(t, a, c)
}

// TestRemotes_SyncAfterBadIndexLanded: the state the old fetch left after the
// kill above and one more fetch: the pack in place behind a truncated index, and
// the tracking ref naming a commit only that pack holds.
func TestRemotes_SyncAfterBadIndexLanded(t *testing.T) {
	a, child := crashReplicas(t)
	pack := filepath.Join(child, ".git", "objects", "pack", fetchedPack(t, child))
	git(t, child, "update-ref", "refs/remotes/origin/main", string(a.v.Head()))
	idx := readFile(t, pack+".idx")
	if err := os.Chmod(pack+".idx", 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pack+".idx", idx[:len(idx)-100], 0o444); err != nil {
		t.Fatal(err)
	}
	if _, err := gitErr(child, "cat-file", "-e", "refs/remotes/origin/main^{commit}"); err == nil {
		t.Fatal("setup: the tracking ref's commit is readable")
	}
	c := openChild(t, child, true)
	converged(t, a, c)
}

// TestRemotes_SyncAfterOrphanPack: a pack without its index, as a process killed
// between writing a pack and its index (Norn's committer, git's index-pack) or
// between deleting a merged-away pack's index and the pack (Norn's roll-up, git
// repack) leaves it. git and Norn's reader ignore it; go-git listed it and failed
// every fetch with "packfile not found", so the sync never settled.
func TestRemotes_SyncAfterOrphanPack(t *testing.T) {
	a, child := crashReplicas(t)
	dir := filepath.Join(child, ".git", "objects", "pack")
	before := packFiles(t, child)
	cmd := exec.Command("git", "-C", child, "pack-objects", "-q", filepath.Join(dir, "pack"))
	cmd.Stdin = strings.NewReader(git(t, child, "rev-parse", "HEAD^{tree}") + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pack-objects: %v\n%s", err, out)
	}
	for _, n := range packFiles(t, child) {
		if strings.HasSuffix(n, ".idx") && !slices.Contains(before, n) {
			if err := os.Remove(filepath.Join(dir, n)); err != nil {
				t.Fatal(err)
			}
		}
	}
	c := openChild(t, child, true)
	converged(t, a, c)
}

// TestRemotes_SyncAfterEmptyTrackingRef: go-git rewrote a ref in place
// (truncate, then write); killed between the two it left an empty tracking ref,
// which failed every later fetch ("ref file is empty"), so no sync settled.
func TestRemotes_SyncAfterEmptyTrackingRef(t *testing.T) {
	a, child := crashReplicas(t)
	git(t, child, "pack-refs", "--all", "--prune")
	ref := filepath.Join(child, ".git", "refs", "remotes", "origin", "main")
	if err := os.MkdirAll(filepath.Dir(ref), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ref, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c := openChild(t, child, true)
	converged(t, a, c)
}

// TestRemotes_SyncAfterDanglingTrackingRef: a tracking ref an older version left
// naming a commit the vault never got (the fetch above that fetched nothing) is
// dropped before the fetch, which brings the commit.
func TestRemotes_SyncAfterDanglingTrackingRef(t *testing.T) {
	a, child := crashReplicas(t)
	ref := filepath.Join(child, ".git", "refs", "remotes", "origin", "main")
	if err := os.WriteFile(ref, []byte(string(a.v.Head())+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := gitErr(child, "cat-file", "-e", string(a.v.Head())); err == nil {
		t.Fatal("setup: the child has the laptop's tip")
	}
	c := openChild(t, child, true)
	converged(t, a, c)
}

// TestRemotes_SyncAfterStaleRefLock: Norn's committer creates the branch's lock
// file, then writes it; killed between the two, it leaves an empty
// refs/heads/main.lock, which go-git read as a ref and failed every fetch on
// ("ref file is empty") until a commit took the lock over.
func TestRemotes_SyncAfterStaleRefLock(t *testing.T) {
	a, child := crashReplicas(t)
	if err := os.WriteFile(filepath.Join(child, ".git", "refs", "heads", "main.lock"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c := openChild(t, child, false)
	converged(t, a, c)
}

// TestRemotes_SyncAfterStaleStateLock: a process killed while it recorded a
// sync's outcome (the lock is held across an fsync) left .git/norn/sync.json.lock,
// and no sync was recorded again: Status and a write's "pushed" stayed stale.
func TestRemotes_SyncAfterStaleStateLock(t *testing.T) {
	a, child := crashReplicas(t)
	lock := filepath.Join(child, ".git", "norn", "sync.json.lock")
	if err := os.MkdirAll(filepath.Dir(lock), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lock, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	c := openChild(t, child, true)
	converged(t, a, c)
	st, err := c.r.State("origin")
	if err != nil {
		t.Fatal(err)
	}
	if st.Tip != c.v.Head() || st.LastSync.IsZero() {
		t.Fatalf("state after the sync: tip %s, last sync %v; want tip %s", st.Tip.Short(), st.LastSync, c.v.Head().Short())
	}
	if _, err := os.Stat(lock); !os.IsNotExist(err) {
		t.Fatalf("the stale lock is still there (%v)", err)
	}
}
