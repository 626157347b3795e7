package repo_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// TestVault_Apply_RefusesUnwritableNames: a name the file system cannot hold, or one
// that looks like Norn's temporary files, is refused before anything is committed.
func TestVault_Apply_RefusesUnwritableNames(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	head := v.Head()
	for _, p := range []string{
		strings.Repeat("n", 253) + ".md",
		"a/" + strings.Repeat("f", 256) + "/x.md",
		repo.TempPrefix + "a.md",
		"a/.NORN-TMP-b/c.md",
	} {
		_, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "x"}, Op: repo.OpWrite, Changes: []repo.Change{put(p, "x\n", "")}})
		if !errors.Is(err, repo.ErrInvalid) {
			t.Errorf("path %q: got %v, want ErrInvalid", p, err)
		}
	}
	if v.Head() != head {
		t.Fatal("HEAD moved")
	}
	// The longest name that fits is fine.
	write(t, v, put(strings.Repeat("n", repo.MaxNameBytes-3)+".md", "x\n", ""))
	assertClean(t, v)
}

// TestVault_Changes_FailedWorktreeWriteIsNoDeletion: when Norn commits a file but
// cannot write it to the working tree, its absence is not a person's deletion, so no
// external commit archives it.
func TestVault_Changes_FailedWorktreeWriteIsNoDeletion(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	// A person's untracked file where the note's folder must go: the commit is
	// made, writing the working-tree file fails.
	if err := os.WriteFile(filepath.Join(v.Dir(), "a"), []byte("a person's file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	write(t, v, put("a/b.md", "# B\n", ""))
	if _, err := os.Stat(filepath.Join(v.Dir(), "a", "b.md")); err == nil {
		t.Fatal("the test needs the working-tree write to fail")
	}
	changes, err := v.Changes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		if c.Kind == repo.Archive {
			t.Errorf("Changes reports %s as deleted, though Norn failed to write it", c.Path)
		}
	}
	if _, err := v.Read(ctx, note.Path("a/b.md"), ""); err != nil {
		t.Fatalf("the note is gone from HEAD: %v", err)
	}
}

// TestVault_Open_CommittedLongName: a name too long for the file system committed
// by other means (the git CLI) does not stop the vault from opening, and its absence
// from the working tree is not committed as a deletion.
func TestVault_Open_CommittedLongName(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	dir := v.Dir()
	v.Close()
	long := strings.Repeat("n", 253) + ".md"
	blob := strings.TrimSpace(gitCmdIn(t, dir, "# long\n", "hash-object", "-w", "--stdin"))
	gitCmd(t, dir, "update-index", "--add", "--cacheinfo", "100644,"+blob+","+long)
	gitCmd(t, dir, "commit", "-q", "-m", "long name")
	head := strings.TrimSpace(gitCmd(t, dir, "rev-parse", "HEAD"))
	v2, err := repo.Open(ctx, dir, repo.Options{Now: clock()})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer v2.Close()
	res, err := v2.CommitExternal(ctx, "", "")
	if err != nil || res != nil {
		t.Fatalf("CommitExternal = %+v, %v; want nothing to commit", res, err)
	}
	if got := strings.TrimSpace(gitCmd(t, dir, "rev-parse", "HEAD")); got != head {
		t.Fatalf("HEAD moved to %s", got)
	}
	if ls := gitCmd(t, dir, "ls-tree", "--name-only", "HEAD"); !strings.Contains(ls, long) {
		t.Fatalf("the note left HEAD:\n%s", ls)
	}
}

// TestVault_RemoveTempFiles_KeepsTrackedFiles: the temp-file cleanup never deletes a
// file HEAD tracks, even one named like a temporary file.
func TestVault_RemoveTempFiles_KeepsTrackedFiles(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	dir := v.Dir()
	v.Close()
	tracked := repo.TempPrefix + "a.md"
	os.WriteFile(filepath.Join(dir, tracked), []byte("# keep\n"), 0o644)
	gitCmd(t, dir, "add", tracked)
	gitCmd(t, dir, "commit", "-q", "-m", "tracked")
	stray := filepath.Join(dir, "sub", repo.TempPrefix+"0123456789ab")
	os.MkdirAll(filepath.Dir(stray), 0o755)
	os.WriteFile(stray, []byte("half a write"), 0o644)
	v2, err := repo.Open(ctx, dir, repo.Options{Now: clock()})
	if err != nil {
		t.Fatal(err)
	}
	defer v2.Close()
	n, err := v2.RemoveTempFiles(ctx)
	if err != nil || n != 1 {
		t.Fatalf("RemoveTempFiles = %d, %v; want 1 (the stray only)", n, err)
	}
	if _, err := os.Stat(filepath.Join(dir, tracked)); err != nil {
		t.Fatalf("the tracked file was removed: %v", err)
	}
	if _, err := os.Stat(stray); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the stray temp file is still there: %v", err)
	}
	if res, err := v2.CommitExternal(ctx, "", ""); err != nil || res != nil {
		t.Fatalf("CommitExternal = %+v, %v; want nothing to commit", res, err)
	}
	gitCmd(t, dir, "fsck", "--strict", "--no-progress")
	if st := gitCmd(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("git status:\n%s", st)
	}
}

// gitCmdIn runs git in dir with stdin.
func gitCmdIn(t testing.TB, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}
