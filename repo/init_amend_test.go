package repo_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/norn-vault/norn/repo"
)

// TestInit_Amend: an amended file is part of the first commit; an Init that fails
// after amending puts the file back as it was and removes the repository it made.
func TestInit_Amend(t *testing.T) {
	ctx := context.Background()
	opts := repo.Options{Owner: repo.Author{Name: "o", Email: "o@x"}}
	add := func(cur []byte) []byte { return append(append([]byte{}, cur...), "extra\n"...) }

	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("a\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "n.md"), []byte("# N\n"), 0o644)
	v, _, err := repo.Init(ctx, dir, repo.InitOptions{Options: opts,
		Amend: map[string]func([]byte) []byte{".gitignore": add, "n.md": func([]byte) []byte { return nil }}})
	if err != nil {
		t.Fatal(err)
	}
	v.Close()
	if got := gitCmd(t, dir, "show", "HEAD:.gitignore"); got != "a\nextra\n" {
		t.Errorf(".gitignore at HEAD: %q", got)
	}
	if got := gitCmd(t, dir, "show", "HEAD:n.md"); got != "# N\n" {
		t.Errorf("n.md at HEAD: %q (an amend returning nil leaves the file)", got)
	}

	// "f" is a file, so "f/x.md" cannot be written: Init fails.
	dir = t.TempDir()
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("a\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644)
	_, _, err = repo.Init(ctx, dir, repo.InitOptions{Options: opts,
		Amend: map[string]func([]byte) []byte{".gitignore": add, "f/x.md": add}})
	if err == nil {
		t.Fatal("Init wrote f/x.md under a file")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".gitignore")); string(b) != "a\n" {
		t.Errorf("a failed Init left .gitignore as %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git")); !os.IsNotExist(err) {
		t.Errorf("a failed Init left .git: %v", err)
	}
}
