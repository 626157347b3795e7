package repo_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// benchSizes are the vault sizes of the scale benchmarks: 1,000 and 10,000 notes,
// and 100,000 when NORN_BENCH_100K is set (seeding it takes minutes).
func benchSizes() []int {
	if os.Getenv("NORN_BENCH_100K") != "" {
		return []int{1000, 10000, 100000}
	}
	return []int{1000, 10000}
}

// BenchmarkOpen is what a one-shot command pays in-process to read one note at
// HEAD: open the vault, read, close (open: what norn read did, and what commands
// that write still do: Open loads HEAD's whole tree and git's whole index and
// cross-checks them), against repo.ReadHead (readhead: what norn read does now,
// the trees on the note's path). readhead should not grow with the vault.
func BenchmarkOpen(b *testing.B) {
	for _, n := range benchSizes() {
		dir := seedVault(b, n)
		p := note.Path(fmt.Sprintf("f%03d/n%05d.md", n/2/100, n/2))
		ctx := context.Background()
		b.Run(fmt.Sprintf("notes=%d/open", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				v, err := repo.Open(ctx, dir, repo.Options{Owner: repo.Author{Name: "o", Email: "o@x"}})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := v.Read(ctx, p, ""); err != nil {
					b.Fatal(err)
				}
				v.Close()
			}
		})
		b.Run(fmt.Sprintf("notes=%d/readhead", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := repo.ReadHead(ctx, dir, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
