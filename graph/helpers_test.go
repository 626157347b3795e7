package graph_test

import (
	"context"
	"iter"
	"slices"
	"testing"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
)

// mkDocs parses notes given as path → Markdown, in path order.
func mkDocs(t testing.TB, notes map[string]string) []graph.Doc {
	t.Helper()
	paths := make([]string, 0, len(notes))
	for p := range notes {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	docs := make([]graph.Doc, 0, len(paths))
	for _, p := range paths {
		n, err := note.Parse(note.Path(p), []byte(notes[p]))
		if err != nil {
			t.Fatalf("parse %s: %v", p, err)
		}
		docs = append(docs, graph.Doc{Path: note.Path(p), Revision: "rev-" + p, Note: n})
	}
	return docs
}

func seq(docs []graph.Doc) iter.Seq2[graph.Doc, error] {
	return func(yield func(graph.Doc, error) bool) {
		for _, d := range docs {
			if !yield(d, nil) {
				return
			}
		}
	}
}

// openIndex opens a fresh index in a temp dir, closed at cleanup.
func openIndex(t testing.TB, opts graph.Options) (*graph.Index, string) {
	t.Helper()
	dir := t.TempDir()
	ix, err := graph.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix, dir
}

func search(t testing.TB, ix *graph.Index, q string, o graph.SearchOptions) *graph.Results {
	t.Helper()
	res, err := ix.Search(context.Background(), q, o)
	if err != nil {
		t.Fatalf("search %q: %v", q, err)
	}
	return res
}

func paths(res *graph.Results) []string {
	out := []string{}
	for _, h := range res.Hits {
		out = append(out, string(h.Path))
	}
	return out
}
