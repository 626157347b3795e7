package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLI_GitBusy: while git has the working tree, a write is exit 3 with code
// git_busy and the way out, and writes nothing; during a merge a read still
// answers (HEAD is on the branch); during a rebase (HEAD detached) every command
// says a rebase is in progress, not "not a vault".
func TestCLI_GitBusy(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "", "init")
	mustCLI(t, dir, "# A\none\n", "write", "a.md")
	git(t, dir, "switch", "-q", "-c", "side")
	os.WriteFile(filepath.Join(dir, "a.md"), []byte("# A\nside\n"), 0o644)
	git(t, dir, "commit", "-q", "-am", "side")
	git(t, dir, "switch", "-q", "main")
	os.WriteFile(filepath.Join(dir, "a.md"), []byte("# A\nmain\n"), 0o644)
	git(t, dir, "commit", "-q", "-am", "main")
	stop := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=P", "-c", "user.email=p@x"}, args...)...)
		if out, err := cmd.CombinedOutput(); err == nil {
			t.Fatalf("git %v did not stop on the conflict: %s", args, out)
		}
	}

	stop("merge", "side")
	head := git(t, dir, "rev-parse", "HEAD")
	out, _, code := cli(t, dir, "# C\n", "--json", "write", "c.md")
	if m := decode(t, out); code != exitConflict || m["code"] != "git_busy" || !strings.Contains(m["error"].(string), "git merge --abort") {
		t.Fatalf("write during a merge: exit %d %v", code, m)
	}
	if got := mustCLI(t, dir, "", "read", "a.md"); !strings.Contains(got, "main") {
		t.Fatalf("read during a merge: %q", got)
	}
	if git(t, dir, "rev-parse", "HEAD") != head || git(t, dir, "status", "--porcelain") != "UU a.md\n" {
		t.Fatal("a command during the merge changed the repository")
	}
	git(t, dir, "merge", "--abort")

	git(t, dir, "switch", "-q", "side")
	stop("rebase", "main")
	out, _, code = cli(t, dir, "", "--json", "read", "a.md")
	if m := decode(t, out); code != exitConflict || m["code"] != "git_busy" || !strings.Contains(m["error"].(string), "git rebase --continue or --abort") {
		t.Fatalf("read during a rebase: exit %d %v", code, m)
	}
}
