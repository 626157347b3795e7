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

// TestCLI_Init_ObsidianGitignore: init in a folder Obsidian opened ignores its
// per-device state and OS litter in the first commit, extending an existing
// .gitignore with the missing lines only, and leaves one that covers them alone.
func TestCLI_Init_ObsidianGitignore(t *testing.T) {
	write := func(dir, rel, s string) {
		t.Helper()
		full := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	obsidian := func(t *testing.T) string {
		dir := t.TempDir()
		write(dir, "Home.md", "# Home\n")
		write(dir, ".obsidian/app.json", "{}\n")
		write(dir, ".obsidian/workspace.json", "{\"main\":1}\n")
		write(dir, ".obsidian/workspace-mobile.json", "{}\n")
		write(dir, ".trash/Old.md", "# Old\n")
		write(dir, ".DS_Store", "x")
		write(dir, "sub/Thumbs.db", "x")
		return dir
	}
	const all = ".obsidian/workspace*.json\n.obsidian/workspace\n.trash/\n.DS_Store\nThumbs.db\n"
	tests := []struct {
		name, existing, want string
	}{
		{"none", "", "# Obsidian's per-device state and OS litter (added by norn init)\n" + all},
		{"partial", "*.log\n/.trash\n.DS_Store", "*.log\n/.trash\n.DS_Store\n\n# Obsidian's per-device state and OS litter (added by norn init)\n" +
			".obsidian/workspace*.json\n.obsidian/workspace\nThumbs.db\n"},
		{"covered", ".obsidian/workspace*\n.trash/\n**/.DS_Store\nThumbs.db\n", ".obsidian/workspace*\n.trash/\n**/.DS_Store\nThumbs.db\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := obsidian(t)
			if tt.existing != "" {
				write(dir, ".gitignore", tt.existing)
			}
			res := decode(t, mustCLI(t, dir, "", "init", dir, "--json"))
			if added, _ := res["gitignore_added"].([]any); tt.name == "covered" && len(added) != 0 || tt.name != "covered" && len(added) == 0 {
				t.Errorf("gitignore_added = %v", res["gitignore_added"])
			}
			got, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
			if err != nil || string(got) != tt.want {
				t.Fatalf(".gitignore = %q, %v; want %q", got, err, tt.want)
			}
			files := git(t, dir, "ls-files")
			if files != ".gitignore\n.norn/config.yaml\n.obsidian/app.json\nHome.md\n" {
				t.Errorf("the first commit holds:\n%s", files)
			}
			if st := git(t, dir, "status", "--porcelain", "--ignored=no"); st != "" {
				t.Errorf("git status after init:\n%s", st)
			}
			git(t, dir, "fsck", "--strict")
		})
	}

	// A folder Obsidian never opened gets no .gitignore; a repository with history
	// is not rewritten.
	plain := t.TempDir()
	write(plain, "a.md", "# A\n")
	mustCLI(t, plain, "", "init", plain)
	if _, err := os.Stat(filepath.Join(plain, ".gitignore")); !os.IsNotExist(err) {
		t.Errorf("init without .obsidian/ wrote a .gitignore: %v", err)
	}
	old := obsidian(t)
	git(t, old, "init", "-q", "-b", "main")
	git(t, old, "add", "Home.md")
	git(t, old, "commit", "-q", "-m", "home")
	mustCLI(t, old, "", "init", old)
	if _, err := os.Stat(filepath.Join(old, ".gitignore")); !os.IsNotExist(err) {
		t.Errorf("init of a repository with history wrote a .gitignore: %v", err)
	}
}
