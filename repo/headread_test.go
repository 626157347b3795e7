package repo_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// TestReadHead_AgreesWithGit: ReadHead reads every file at HEAD as git show does,
// with git's blob and commit ids, through folders whose names sort around files
// (f, f.md, f-x); a folder, a missing path and a path through a file are not
// found, a path Norn refuses is invalid, a folder without .git is not a vault.
func TestReadHead_AgreesWithGit(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	write(t, v, put("a.md", "# A\n", ""), put("f.md", "file beside its folder\n", ""), put("f/x.md", "in f\n", ""),
		put("f/deep/y.md", "deeper\n", ""), put("f-x/z.md", "z\n", ""), put("g/h/i/j.md", "four deep\n", ""))
	dir := v.Dir()
	head := strings.TrimSpace(gitCmd(t, dir, "rev-parse", "HEAD"))
	files := strings.Fields(gitCmd(t, dir, "ls-tree", "-r", "--name-only", "HEAD"))
	if len(files) < 7 {
		t.Fatalf("git ls-tree: %v", files)
	}
	for _, p := range files {
		b, err := repo.ReadHead(ctx, dir, note.Path(p))
		if err != nil {
			t.Fatalf("ReadHead %s: %v", p, err)
		}
		if string(b.Content) != gitCmd(t, dir, "show", "HEAD:"+p) {
			t.Errorf("ReadHead %s = %q, git show says otherwise", p, b.Content)
		}
		if string(b.Revision) != strings.TrimSpace(gitCmd(t, dir, "rev-parse", "HEAD:"+p)) || string(b.Commit) != head {
			t.Errorf("ReadHead %s: revision %s commit %s", p, b.Revision, b.Commit)
		}
		if full, err := v.Read(ctx, note.Path(p), ""); err != nil || full.Revision != b.Revision {
			t.Errorf("Read %s: %+v %v", p, full, err)
		}
	}
	for _, p := range []string{"f", "f/deep", "nope.md", "f/nope.md", "a.md/x.md", "g/h/i/j.md/k"} {
		if _, err := repo.ReadHead(ctx, dir, note.Path(p)); !errors.Is(err, repo.ErrNotFound) {
			t.Errorf("ReadHead %s: %v, want ErrNotFound", p, err)
		}
	}
	if _, err := repo.ReadHead(ctx, dir, "../x.md"); !errors.Is(err, repo.ErrInvalid) {
		t.Errorf("ReadHead ../x.md: %v, want ErrInvalid", err)
	}
	if _, err := repo.ReadHead(ctx, t.TempDir(), "a.md"); !errors.Is(err, repo.ErrNotVault) {
		t.Errorf("ReadHead outside a vault: %v, want ErrNotVault", err)
	}
}
