package vault_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// BenchmarkCatchUp measures bringing the index to HEAD: after a commit that touches
// 100 notes of a 5,000-note vault (tree diff + parse + index update), and when
// nothing changed.
func BenchmarkCatchUp(b *testing.B) {
	ctx := context.Background()
	v, _, err := repo.Init(ctx, b.TempDir(), repo.InitOptions{Options: repo.Options{Owner: repo.Author{Name: "o", Email: "o@x"}}})
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 5000
	var changes []repo.Change
	for i := range n {
		changes = append(changes, repo.Change{Kind: repo.Put, Path: note.Path(fmt.Sprintf("f%02d/n%04d.md", i/100, i)), Content: []byte(randomNote(rng, i))})
	}
	if _, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "b"}, Op: repo.OpWrite, Changes: changes}); err != nil {
		b.Fatal(err)
	}
	x := vault.OpenIndexer(ctx, v, graph.Options{}, nil)
	defer x.Close()
	if err := x.CatchUp(ctx); err != nil {
		b.Fatal(err)
	}
	b.Run("changed=100", func(b *testing.B) {
		b.ReportAllocs()
		round := 0
		for b.Loop() {
			b.StopTimer()
			var tx repo.Tx
			tx.Author, tx.Op = repo.Author{Name: "b"}, repo.OpWrite
			for k := range 100 {
				p := note.Path(fmt.Sprintf("f%02d/n%04d.md", (round*100+k)%n/100, (round*100+k)%n))
				tx.Changes = append(tx.Changes, repo.Change{Kind: repo.Put, Path: p, Content: []byte(randomNote(rng, round)), ExpectedRevision: v.Revision(p)})
			}
			if _, err := v.Apply(ctx, tx); err != nil {
				b.Fatal(err)
			}
			round++
			b.StartTimer()
			if err := x.CatchUp(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("changed=0", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := x.CatchUp(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}
