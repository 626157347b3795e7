package repo_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// TestHistory_AgreesWithGit: over random writes, archives and restores in nested
// folders (some notes with the same bytes in different places, so equal trees recur),
// Log of every path lists exactly the commits in which `git log --raw` shows that
// file change, and
// RevisionWasAt is true for exactly the blobs `git rev-parse C:path` gives along
// them.
func TestHistory_AgreesWithGit(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	rng := rand.New(rand.NewPCG(7, 11))
	// q.md is a note at times and a folder at others.
	paths := []string{"a.md", "x/a.md", "x/y/a.md", "x/y/b.md", "z/a.md", "z/y/a.md", "x/x/a.md", "q.md", "q.md/r.md"}
	for i := range 120 {
		p := note.Path(paths[rng.IntN(len(paths))])
		switch rev := v.Revision(p); {
		case rev != "" && rng.IntN(6) == 0:
			if _, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "x"}, Op: repo.OpArchive, Reason: repo.ReasonSuperseded,
				Changes: []repo.Change{{Kind: repo.Archive, Path: p}}}); err != nil {
				t.Fatal(err)
			}
		default:
			// Few distinct contents: the same blob and the same trees come back. A
			// note where a folder is (or the reverse) is refused: nothing happens.
			_, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "x"}, Op: repo.OpWrite,
				Changes: []repo.Change{put(string(p), fmt.Sprintf("# Note\n\nversion %d\n", rng.IntN(4)+i%2), rev)}})
			if err != nil && !strings.HasPrefix(string(p), "q.md") {
				t.Fatal(err)
			}
		}
	}
	if len(strings.Fields(gitCmd(t, v.Dir(), "log", "--format=%H", "--", "q.md/r.md"))) == 0 ||
		len(strings.Fields(gitCmd(t, v.Dir(), "log", "--format=%H", "--diff-filter=A", "--", "q.md"))) < 2 {
		t.Fatal("q.md was not both a note and a folder in this history: the test shows less than it says")
	}
	revsOf := map[string][]string{}
	for _, p := range paths {
		want := gitNoteLog(t, v.Dir(), p)
		lg, err := v.Log(ctx, note.Path(p), 1000)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range lg {
			got = append(got, string(c.ID))
		}
		if !slices.Equal(got, want) {
			t.Errorf("Log %s:\n%v\ngit log:\n%v", p, got, want)
		}
		for _, c := range want {
			// A note's revisions are blobs (q.md is a tree at times).
			if typ, err := exec.Command("git", "-C", v.Dir(), "cat-file", "-t", c+":"+p).Output(); err == nil && strings.TrimSpace(string(typ)) == "blob" {
				revsOf[p] = append(revsOf[p], strings.TrimSpace(gitCmd(t, v.Dir(), "rev-parse", c+":"+p)))
			}
		}
	}
	for _, p := range paths {
		for _, q := range paths {
			for _, rev := range revsOf[q] {
				ok, err := v.RevisionWasAt(ctx, note.Path(p), repo.Revision(rev))
				if want := slices.Contains(revsOf[p], rev); err != nil || ok != want {
					t.Errorf("RevisionWasAt(%s, %s from %s) = %v, %v; want %v", p, rev[:8], q, ok, err, want)
				}
			}
		}
	}
}

// gitNoteLog lists, newest first, the commits in which git shows the file p itself
// change (`git log -- p` also lists changes under a folder p).
func gitNoteLog(t *testing.T, dir, p string) []string {
	t.Helper()
	var out []string
	for _, rec := range strings.Split(gitCmd(t, dir, "log", "--format=%x00%H", "--raw", "--no-renames", "--", p), "\x00")[1:] {
		lines := strings.Split(rec, "\n")
		for _, l := range lines[1:] {
			if _, file, ok := strings.Cut(l, "\t"); ok && file == p {
				out = append(out, strings.TrimSpace(lines[0]))
				break
			}
		}
	}
	return out
}
