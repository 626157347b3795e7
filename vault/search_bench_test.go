package vault_test

import (
	"fmt"
	"testing"

	"github.com/norn-vault/norn/internal/testrerank"
	"github.com/norn-vault/norn/rerank"
	"github.com/norn-vault/norn/vault"
)

// BenchmarkVault_Search measures what the reranker's wiring costs a search whose
// gate stays closed (a query with a clear top): without a reranker, with mode
// off, and with mode auto and a reranker that is never called.
func BenchmarkVault_Search(b *testing.B) {
	files := map[string]string{}
	const n = 2000
	for i := range n {
		files[fmt.Sprintf("n/note-%d.md", i)] = fmt.Sprintf("# Note w%d\n\nBloom filter and hashing, note w%d.\n\n## More\n\nSketch cache index %d.\n", i, i, i)
	}
	ep := testrerank.New(b, testrerank.Last)
	none := testrerank.Open(b, files, "", nil)
	with := testrerank.Open(b, files, ep.URL(), nil)
	for _, c := range []struct {
		name string
		v    *vault.Vault
		mode rerank.Mode
	}{{"reranker=none", none, rerank.Auto}, {"reranker=set/mode=off", with, rerank.Off}, {"reranker=set/mode=auto", with, rerank.Auto}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				r, err := c.v.Search(b.Context(), vault.SearchRequest{Query: fmt.Sprintf("w%d bloom", i%n), Limit: 10, Literal: true, Rerank: c.mode})
				if err != nil || r.Engine != vault.EngineBM25 {
					b.Fatalf("engine %q, %v", r.Engine, err)
				}
				i++
			}
		})
	}
	if len(ep.Bodies()) != 0 {
		b.Fatalf("%d calls with the gate closed", len(ep.Bodies()))
	}
}
