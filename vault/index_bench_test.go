package vault_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// catchUpSizes are BenchmarkCatchUp's vault sizes: 1,000 and 10,000 notes, and
// 100,000 with NORN_BENCH_100K (seeding it takes minutes).
func catchUpSizes() []int {
	if os.Getenv("NORN_BENCH_100K") != "" {
		return []int{1000, 10000, 100000}
	}
	return []int{1000, 10000}
}

// linkedNote is randomNote with two wikilinks to other notes of an n-note vault,
// so that a catch-up also updates the link graph and the inbound field.
func linkedNote(rng *rand.Rand, i, n int) string {
	return randomNote(rng, i) + fmt.Sprintf("See [[n%06d]] and [[n%06d]].\n", rng.IntN(n), rng.IntN(n))
}

func catchUpPath(i int) note.Path { return note.Path(fmt.Sprintf("f%03d/n%06d.md", i/500, i)) }

// BenchmarkCatchUp measures the vault-level catch-up (Indexer.CatchUp: the tree
// diff from the index's commit to HEAD, reading and parsing the changed notes, the
// index update) after a commit that changes 100 notes of a vault of N notes in
// folders of 500, each with two links, and when nothing changed. The cost should
// follow the 100 notes, not N.
func BenchmarkCatchUp(b *testing.B) {
	for _, n := range catchUpSizes() {
		// Seeding is inside the size's own benchmark, so -bench picks sizes cheaply.
		b.Run(fmt.Sprintf("notes=%d", n), func(b *testing.B) { benchCatchUp(b, n) })
	}
}

func benchCatchUp(b *testing.B, n int) {
	ctx := context.Background()
	v, _, err := repo.Init(ctx, b.TempDir(), repo.InitOptions{Options: repo.Options{Owner: repo.Author{Name: "o", Email: "o@x"}}})
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	changes := make([]repo.Change, 0, n)
	for i := range n {
		changes = append(changes, repo.Change{Kind: repo.Put, Path: catchUpPath(i), Content: []byte(linkedNote(rng, i, n))})
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
				p := catchUpPath((round*100 + k) % n)
				tx.Changes = append(tx.Changes, repo.Change{Kind: repo.Put, Path: p, Content: []byte(linkedNote(rng, round, n)), ExpectedRevision: v.Revision(p)})
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
