package repo_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/norn-vault/norn/repo"
)

// TestVault_Reflog: Norn's commits are in git's reflogs as git's own are, so a
// person who resets past one finds it with git reflog (HEAD@{n}).
func TestVault_Reflog(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	dir := v.Dir()
	r1 := write(t, v, put("a.md", "# A\n", ""))
	r2 := write(t, v, put("b.md", "# B\n", ""))
	got := gitCmd(t, dir, "reflog", "--format=%H %gs", "main")
	if !strings.HasPrefix(got, string(r2.Commit)+" commit (norn): write b.md\n"+string(r1.Commit)+" commit (norn): write a.md\n") {
		t.Fatalf("git reflog main:\n%s", got)
	}
	if head := gitCmd(t, dir, "reflog", "--format=%H", "HEAD"); !strings.HasPrefix(head, string(r2.Commit)+"\n"+string(r1.Commit)+"\n") {
		t.Fatalf("git reflog HEAD:\n%s", head)
	}
	gitCmd(t, dir, "reset", "-q", "--hard", "HEAD~1")
	if err := v.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(gitCmd(t, dir, "rev-parse", "HEAD@{1}")); got != string(r2.Commit) {
		t.Fatalf("HEAD@{1} after the reset is %s, want the reset-away Norn commit %s", got, r2.Commit)
	}
	gitCmd(t, dir, "fsck", "--strict", "--no-progress")
}

// TestVault_ReflogOff: with core.logAllRefUpdates=false git starts no reflog,
// and Norn neither (one that exists is appended to, by both).
func TestVault_ReflogOff(t *testing.T) {
	v := newVault(t, repo.Options{})
	dir := v.Dir()
	v.Close()
	gitCmd(t, dir, "config", "core.logAllRefUpdates", "false")
	if err := os.RemoveAll(filepath.Join(dir, ".git", "logs")); err != nil {
		t.Fatal(err)
	}
	v2, err := repo.Open(context.Background(), dir, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer v2.Close()
	write(t, v2, put("c.md", "# C\n", ""))
	if _, err := os.Stat(filepath.Join(dir, ".git", "logs")); err == nil {
		t.Fatalf("a reflog was started with logAllRefUpdates=false: %s", gitCmd(t, dir, "reflog", "--format=%gs", "main"))
	}
}
