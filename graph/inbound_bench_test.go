package graph

import (
	"context"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

// BenchmarkSearch_Inbound runs the obsidian-hub query set against one index with
// the inbound field scored (weight 1, the default) and not (weight 0): each op
// runs one query under both, in turns (the first of the two alternates), so
// that both see the same load, and reports each one's p50 and p95 latency — the
// field's read cost at search time.
func BenchmarkSearch_Inbound(b *testing.B) {
	root := filepath.Join(corporaDir, "vault-obsidian-hub", "notes")
	needDir(b, root)
	docs := vaultDocs(b, root, nil)
	ix := buildIndex(b, docs, Options{})
	docs = nil
	runtime.GC()
	qs := readQueries(b, filepath.Join(benchDir, "queries", "obsidian-hub.queries.jsonl"))
	var opts [2]Options // by weight
	for w := range opts {
		opts[w].Weights = DefaultWeights()
		opts[w].Weights.Inbound.Weight = float64(w)
	}
	b.ReportAllocs()
	var lat [2][]time.Duration
	i := 0
	for b.Loop() {
		q := qs[i%len(qs)]
		for k := range 2 {
			w := (i + k) % 2
			if err := ix.Reconfigure(opts[w]); err != nil {
				b.Fatal(err)
			}
			t0 := time.Now()
			if _, err := ix.Search(context.Background(), q.Text, SearchOptions{Limit: 10, Literal: true}); err != nil {
				b.Fatal(err)
			}
			lat[w] = append(lat[w], time.Since(t0))
		}
		i++
	}
	for w, name := range []string{"w0", "w1"} {
		slices.Sort(lat[w])
		b.ReportMetric(float64(lat[w][len(lat[w])/2].Microseconds())/1e3, "p50-ms-"+name)
		b.ReportMetric(float64(lat[w][len(lat[w])*95/100].Microseconds())/1e3, "p95-ms-"+name)
	}
}
