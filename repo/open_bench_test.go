package repo_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// BenchmarkOpen is what `norn read` pays in-process before printing a note: open
// the vault, read one note at HEAD, close. The anchor is the same benchmark at
// 1,000 notes: reading one path should not grow with the vault (it does today:
// Open loads HEAD's whole tree and git's whole index and cross-checks them; the
// cross-check, recover, is most of it).
func BenchmarkOpen(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("notes=%d", n), func(b *testing.B) {
			dir := seedVault(b, n)
			p := fmt.Sprintf("f%03d/n%05d.md", n/200, n/2)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				v, err := repo.Open(ctx, dir, repo.Options{Owner: repo.Author{Name: "o", Email: "o@x"}})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := v.Read(ctx, note.Path(p), ""); err != nil {
					b.Fatal(err)
				}
				v.Close()
			}
		})
	}
}
