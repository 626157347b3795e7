package repo_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/norn-vault/norn/repo"
)

// BenchmarkChangesIn is the scan for hand edits a maintenance round makes, with one
// note edited by hand: the whole working tree (full: without a watcher, at the
// start, after lost events) against the one path a watcher reported (watched).
// watched should not grow with the vault.
func BenchmarkChangesIn(b *testing.B) {
	for _, n := range benchSizes() {
		dir := seedVault(b, n)
		ctx := context.Background()
		v, err := repo.Open(ctx, dir, repo.Options{Owner: repo.Author{Name: "o", Email: "o@x"}})
		if err != nil {
			b.Fatal(err)
		}
		p := fmt.Sprintf("f%03d/n%05d.md", n/2/100, n/2)
		if err := os.WriteFile(filepath.Join(dir, p), []byte("edited by hand\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		for _, sc := range []struct {
			name  string
			scope repo.Scope
		}{{"full", repo.Scope{Full: true}}, {"watched", repo.Scope{Paths: []string{p}}}} {
			b.Run(fmt.Sprintf("notes=%d/%s", n, sc.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					cs, err := v.ChangesIn(ctx, sc.scope)
					if err != nil || len(cs) != 1 {
						b.Fatal(cs, err)
					}
				}
			})
		}
		v.Close()
	}
}
