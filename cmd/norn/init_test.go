package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLI_Init_BadBranchCreatesNothing: an init that fails on its input creates
// nothing, so the next init (and every other command) works.
func TestCLI_Init_BadBranchCreatesNothing(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "x")
	existing := filepath.Join(parent, "existing")
	if err := os.Mkdir(existing, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, existing} {
		for _, b := range []string{"a..b", "a b", "-x", "HEAD", "x.lock", ""} {
			if b == "" {
				continue // the flag's default
			}
			out, _, code := cli(t, d, "", "init", d, "--branch", b, "--json")
			if code != exitError || decode(t, out)["code"] != "invalid" {
				t.Errorf("init %s --branch %q: exit %d %s, want 1 invalid", d, b, code, out)
			}
		}
	}
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Fatalf("a failed init left %s: %v", dir, err)
	}
	if ents, _ := os.ReadDir(existing); len(ents) != 0 {
		t.Fatalf("a failed init left files in an existing folder: %v", ents)
	}
	mustCLI(t, dir, "", "init", dir, "--branch", "notes/main")
	if got := git(t, dir, "symbolic-ref", "HEAD"); got != "refs/heads/notes/main\n" {
		t.Fatalf("HEAD: %q", got)
	}
	mustCLI(t, dir, "", "ls")
	mustCLI(t, dir, "", "doctor")
	git(t, dir, "fsck", "--strict")

	// Adopting a repository keeps its branch: another one asked for is refused,
	// before anything is written; the same one is fine.
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "trunk")
	os.WriteFile(filepath.Join(repo, "a.md"), []byte("# A\n"), 0o644)
	git(t, repo, "add", "a.md")
	git(t, repo, "commit", "-q", "-m", "a")
	head := git(t, repo, "rev-parse", "HEAD")
	for _, b := range []string{"main", "a..b"} {
		if out, errs, code := cli(t, repo, "", "init", repo, "--branch", b); code != exitError || !strings.Contains(errs, "trunk") {
			t.Errorf("adopt with --branch %q: exit %d %s%s", b, code, out, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(repo, ".git", "norn")); !os.IsNotExist(err) || git(t, repo, "rev-parse", "HEAD") != head {
		t.Fatalf("a refused adoption wrote something: %v", err)
	}
	mustCLI(t, repo, "", "init", repo, "--branch", "trunk")
}
