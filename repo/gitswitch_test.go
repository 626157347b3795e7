package repo_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/norn-vault/norn/repo"
)

// halfSwitch leaves the vault as `git switch other` does between its two last
// steps: git's index (renamed into place, its cache tree naming other's tree) and
// the working tree are other's, and HEAD still names main. It does the switch with
// the git CLI and puts HEAD back, then dates the index now, as git just wrote it.
func halfSwitch(t *testing.T, dir string) {
	t.Helper()
	gitCmd(t, dir, "switch", "-q", "other")
	if err := os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if err := os.Chtimes(filepath.Join(dir, ".git", "index"), now, now); err != nil {
		t.Fatal(err)
	}
}

// branchOther makes branch other: main plus branchonly/x.md.
func branchOther(t *testing.T, dir string) {
	t.Helper()
	gitCmd(t, dir, "switch", "-q", "-c", "other")
	os.MkdirAll(filepath.Join(dir, "branchonly"), 0o755)
	os.WriteFile(filepath.Join(dir, "branchonly", "x.md"), []byte("# X\n\nonly on other\n"), 0o644)
	gitCmd(t, dir, "add", "branchonly/x.md")
	gitCmd(t, dir, "commit", "-q", "-m", "branch only")
	gitCmd(t, dir, "switch", "-q", "main")
}

// TestVault_HalfDoneSwitchIsNotAnEdit: a `git switch` renames its new index into
// place and only then moves HEAD. A hand-edit scan in between saw the other
// branch's files under main's HEAD and committed branchonly/x.md onto main as
// Norn-Op: external. The scan now finds git's index naming another tree than
// HEAD's, freshly written by git, and leaves the working tree to git: nothing is
// committed, and once HEAD moves the usual "checked out at other" applies.
func TestVault_HalfDoneSwitchIsNotAnEdit(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	write(t, v, put("a.md", "# A\n", ""))
	dir := v.Dir()
	branchOther(t, dir)
	mainTip := strings.TrimSpace(gitCmd(t, dir, "rev-parse", "main"))

	halfSwitch(t, dir)
	changes, err := v.Changes(ctx)
	var busy *repo.BusyError
	if !errors.As(err, &busy) || !busy.Locked || len(changes) != 0 {
		t.Fatalf("Changes mid-switch: %v %v, want a passing BusyError", changes, err)
	}
	halfSwitch(t, dir) // dated again: the checks above may have taken a while
	if res, err := v.CommitExternal(ctx, "", ""); !errors.Is(err, repo.ErrConflict) || res != nil {
		t.Fatalf("CommitExternal mid-switch: %+v %v", res, err)
	}
	if got := strings.TrimSpace(gitCmd(t, dir, "rev-parse", "main")); got != mainTip {
		t.Fatalf("main moved mid-switch: %s", gitCmd(t, dir, "log", "--stat", "-1", "main"))
	}

	// git finishes: HEAD names other.
	os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("ref: refs/heads/other\n"), 0o644)
	if _, err := v.Changes(ctx); !errors.Is(err, repo.ErrConflict) || !strings.Contains(err.Error(), "checked out at other") {
		t.Fatalf("Changes on other: %v", err)
	}
	gitCmd(t, dir, "switch", "-q", "main")
	if res, err := v.CommitExternal(ctx, "", ""); err != nil || res != nil {
		t.Fatalf("CommitExternal back on main: %+v %v", res, err)
	}
	if got := gitCmd(t, dir, "log", "--format=%s", "main"); strings.Contains(got, "external") {
		t.Fatalf("main took in the other branch's file:\n%s", got)
	}
	write(t, v, put("b.md", "# B\n", ""))
	assertClean(t, v)
}

// TestVault_OldIndexForAnotherTreeIsSettled: git's index naming another tree than
// HEAD's is a switch under way only for a moment. Left that way (git reset --soft,
// git read-tree), it is settled after a while, and edits are committed as before.
func TestVault_OldIndexForAnotherTreeIsSettled(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	write(t, v, put("a.md", "# A\n", ""))
	dir := v.Dir()
	branchOther(t, dir)
	halfSwitch(t, dir)
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(dir, ".git", "index"), old, old); err != nil {
		t.Fatal(err)
	}
	changes, err := v.Changes(ctx)
	if err != nil || len(changes) != 1 || changes[0].Path != "branchonly/x.md" {
		t.Fatalf("Changes with a settled index: %+v %v", changes, err)
	}
}
