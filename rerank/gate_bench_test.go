package rerank_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/norn-vault/norn/rerank"
)

// BenchmarkGate is the cost of a query whose gate stays closed: Rerank in Auto
// mode, no network (the budget is under 50 µs).
func BenchmarkGate(b *testing.B) {
	for _, n := range []int{20, 50} {
		b.Run(fmt.Sprintf("candidates=%d", n), func(b *testing.B) {
			r, err := rerank.New(rerank.Options{Endpoint: "http://127.0.0.1:1/v1", Gate: rerank.Gate{Threshold: 0.9}})
			if err != nil {
				b.Fatal(err)
			}
			cs := make([]rerank.Candidate, n)
			for i := range cs {
				cs[i] = rerank.Candidate{ID: fmt.Sprint(i), Score: 100 / float64(i+1), Private: i%3 == 1}
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if res := r.Rerank(ctx, rerank.Auto, "q", cs); res.Reranked {
					b.Fatal("gate opened")
				}
			}
		})
	}
}
