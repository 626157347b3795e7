package repo_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/norn-vault/norn/repo"
)

// Regressions a code review of the git-interop changes found (2026-12-06).

// TestVault_ResolveAbbrevVanishedObject: a loose object listed by the prefix
// lookup that cannot be read (pruned meanwhile) made resolving an abbreviated id
// take go-git's lock twice and hang for good.
func TestVault_ResolveAbbrevVanishedObject(t *testing.T) {
	v := newVault(t, repo.Options{})
	write(t, v, put("a.md", "# A\n", ""))
	dir := filepath.Join(v.GitDir(), "objects", "ab")
	os.MkdirAll(dir, 0o755)
	if err := os.Symlink("/nonexistent", filepath.Join(dir, "cdef0123456789abcdef0123456789abcdef01")); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := v.Commit(context.Background(), "abcdef01"); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("an unreadable object resolved as a commit")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("resolving an abbreviated id hung")
	}
}

// TestVault_ExternalSkipsDeletedUnusableName: a file git committed under a name
// Norn refuses, deleted by a person, must not block the commit of other edits.
func TestVault_ExternalSkipsDeletedUnusableName(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	write(t, v, put("a.md", "# A\n", ""))
	dir := v.Dir()
	os.WriteFile(filepath.Join(dir, `we\ird.md`), []byte("x\n"), 0o644)
	gitCmd(t, dir, "add", `we\ird.md`)
	gitCmd(t, dir, "commit", "-qm", "weird")
	if err := v.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, `we\ird.md`))
	os.WriteFile(filepath.Join(dir, "a.md"), []byte("# A\nedited\n"), 0o644)
	res, err := v.CommitExternal(ctx, "", "")
	if err != nil || res == nil || len(res.Changes) != 1 || res.Changes[0].Path != "a.md" {
		t.Fatalf("CommitExternal: %+v %v", res, err)
	}
}

// TestVault_SplitIndexWithIntentToAdd: intent-to-add entries were dropped while
// decoding, which shifted the positions a split index names its shared index's
// entries by: one Norn write then left git's index with a single entry (every
// note staged as deleted).
func TestVault_SplitIndexWithIntentToAdd(t *testing.T) {
	v := newVault(t, repo.Options{})
	write(t, v, put("a.md", "# A\n", ""), put("c.md", "# C\n", ""), put("e.md", "# E\n", ""))
	dir := v.Dir()
	v.Close()
	gitCmd(t, dir, "config", "core.splitIndex", "true")
	os.WriteFile(filepath.Join(dir, "b.md"), []byte("# B\n"), 0o644)
	gitCmd(t, dir, "add", "-N", "b.md")
	gitCmd(t, dir, "update-index", "--split-index")
	os.WriteFile(filepath.Join(dir, "c.md"), []byte("# C staged\n"), 0o644)
	gitCmd(t, dir, "add", "c.md")
	v2, err := repo.Open(context.Background(), dir, repo.Options{Owner: repo.Author{Name: "O", Email: "o@x"}})
	if err != nil {
		t.Fatal(err)
	}
	defer v2.Close()
	write(t, v2, put("z.md", "# Z\n", ""))
	if st := gitCmd(t, dir, "status", "--porcelain"); st != "M  c.md\n?? b.md\n" {
		t.Fatalf("git status after a norn write: %q\nls-files:\n%s", st, gitCmd(t, dir, "ls-files", "-s"))
	}
}
