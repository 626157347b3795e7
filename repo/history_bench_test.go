package repo_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// BenchmarkHistory measures the walks over a history of 5,000 commits (writes to
// 100 notes in turn, in 10 folders): Log of one note (its 50 commits, found by
// walking the whole history), and RevisionWasAt, the check a caller without the
// private scope pays to read or restore a note by blob id, for a revision the note
// had in its first commit (the walk goes to the root) and for one it never had (the
// whole history, the worst case).
func BenchmarkHistory(b *testing.B) {
	const commits, notes = 5000, 100
	ctx := context.Background()
	v := newVault(b, repo.Options{})
	var first, other repo.Revision
	for i := range commits {
		p := note.Path(fmt.Sprintf("f%d/n%03d.md", i%10, i%notes))
		res, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "bench"}, Op: repo.OpWrite,
			Changes: []repo.Change{put(string(p), fmt.Sprintf("# Note\n\nversion %d\n", i), v.Revision(p))}})
		if err != nil {
			b.Fatal(err)
		}
		switch i {
		case 0:
			first = res.Changes[0].Revision
		case 1:
			other = res.Changes[0].Revision
		}
	}
	if _, err := v.GC(ctx, repo.GCOptions{}); err != nil {
		b.Fatal(err)
	}
	b.Run(fmt.Sprintf("commits=%d/log", commits), func(b *testing.B) {
		for b.Loop() {
			cs, err := v.Log(ctx, "f0/n000.md", 1000)
			if err != nil || len(cs) != commits/notes {
				b.Fatalf("Log: %d commits, %v", len(cs), err)
			}
		}
	})
	for _, c := range []struct {
		name string
		rev  repo.Revision
		want bool
	}{{"found-at-root", first, true}, {"never-there", other, false}} {
		b.Run(fmt.Sprintf("commits=%d/revision-was-at/%s", commits, c.name), func(b *testing.B) {
			for b.Loop() {
				ok, err := v.RevisionWasAt(ctx, "f0/n000.md", c.rev)
				if err != nil || ok != c.want {
					b.Fatalf("RevisionWasAt: %v, %v", ok, err)
				}
			}
		})
	}
}
