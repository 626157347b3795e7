package graph_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
)

// TestNeighborhood_HidingCost: a hiding neighbourhood asks Hidden about each note
// a bounded number of times, however busy the notes it walks: around a hub
// linked from 200 notes of 20 links each, a depth-2 walk asked it over 100,000
// times (tens of seconds for a reader on obsidian-hub) before the view learnt
// the hidden notes once, as whole-graph queries do.
func TestNeighborhood_HidingCost(t *testing.T) {
	const sources, links = 200, 20
	notes := map[string]string{"hub.md": "# Hub\n"}
	for i := range sources {
		var b strings.Builder
		fmt.Fprintf(&b, "# S%d\nSee [[hub]].\n", i)
		for j := range links - 1 {
			fmt.Fprintf(&b, "And [[s%d]].\n", (i+j+1)%sources)
		}
		notes[fmt.Sprintf("s/s%d.md", i)] = b.String()
	}
	notes["p/secret.md"] = "# Secret\n[[hub]]\n"
	docs := linkDocs(t, notes)
	var calls atomic.Int64
	h := graph.Hidden(func(p note.Path) bool { calls.Add(1); return strings.HasPrefix(string(p), "p/") })
	for _, src := range []interface {
		Neighborhood(note.Path, graph.NeighborhoodOptions) (*graph.Neighborhood, error)
	}{graph.NewScanGraph("c1", docs)} {
		calls.Store(0)
		nb, err := src.Neighborhood("hub.md", graph.NeighborhoodOptions{Depth: 2, MaxNodes: 1000, Hidden: h})
		if err != nil {
			t.Fatal(err)
		}
		if len(nb.Nodes) != sources+1 {
			t.Fatalf("%d nodes, want %d", len(nb.Nodes), sources+1)
		}
		for _, n := range nb.Nodes {
			if strings.HasPrefix(string(n.ID), "p/") {
				t.Fatalf("hidden node %s", n.ID)
			}
		}
		if n := calls.Load(); n > 4*int64(len(docs)) {
			t.Fatalf("Hidden asked %d times for %d notes", n, len(docs))
		}
	}
}
