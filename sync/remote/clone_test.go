package remote_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/norn-vault/norn/sync/remote"
)

func TestClone(t *testing.T) {
	ctx := t.Context()
	src, bare := newVault(t), newBare(t)
	if err := os.MkdirAll(filepath.Join(src, "tech", "db"), 0o755); err != nil {
		t.Fatal(err)
	}
	commit(t, src, "tech/db/bloom.md", "# Bloom\n")
	want := commit(t, src, "b.md", "# B\n")
	git(t, src, "push", "-q", bare, "main")

	dst := filepath.Join(t.TempDir(), "clone")
	tip, err := remote.Clone(ctx, bare, dst, remote.Options{}, nil)
	if err != nil || tip != want {
		t.Fatalf("Clone = %q, %v; want %q", tip, err, want)
	}
	if head(t, dst) != want || git(t, dst, "status", "--porcelain") != "" {
		t.Fatalf("clone: HEAD %s, status %q", head(t, dst), git(t, dst, "status", "--porcelain"))
	}
	if got := string(readFile(t, filepath.Join(dst, "tech", "db", "bloom.md"))); got != "# Bloom\n" {
		t.Errorf("checked-out file = %q", got)
	}
	if git(t, dst, "config", "branch.main.remote") != "origin" || git(t, dst, "config", "remote.origin.url") != bare {
		t.Errorf("clone's tracking config is not git's")
	}
	git(t, dst, "fsck", "--strict")
	if git(t, dst, "pull", "-q", "--ff-only") != "" {
		t.Errorf("git pull in the clone said something")
	}

	// An empty remote: a repository without commits, origin set.
	empty := filepath.Join(t.TempDir(), "empty")
	if tip, err := remote.Clone(ctx, newBare(t), empty, remote.Options{}, nil); err != nil || tip != "" {
		t.Fatalf("Clone(empty) = %q, %v", tip, err)
	}
	if git(t, empty, "remote") != "origin" {
		t.Errorf("empty clone has no origin")
	}

	// A folder with something in it is refused and left alone.
	full := t.TempDir()
	os.WriteFile(filepath.Join(full, "mine.md"), []byte("mine\n"), 0o644)
	if _, err := remote.Clone(ctx, bare, full, remote.Options{}, nil); !errors.Is(err, remote.ErrInvalid) {
		t.Errorf("Clone into a non-empty folder = %v", err)
	}
	if entries, _ := os.ReadDir(full); len(entries) != 1 {
		t.Errorf("refused clone touched the folder: %v", entries)
	}
	// A failed clone leaves nothing behind: not the new folder, nor anything
	// inside an empty one that was there.
	gone := filepath.Join(t.TempDir(), "gone")
	if _, err := remote.Clone(ctx, filepath.Join(t.TempDir(), "missing.git"), gone, remote.Options{}, nil); err == nil {
		t.Fatal("clone of a missing repository succeeded")
	}
	if _, err := os.Stat(gone); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("failed clone left %s", gone)
	}
	emptyDir := t.TempDir()
	if _, err := remote.Clone(ctx, filepath.Join(t.TempDir(), "missing.git"), emptyDir, remote.Options{}, nil); err == nil {
		t.Fatal("clone of a missing repository succeeded")
	}
	if entries, _ := os.ReadDir(emptyDir); len(entries) != 0 {
		t.Errorf("failed clone left %v in the empty folder", entries)
	}
	if _, err := remote.Clone(ctx, "https://me:pw@host/x", filepath.Join(t.TempDir(), "x"), remote.Options{}, nil); !errors.Is(err, remote.ErrInvalid) {
		t.Errorf("Clone with credentials in the URL = %v", err)
	}
}
