package graph

import "github.com/norn-vault/norn/note"

// EdgesAmong returns the edges between the notes at paths, as a caller from whom
// hidden hides some notes sees them: every link of one of those notes that
// resolves to another of them (body links as type "link", typed edges as their
// type), each once, in the order of paths and then of the links. Paths the index
// does not hold, attachments and hidden notes have none.
func (ix *Index) EdgesAmong(paths []note.Path, hidden Hidden) ([]Edge, error) {
	return withGraph(ix, func(g *linkGraph, _ string) ([]Edge, error) { return g.edgesAmong(paths, hidden), nil })
}

// EdgesAmong is Index.EdgesAmong over the notes in memory.
func (s *ScanGraph) EdgesAmong(paths []note.Path, hidden Hidden) ([]Edge, error) {
	return s.g.edgesAmong(paths, hidden), nil
}

func (g *linkGraph) edgesAmong(paths []note.Path, hidden Hidden) []Edge {
	v := g.view(hidden)
	in := make(map[int32]bool, len(paths))
	ids := make([]int32, 0, len(paths))
	for _, p := range paths {
		if id, n, ok := g.node(p); ok && !n.attachment && !in[id] && !v.hides(id) {
			in[id] = true
			ids = append(ids, id)
		}
	}
	out := []Edge{}
	seen := map[Edge]bool{}
	for _, id := range ids {
		n := g.nodes[id]
		for i := range n.out {
			r := v.out(id, i)
			if r.to < 0 || r.to == id || !in[r.to] {
				continue
			}
			e := Edge{From: n.rec.names.path, To: g.nodes[r.to].rec.names.path, Type: edgeType(n, i)}
			if !seen[e] {
				seen[e] = true
				out = append(out, e)
			}
		}
	}
	return out
}
