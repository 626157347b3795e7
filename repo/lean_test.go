package repo_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/norn-vault/norn/repo"
)

// openLean opens dir as a one-shot command does (Options.Lean).
func openLean(t *testing.T, dir string) *repo.Vault {
	t.Helper()
	v, err := repo.Open(context.Background(), dir, repo.Options{Now: clock(), Owner: repo.Author{Name: "o", Email: "o@x"}, Lean: true})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestVault_LeanOpsAgainstGit makes every write, archive and move from a vault
// opened lean, as one `norn` command each, with the git CLI reading and rewriting
// git's index in between (status, update-index, split index off and on). After
// each, git's index holds exactly HEAD's files and the repository is clean: the
// split index written from a few entries pulled out of the shared index is the
// one a full load would write, through new shared indexes too (300 changes to
// 1,200 entries pass the 1/16 that starts one).
func TestVault_LeanOpsAgainstGit(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short mode")
	}
	const n = 1200
	ctx := context.Background()
	v := bigVault(t, n)
	dir := v.Dir()
	v.Close()
	ops := newRandomOps(n, 5, 6)
	for i := range 300 {
		v := openLean(t, dir)
		tx := ops.next(v, i)
		if _, err := v.Apply(ctx, tx); err != nil {
			t.Fatalf("op %d %s: %v", i, tx.Op, err)
		}
		v.Close()
		switch {
		case i%100 == 99:
			if i%200 == 99 {
				gitCmd(t, dir, "update-index", "--no-split-index")
			} else {
				gitCmd(t, dir, "update-index", "--split-index")
			}
			assertIndexMatchesHead(t, v)
		case i%17 == 0:
			assertIndexMatchesHead(t, v)
		case i%11 == 0:
			gitCmd(t, dir, "update-index", "--refresh")
		case i%13 == 0:
			gitCmd(t, dir, "status", "--porcelain")
		}
	}
	assertIndexMatchesHead(t, v)
	// A full open finds nothing to mend.
	full, err := repo.Open(ctx, dir, repo.Options{Now: clock()})
	if err != nil {
		t.Fatal(err)
	}
	full.Close()
	assertIndexMatchesHead(t, v)
}

// TestVault_LeanRefusesBadInput: a lean open refuses a bad path, a stale expected
// revision and a write over a person's uncommitted edit as a full one does, and
// writes nothing (HEAD, git's index and the working tree as they were, by git).
func TestVault_LeanRefusesBadInput(t *testing.T) {
	ctx := context.Background()
	v := bigVault(t, 1100)
	dir := v.Dir()
	rev := v.Revision("f03/n0300.md")
	v.Close()
	gitCmd(t, dir, "status", "--porcelain") // git refreshes its index
	head := gitCmd(t, dir, "rev-parse", "HEAD")
	lsFiles := gitCmd(t, dir, "ls-files", "--stage")
	edit := "# a person's edit\n"
	writeWorktree(t, dir, "f04/n0400.md", edit)
	tests := []struct {
		name string
		ch   repo.Change
		want error
	}{
		{"dotdot", put("../x.md", "# x\n", ""), repo.ErrInvalid},
		{"inside .git", put(".git/x.md", "# x\n", ""), repo.ErrInvalid},
		{"folder", put("f03", "# x\n", ""), repo.ErrInvalid},
		{"under a file", put("f03/n0300.md/x.md", "# x\n", ""), repo.ErrInvalid},
		{"stale revision", put("f03/n0300.md", "# x\n", repo.Revision(strings.Repeat("0", 40))), repo.ErrConflict},
		{"blind overwrite", put("f03/n0300.md", "# x\n", ""), repo.ErrConflict},
		{"over a person's edit", put("f04/n0400.md", "# x\n", repo.Revision(strings.Repeat("1", 40))), repo.ErrConflict},
		{"archive of nothing", repo.Change{Kind: repo.Archive, Path: "f03/none.md"}, repo.ErrNotFound},
	}
	for _, tt := range tests {
		lv := openLean(t, dir)
		if tt.name == "over a person's edit" {
			tt.ch.ExpectedRevision = lv.Revision("f04/n0400.md")
		}
		op := repo.OpWrite
		if tt.ch.Kind == repo.Archive {
			op = repo.OpArchive
		}
		_, err := lv.Apply(ctx, repo.Tx{Author: repo.Author{Name: "a"}, Op: op, Reason: repo.ReasonArchived, Changes: []repo.Change{tt.ch}})
		lv.Close()
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
		if got := gitCmd(t, dir, "rev-parse", "HEAD"); got != head {
			t.Fatalf("%s: HEAD moved", tt.name)
		}
		if got := gitCmd(t, dir, "ls-files", "--stage"); got != lsFiles {
			t.Fatalf("%s: git's index changed", tt.name)
		}
		if st := gitCmd(t, dir, "status", "--porcelain"); st != " M f04/n0400.md\n" {
			t.Fatalf("%s: git status %q", tt.name, st)
		}
	}
	if got := readFile(t, v, "f04/n0400.md"); got != edit {
		t.Fatalf("the person's edit is gone: %q", got)
	}
	if rev == "" {
		t.Fatal("no revision")
	}
	gitCmd(t, dir, "fsck", "--strict", "--no-progress")
}

func writeWorktree(t *testing.T, dir, p, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, p), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestVault_LeanRecoversWhenMarked: a lean open whose marker says a writer died
// mid-update recovers as a full open does, from git's whole (split) index: here
// git's index is left at the commit before HEAD, as a crash between the branch's
// move and the index write leaves it.
func TestVault_LeanRecoversWhenMarked(t *testing.T) {
	v := bigVault(t, 1100)
	write(t, v, put("f03/new.md", "# new\n", ""))
	dir := v.Dir()
	v.Close()
	gitCmd(t, dir, "-c", "core.splitIndex=true", "read-tree", "HEAD~1")
	gitCmd(t, dir, "update-index", "--split-index")
	if d := gitCmd(t, dir, "diff-index", "--cached", "--name-only", "HEAD"); d != "f03/new.md\n" {
		t.Fatalf("git's index is not a commit behind: %q", d)
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "norn", "worktree-writing"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// Written a while ago, not by a git command at work now (see gitState).
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(dir, ".git", "index"), old, old); err != nil {
		t.Fatal(err)
	}
	openLean(t, dir).Close()
	assertIndexMatchesHead(t, v)
}

// TestVault_LeanSharedIndexGone: when the shared index .git/index names is gone
// (removed by hand, expired by git), a lean open does not write git's index from
// the few entries it could read: it reads and checks the index whole, as a full
// open does, and leaves git's index as a full open's write leaves it.
func TestVault_LeanSharedIndexGone(t *testing.T) {
	v := bigVault(t, 1100)
	dir := v.Dir()
	write(t, v, put("f01/a.md", "# a\n", ""))
	v.Close()
	shared := sharedIndexes(t, v)
	if len(shared) == 0 {
		t.Fatal("no shared index")
	}
	for _, p := range shared {
		os.Remove(p)
	}
	twin := t.TempDir()
	if out, err := exec.Command("cp", "-a", dir+"/.", twin).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	stages := map[bool]string{}
	for _, lean := range []bool{false, true} {
		d := dir
		if lean {
			d = twin
		}
		ov, err := repo.Open(context.Background(), d, repo.Options{Now: clock(), Owner: repo.Author{Name: "o", Email: "o@x"}, Lean: lean})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ov.Apply(context.Background(), repo.Tx{Author: repo.Author{Name: "a"}, Op: repo.OpWrite, Changes: []repo.Change{put("f02/b.md", "# b\n", "")}}); err != nil {
			t.Fatal(err)
		}
		ov.Close()
		stages[lean] = gitCmd(t, d, "ls-files", "--stage")
	}
	if stages[true] != stages[false] {
		t.Fatalf("git's index after a lean write (%d lines) differs from a full one's (%d lines)",
			strings.Count(stages[true], "\n"), strings.Count(stages[false], "\n"))
	}
}
