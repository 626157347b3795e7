package graph

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
)

// BenchmarkSearch_Inbound runs the obsidian-hub query set against one index with
// the inbound field scored (weight 1, the default) and not (weight 0), the two
// interleaved by sub-benchmark round so that both see the same load: the
// field's read cost at search time, as p50 and p95 latency.
func BenchmarkSearch_Inbound(b *testing.B) {
	root := filepath.Join(corporaDir, "vault-obsidian-hub", "notes")
	needDir(b, root)
	docs := vaultDocs(b, root, nil)
	ix := buildIndex(b, docs, Options{})
	docs = nil
	runtime.GC()
	qs := readQueries(b, filepath.Join(benchDir, "queries", "obsidian-hub.queries.jsonl"))
	for round := range 2 {
		for _, weight := range []float64{1, 0} {
			w := DefaultWeights()
			w.Inbound.Weight = weight
			if err := ix.Reconfigure(Options{Weights: w}); err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("round=%d/inbound=%g", round, weight), func(b *testing.B) {
				benchQueries(b, ix, qs, SearchOptions{Limit: 10, Literal: true})
			})
		}
	}
}
