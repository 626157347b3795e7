package hooks_test

import (
	"context"
	"fmt"
	"iter"
	"strings"
	"testing"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/note"
)

// BenchmarkGates_Check measures the gates on one update of a strict-profile note with
// a protected block, by note size: the cost every write pays before its commit.
func BenchmarkGates_Check(b *testing.B) {
	c := config.Default()
	c.Gates.Profile = config.ProfileStrict
	g := hooks.New(c)
	block := "<!-- norn:related:start -->\nRelated: [[Count-min sketch]]\n<!-- norn:related:end -->\n"
	for _, size := range []int{1 << 10, 16 << 10, 256 << 10} {
		var body strings.Builder
		for body.Len() < size {
			fmt.Fprintf(&body, "A line of prose with a [[link %d]] and some #tag words in it.\n", body.Len())
		}
		old := []byte(strictGood + body.String() + block)
		updated := []byte(strictGood + body.String() + "One more line.\n" + block)
		p := hooks.Proposal{Writer: agent, Op: "edit", Changes: []hooks.Change{
			{Kind: hooks.KindPut, Path: "tech/bloom.md", Old: old, New: updated},
		}}
		b.Run(fmt.Sprintf("bytes=%d", size), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(updated)))
			for b.Loop() {
				if err := g.Check(context.Background(), p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkValidPath measures path safety alone.
func BenchmarkValidPath(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if err := hooks.ValidPath("projects/2026/q3/Bloom filters and friends.md"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGates_CaseCollision measures path-portable and path-case-collision on a
// new note in a folder of n notes named in ASCII or in Japanese, with Twins as
// package repo answers it (a scan of the folder's cached folds), against the same
// put without a tree (Twins nil).
func BenchmarkGates_CaseCollision(b *testing.B) {
	g := hooks.New(config.Default())
	for _, bc := range []struct {
		n            int
		script, name string
	}{{100, "ascii", "note-%05d.md"}, {10000, "ascii", "note-%05d.md"}, {10000, "cjk", "ノート%05d.md"}} {
		type entry struct {
			name, fold string
			dir        bool
		}
		kids := map[string][]entry{"": {{"tech", "tech", true}}}
		for i := range bc.n {
			name := fmt.Sprintf(bc.name, i)
			kids["tech"] = append(kids["tech"], entry{name, note.Fold(name), false})
		}
		twins := func(folder, key string) iter.Seq2[string, bool] {
			return func(yield func(string, bool) bool) {
				for _, k := range kids[folder] {
					if k.fold == key && !yield(k.name, k.dir) {
						return
					}
				}
			}
		}
		for _, withTree := range []bool{false, true} {
			p := hooks.Proposal{Writer: agent, Op: "write", Changes: []hooks.Change{
				{Kind: hooks.KindPut, Path: note.Path("tech/" + fmt.Sprintf(bc.name, bc.n+1)), New: []byte(good)},
			}}
			if withTree {
				p.Twins = twins
			}
			b.Run(fmt.Sprintf("notes=%d/%s/tree=%v", bc.n, bc.script, withTree), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := g.Check(context.Background(), p); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
