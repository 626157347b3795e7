package graph

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

// BenchmarkSearch runs the known-item queries of obsidian-hub and cpp-docs (plain
// words, limit 10, snippets included) against an index of the whole corpus; one
// op is one query, cycling through the set. Besides ns/op it reports the p50 and
// p95 query latency, to compare with fts5_baseline.py's in the same session
// (docs/search-quality.md). Every tenth note is private: the owner's view (the
// plain name) ranks over every note as before, view=public hides them
// (SearchOptions.HidePrivate: public statistics and norms, their postings skipped).
// snippets=off is the owner's view without snippets (SearchOptions.NoSnippets),
// as Bleve's anchor answers: ids only.
func BenchmarkSearch(b *testing.B) {
	for _, set := range []struct{ name, corpus string }{
		{"obsidian-hub", "vault-obsidian-hub"},
		{"cpp-docs", "md-cpp-docs"},
	} {
		root := filepath.Join(corporaDir, set.corpus, "notes")
		needDir(b, root)
		docs := vaultDocs(b, root, nil)
		for i := range docs {
			docs[i].Private = i%10 == 0
		}
		n := len(docs)
		ix := buildIndex(b, docs, Options{})
		docs = nil
		runtime.GC()
		qs := readQueries(b, filepath.Join(benchDir, "queries", set.name+".queries.jsonl"))
		for _, view := range []struct {
			name       string
			hide, bare bool
		}{{"", false, false}, {"/view=public", true, false}, {"/snippets=off", false, true}} {
			b.Run(fmt.Sprintf("set=%s/notes=%d%s", set.name, n, view.name), func(b *testing.B) {
				benchQueries(b, ix, qs, SearchOptions{Limit: 10, Literal: true, HidePrivate: view.hide, NoSnippets: view.bare})
			})
		}
	}
}

// benchQueries runs one query of qs per op, cycling, and reports the p50 and p95
// latency.
func benchQueries(b *testing.B, ix *Index, qs []irQuery, o SearchOptions) {
	b.ReportAllocs()
	var lat []time.Duration
	i := 0
	for b.Loop() {
		q := qs[i%len(qs)]
		i++
		t0 := time.Now()
		if _, err := ix.Search(context.Background(), q.Text, o); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1e3, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1e3, "p95-ms")
}
