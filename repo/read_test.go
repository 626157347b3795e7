package repo_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// TestVault_ResolveCommit: the commit-ish forms docs/cli.md documents resolve to
// what `git rev-parse` says; every other revision form git has (searches of
// commit messages, paths, reflogs, ranges, peeling) is ErrInvalid, whether or not
// it would match, so that it cannot be used as an oracle.
func TestVault_ResolveCommit(t *testing.T) {
	v := newVault(t, repo.Options{})
	write(t, v, put("a.md", "# A\none\n", ""))
	write(t, v, put("b.md", "# B\nrotate the vault key to 7\n", ""))
	write(t, v, put("c.md", "# C\n", ""))
	dir := v.Dir()
	branch := strings.TrimSpace(gitCmd(t, dir, "symbolic-ref", "--short", "HEAD"))
	gitCmd(t, dir, "branch", "side", "HEAD~1")
	gitCmd(t, dir, "branch", "feature/x.y", "HEAD~2")
	tree := strings.TrimSpace(gitCmd(t, dir, "rev-parse", "HEAD^{tree}"))
	merge := strings.TrimSpace(gitCmd(t, dir, "commit-tree", tree, "-p", "HEAD", "-p", "HEAD~2", "-m", "merge"))
	gitCmd(t, dir, "branch", "merged", merge)
	head := strings.TrimSpace(gitCmd(t, dir, "rev-parse", "HEAD"))

	for _, at := range []string{
		"HEAD", "HEAD~", "HEAD^", "HEAD~1", "HEAD~2", "HEAD^0", "HEAD^1~1", "HEAD~1^", "HEAD~~",
		branch, branch + "~1", "side", "side^", "feature/x.y",
		head, head[:4], head[:7], strings.ToUpper(head[:10]), head[:12] + "~2",
		"merged", "merged^2", "merged^1", "merged^2^0", "merged~1~1",
	} {
		got, err := v.Commit(t.Context(), at)
		if err != nil {
			t.Errorf("%s: %v", at, err)
			continue
		}
		if want := strings.TrimSpace(gitCmd(t, dir, "rev-parse", "--verify", at+"^{commit}")); string(got.ID) != want {
			t.Errorf("%s: %s, git says %s", at, got.ID, want)
		}
	}
	for _, at := range []string{"HEAD~4", "HEAD~99", "merged^3", "HEAD^2", "nosuchbranch", "deadbeef", strings.Repeat("0", 40), "side~5"} {
		if _, err := v.Commit(t.Context(), at); !errors.Is(err, repo.ErrNotFound) {
			t.Errorf("%s: %v, want ErrNotFound", at, err)
		}
	}
	for _, at := range []string{
		"HEAD^{/rotate.the.vault.key.to.7}", "HEAD^{/rotate.the.vault.key.to.8}", "HEAD^{/}", ":/rotate", "HEAD^{commit}",
		"HEAD^{tree}", "merged^{}", "HEAD:a.md", "HEAD:nope.md", ":a.md", "HEAD@{1}", branch + "@{0}", "@{-1}", "@",
		"HEAD..side", "HEAD...side", "side..", "HEAD^!", "HEAD^@", "HEAD^-1", "HEAD~-1", "HEAD~1x", "~1", "^", "^HEAD",
		"HEAD~99999999", "-n", "a b", "HEAD\n", "", "side.lock", ".hidden", "x//y", "x/", "refs/heads/*",
	} {
		if _, err := v.Commit(t.Context(), at); !errors.Is(err, repo.ErrInvalid) {
			t.Errorf("%q: %v, want ErrInvalid", at, err)
		}
	}
	// Read and Diff take the same forms.
	if _, err := v.Read(t.Context(), "a.md", "HEAD^{/rotate}"); !errors.Is(err, repo.ErrInvalid) {
		t.Errorf("Read at a message search: %v", err)
	}
	if _, err := v.Diff(t.Context(), "HEAD~2", "HEAD:a.md"); !errors.Is(err, repo.ErrInvalid) {
		t.Errorf("Diff to a path: %v", err)
	}
}

// TestVault_RevisionWasAt: a blob was at a path when some commit reachable from
// HEAD had it there, archived or not; a blob elsewhere, a commit's id or nothing
// was not. A blob's id is no commit: ErrNotFound, as for an id naming nothing.
func TestVault_RevisionWasAt(t *testing.T) {
	v := newVault(t, repo.Options{})
	old := write(t, v, put("a.md", "# A\none\n", "")).Changes[0].Revision
	cur := write(t, v, put("a.md", "# A\ntwo\n", old)).Changes[0].Revision
	other := write(t, v, put("dir/b.md", "# B\n", "")).Changes[0].Revision
	if _, err := v.Apply(t.Context(), repo.Tx{Author: repo.Author{Name: "x"}, Op: repo.OpArchive, Reason: repo.ReasonArchived,
		Changes: []repo.Change{{Kind: repo.Archive, Path: "dir/b.md", ExpectedRevision: other}}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		rev  repo.Revision
		want bool
	}{
		{"a.md", cur, true}, {"a.md", old, true}, {"dir/b.md", other, true},
		{"a.md", other, false}, {"dir/b.md", old, false}, {"b.md", other, false}, {"dir", other, false},
		{"a.md", repo.Revision(v.Head()), false}, {"a.md", repo.Revision(strings.Repeat("0", 40)), false},
	} {
		got, err := v.RevisionWasAt(t.Context(), note.Path(tc.path), tc.rev)
		if err != nil || got != tc.want {
			t.Errorf("RevisionWasAt(%s, %s) = %v, %v; want %v", tc.path, tc.rev, got, err, tc.want)
		}
	}
	if _, err := v.RevisionWasAt(t.Context(), "a.md", "abc"); !errors.Is(err, repo.ErrInvalid) {
		t.Errorf("a short revision: %v", err)
	}
	for _, at := range []string{string(old), strings.Repeat("0", 40)} {
		if _, err := v.Commit(t.Context(), at); !errors.Is(err, repo.ErrNotFound) {
			t.Errorf("Commit(%s): %v, want ErrNotFound", at, err)
		}
	}
}

// TestVault_ResolveAbbreviatedWhilePacksMerge: writes roll their small packs up
// into bigger ones and delete the old; an abbreviated id or ID~N resolved
// meanwhile failed now and then as not found (go-git still looked in the packs as
// they were).
func TestVault_ResolveAbbreviatedWhilePacksMerge(t *testing.T) {
	v := newVault(t, repo.Options{})
	var commits []repo.CommitID
	for i := range 20 {
		commits = append(commits, write(t, v, put("a.md", fmt.Sprintf("# A\n%d\n", i), v.Revision("a.md"))).Commit)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 200 {
			_, err := v.Apply(context.Background(), repo.Tx{Author: repo.Author{Name: "w"}, Op: repo.OpWrite,
				Changes: []repo.Change{put(fmt.Sprintf("n%03d.md", i), "# N\n", "")}})
			if err != nil {
				t.Error(err)
				return
			}
		}
	}()
	var failed error
	for n := 0; failed == nil; n++ {
		select {
		case <-done:
			return
		default:
		}
		c := string(commits[n%len(commits)])
		for _, at := range []string{c[:10], c + "~1", c[:8] + "^0"} {
			if _, err := v.ResolveCommit(at); err != nil {
				failed = fmt.Errorf("resolve %s during writes: %w", at, err)
			}
		}
	}
	<-done
	t.Fatal(failed)
}
