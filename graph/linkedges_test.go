package graph_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
)

// TestEdgesAmong: the edges between a set of notes are those a neighbourhood
// holding exactly them shows, and, as seen by a caller from whom some notes are
// hidden, those of the vault without the hidden notes (index and scan graph).
func TestEdgesAmong(t *testing.T) {
	ctx := context.Background()
	docs := linkDocs(t, map[string]string{
		"a.md": "---\nedges:\n  - to: \"[[b]]\"\n    type: supports\n    why: The second note supports the first one here.\n---\n# A\n[[b]] [[b]] [[c]] [[a]] ![[pic.png]]\n",
		"b.md": "# B\n[[a]] [[d]]\n",
		"c.md": "# C\n[[a]]\n",
		"d.md": "# D\n[[c]]\n",
	})
	ix, _ := openIndex(t, graph.Options{})
	if err := ix.Rebuild(ctx, "c1", graph.DocRecords(seq(docs)), nil); err != nil {
		t.Fatal(err)
	}
	want := []graph.Edge{{From: "a.md", To: "b.md", Type: "link"}, {From: "a.md", To: "b.md", Type: "supports"}, {From: "b.md", To: "a.md", Type: "link"}}
	for _, src := range []interface {
		EdgesAmong([]note.Path, graph.Hidden) ([]graph.Edge, error)
	}{ix, graph.NewScanGraph("c1", docs)} {
		got, err := src.EdgesAmong([]note.Path{"a.md", "b.md", "nope.md", "pic.png", "a.md"}, nil)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%T: %+v %v, want %+v", src, got, err, want)
		}
	}
	for seed := range uint64(20) {
		notes, hidden := hidingVault(seed)
		docs := linkDocs(t, notes)
		var kept []graph.Doc
		var paths []note.Path
		for _, d := range docs {
			paths = append(paths, d.Path)
			if !hidden[d.Path] {
				kept = append(kept, d)
			}
		}
		h := graph.Hidden(func(p note.Path) bool { return hidden[p] })
		got, _ := graph.NewScanGraph("c1", docs).EdgesAmong(paths, h)
		without, _ := graph.NewScanGraph("c1", kept).EdgesAmong(paths, nil)
		if !reflect.DeepEqual(got, without) {
			t.Fatalf("seed %d: hiding %+v\nwithout %+v", seed, got, without)
		}
	}
}
