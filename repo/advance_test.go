package repo_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// foreignCommits clones v with the git CLI, lets edit change the clone and
// commit, and fetches the result into v (refs/remotes/other/main): the commit
// returned is in v's object store but not on its branch.
func foreignCommits(t *testing.T, v *repo.Vault, edit func(dir string)) repo.CommitID {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "other")
	gitCmd(t, filepath.Dir(dir), "clone", "-q", v.Dir(), dir)
	edit(dir)
	gitCmd(t, dir, "add", "-A")
	gitCmd(t, dir, "commit", "-q", "-m", "theirs")
	gitCmd(t, v.Dir(), "fetch", "-q", dir, "main:refs/remotes/other/main")
	return repo.CommitID(strings.TrimSpace(gitCmd(t, dir, "rev-parse", "HEAD")))
}

func TestVault_Advance(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	write(t, v, put("a.md", "a\n", ""), put("old.md", "old\n", ""))
	evs := collectEvents(v)
	old := v.Head()
	tip := foreignCommits(t, v, func(dir string) {
		gitWrite(t, dir, "a.md", "a changed\n")
		gitWrite(t, dir, "new/b.md", "b\n")
		os.Remove(filepath.Join(dir, "old.md"))
	})
	res, err := v.Advance(ctx, old, tip)
	if err != nil {
		t.Fatal(err)
	}
	if res.Commit != tip || v.Head() != tip {
		t.Fatalf("head %s, result %s, want %s", v.Head(), res.Commit, tip)
	}
	assertClean(t, v)
	if got := readFile(t, v, "a.md"); got != "a changed\n" {
		t.Fatalf("a.md = %q", got)
	}
	if got := readFile(t, v, "new/b.md"); got != "b\n" {
		t.Fatalf("new/b.md = %q", got)
	}
	if _, err := os.Stat(filepath.Join(v.Dir(), "old.md")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("old.md still in the working tree: %v", err)
	}
	if got := strings.TrimSpace(gitCmd(t, v.Dir(), "rev-parse", "HEAD")); got != string(tip) {
		t.Fatalf("git HEAD %s, want %s", got, tip)
	}
	if rl := gitCmd(t, v.Dir(), "reflog", "-1", "--format=%gs"); !strings.Contains(rl, "fast-forward (norn sync)") {
		t.Fatalf("reflog %q", rl)
	}
	ev := evs.wait(t, 1)[0]
	if ev.Source != repo.SourceSync || ev.ID != tip {
		t.Fatalf("event %s source %s, want %s sync", ev.ID, ev.Source, tip)
	}
	if got := changesString(ev); got != "modified a.md, added new/b.md, archived old.md" {
		t.Fatalf("event changes %q", got)
	}
	// Advancing to where the branch is changes nothing.
	if res, err := v.Advance(ctx, tip, tip); err != nil || !res.Unchanged {
		t.Fatalf("advance to the tip: %+v, %v", res, err)
	}
}

func TestVault_AdvanceRefuses(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	write(t, v, put("a.md", "a\n", ""), put("b.md", "b\n", ""))
	old := v.Head()
	tip := foreignCommits(t, v, func(dir string) {
		gitWrite(t, dir, "a.md", "theirs\n")
		gitWrite(t, dir, "b.md", "theirs b\n")
	})
	unchanged := func(t *testing.T) {
		t.Helper()
		if v.Head() != old {
			t.Fatalf("branch moved to %s", v.Head())
		}
		if got := strings.TrimSpace(gitCmd(t, v.Dir(), "rev-parse", "HEAD")); got != string(old) {
			t.Fatalf("git HEAD %s, want %s", got, old)
		}
	}
	for _, tc := range []struct {
		name     string
		old, tip repo.CommitID
		want     error
	}{
		{"unknown commit", old, "0123456789012345678901234567890123456789", repo.ErrNotFound},
		{"malformed commit", old, "nope", repo.ErrInvalid},
		{"stale old tip", tip, tip, repo.ErrConflict},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := v.Advance(ctx, tc.old, tc.tip)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
			unchanged(t)
			assertClean(t, v)
		})
	}
	t.Run("uncommitted edits", func(t *testing.T) {
		gitWrite(t, v.Dir(), "a.md", "a person's edit\n")
		gitWrite(t, v.Dir(), "b.md", "another edit\n")
		_, err := v.Advance(ctx, old, tip)
		var de *repo.DirtyError
		if !errors.Is(err, repo.ErrWorktreeDirty) || !errors.As(err, &de) {
			t.Fatalf("err %v, want a DirtyError", err)
		}
		if !slices.Equal(de.Paths, []note.Path{"a.md", "b.md"}) {
			t.Fatalf("dirty paths %v", de.Paths)
		}
		unchanged(t)
		if got := readFile(t, v, "a.md"); got != "a person's edit\n" {
			t.Fatalf("the edit was overwritten: %q", got)
		}
	})
}

func TestVault_Merge(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	write(t, v, put("a.md", "a\n", ""), put("b.md", "b\n", ""))
	theirs := foreignCommits(t, v, func(dir string) {
		gitWrite(t, dir, "b.md", "b theirs\n")
		gitWrite(t, dir, "c.md", "c\n")
	})
	write(t, v, put("a.md", "a ours\n", v.Revision("a.md")))
	evs := collectEvents(v)
	ours := v.Head()
	bRev := v.Revision("b.md")
	m := repo.MergeTx{Base: ours, Theirs: theirs,
		Trailers: [][2]string{{repo.TrailerRemote, "other"}, {repo.TrailerOurs, string(ours)}, {repo.TrailerTheirs, string(theirs)}},
		Changes: []repo.Change{
			{Kind: repo.Put, Path: "b.md", Content: []byte("b theirs\n"), ExpectedRevision: bRev},
			{Kind: repo.Put, Path: "c.md", Content: []byte("c\n")},
		}}
	t.Run("bad input", func(t *testing.T) {
		bad := m
		bad.Base = theirs
		if _, err := v.Merge(ctx, bad); !errors.Is(err, repo.ErrConflict) {
			t.Fatalf("stale base: %v", err)
		}
		bad = m
		bad.Theirs = "0123456789012345678901234567890123456789"
		if _, err := v.Merge(ctx, bad); !errors.Is(err, repo.ErrNotFound) {
			t.Fatalf("unknown theirs: %v", err)
		}
		bad = m
		bad.Changes = []repo.Change{{Kind: repo.Put, Path: "b.md", Content: []byte("x\n")}}
		if _, err := v.Merge(ctx, bad); !errors.Is(err, repo.ErrConflict) {
			t.Fatalf("wrong expected revision: %v", err)
		}
		bad = m
		bad.Trailers = [][2]string{{"Bad Key", "x"}}
		if _, err := v.Merge(ctx, bad); !errors.Is(err, repo.ErrInvalid) {
			t.Fatalf("bad trailer: %v", err)
		}
		bad = m
		bad.Trailers = [][2]string{{"Norn-Remote", "x\nNorn-Op: write"}}
		if _, err := v.Merge(ctx, bad); !errors.Is(err, repo.ErrInvalid) {
			t.Fatalf("trailer with a line break: %v", err)
		}
		bad = m
		bad.Changes = []repo.Change{{Kind: repo.Put, Path: "../x.md", Content: []byte("x\n")}}
		if _, err := v.Merge(ctx, bad); !errors.Is(err, repo.ErrInvalid) {
			t.Fatalf("bad path: %v", err)
		}
		// A fast-forward to a commit that does not descend from the tip.
		if _, err := v.Advance(ctx, ours, theirs); !errors.Is(err, repo.ErrInvalid) {
			t.Fatalf("advance to a side branch: %v", err)
		}
		// A person's uncommitted edit where the merge writes: refused, kept.
		gitWrite(t, v.Dir(), "c.md", "a person's new file\n")
		var de *repo.DirtyError
		if _, err := v.Merge(ctx, m); !errors.As(err, &de) || len(de.Paths) != 1 || de.Paths[0] != "c.md" {
			t.Fatalf("dirty merge: %v", err)
		}
		if readFile(t, v, "c.md") != "a person's new file\n" {
			t.Fatal("the person's file was overwritten")
		}
		os.Remove(filepath.Join(v.Dir(), "c.md"))
		if v.Head() != ours {
			t.Fatalf("branch moved")
		}
		assertClean(t, v)
	})
	res, err := v.Merge(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	assertClean(t, v)
	parents := strings.Fields(gitCmd(t, v.Dir(), "log", "-1", "--format=%P"))
	if !slices.Equal(parents, []string{string(ours), string(theirs)}) {
		t.Fatalf("parents %v, want ours then theirs", parents)
	}
	msg := gitCmd(t, v.Dir(), "log", "-1", "--format=%B%an")
	for _, want := range []string{"Norn-Op: merge", "Norn-Remote: other", "Norn-Theirs: " + string(theirs), "Owner"} {
		if !strings.Contains(msg, want) {
			t.Fatalf("merge message lacks %q:\n%s", want, msg)
		}
	}
	if got := gitCmd(t, v.Dir(), "diff", string(theirs), "HEAD", "--name-only"); got != "a.md\n" {
		t.Fatalf("merged tree differs from theirs in %q, want a.md only", got)
	}
	if readFile(t, v, "c.md") != "c\n" || readFile(t, v, "b.md") != "b theirs\n" {
		t.Fatal("working tree does not hold the merge")
	}
	got := evs.wait(t, 2)
	if got[0].ID != theirs || got[1].ID != res.Commit || got[1].Source != repo.SourceSync || got[0].Source != repo.SourceSync {
		t.Fatalf("events %s/%s %s/%s", got[0].ID, got[0].Source, got[1].ID, got[1].Source)
	}
	if s := changesString(got[1]); s != "modified b.md, added c.md" {
		t.Fatalf("merge event changes %q", s)
	}
	gitCmd(t, v.Dir(), "log", "--graph", "--oneline")
}
