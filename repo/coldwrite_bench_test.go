package repo_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// BenchmarkColdWrite is what a one-shot `norn write` pays in-process: open the
// vault, write one 1 KiB note durably, close. full is repo.Open as every command
// did (HEAD's whole tree and git's whole index, cross-checked); lean is
// Options.Lean, which reads the trees on the note's path and git's index entries
// for it. lean should not grow with the vault.
func BenchmarkColdWrite(b *testing.B) {
	body := strings.Repeat("the quick brown fox jumps over the lazy dog ", 23)
	for _, n := range benchSizes() {
		dir := seedVault(b, n)
		ctx := context.Background()
		i := 0 // across runs (-count): each write makes a new note
		for _, mode := range []string{"full", "lean"} {
			b.Run(fmt.Sprintf("notes=%d/%s", n, mode), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					v, err := repo.Open(ctx, dir, repo.Options{Owner: repo.Author{Name: "o", Email: "o@x"}, Lean: mode == "lean"})
					if err != nil {
						b.Fatal(err)
					}
					p := note.Path(fmt.Sprintf("cold/%s-%05d.md", mode, i))
					tx := repo.Tx{Author: repo.Author{Name: "b", Email: "b@x"}, Op: repo.OpWrite,
						Changes: []repo.Change{{Kind: repo.Put, Path: p, Content: []byte(body + "\n")}}}
					if _, err := v.Apply(ctx, tx); err != nil {
						b.Fatal(err)
					}
					if err := v.Close(); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		}
	}
}
