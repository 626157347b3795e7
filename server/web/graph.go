package web

import (
	"context"
	"errors"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/vault"
)

// nodeOut is a note of a graph answer.
type nodeOut struct {
	ID     note.Path `json:"id"`
	Title  string    `json:"title"`
	Degree int       `json:"degree"`
	Center bool      `json:"center"`
	Folder string    `json:"folder"`
	Type   string    `json:"type,omitempty"`
}

// edgeLine is an edge of a graph answer.
type edgeLine struct {
	Source note.Path `json:"source"`
	Target note.Path `json:"target"`
	Type   string    `json:"type"`
}

// graphOut is GET /web/api/graph's and /web/api/hubs' answer.
type graphOut struct {
	Nodes     []nodeOut  `json:"nodes"`
	Edges     []edgeLine `json:"edges"`
	Truncated bool       `json:"truncated"`
}

func nodeOf(n graph.Node, center note.Path) nodeOut {
	return nodeOut{ID: n.ID, Title: n.Title, Degree: n.Backlinks + n.Links, Center: n.ID == center, Folder: n.Folder, Type: n.Type}
}

func (rq *request) graph(ctx context.Context) (any, error) {
	p := rq.ps.path("path", true)
	depth := rq.ps.num("depth", 1, 1, 5)
	maxNodes := rq.ps.num("max", 50, 1, 1000)
	types := rq.ps.list("types")
	if rq.ps.err != nil {
		return nil, rq.ps.err
	}
	hidden := rq.vw.Hidden(ctx)
	if err := rq.h.v.CheckFollowTypes(ctx, types, hidden); err != nil {
		if errors.Is(err, config.ErrInvalid) {
			return nil, badInput("types: %v", err)
		}
		return nil, err
	}
	if !rq.vw.Visible(ctx, p) {
		return nil, vault.MissingAt(p, "")
	}
	src, err := rq.h.v.Graph(ctx)
	if err != nil {
		return nil, err
	}
	nb, err := src.Neighborhood(p, graph.NeighborhoodOptions{Depth: depth, MaxNodes: maxNodes, Types: types, Hidden: hidden})
	switch {
	case errors.Is(err, graph.ErrUnknownNote):
		return nil, vault.MissingAt(p, "") // a hidden note answers as a missing one
	case err != nil:
		return nil, vault.GraphErr("graph", err)
	}
	out := &graphOut{Nodes: []nodeOut{}, Edges: []edgeLine{}, Truncated: nb.Truncated}
	for _, n := range nb.Nodes {
		out.Nodes = append(out.Nodes, nodeOf(n, p))
	}
	for _, e := range nb.Edges {
		out.Edges = append(out.Edges, edgeLine{Source: e.From, Target: e.To, Type: e.Type})
	}
	return out, nil
}

func (rq *request) hubs(ctx context.Context) (any, error) {
	maxNodes := rq.ps.num("max", 50, 1, 200)
	if rq.ps.err != nil {
		return nil, rq.ps.err
	}
	hidden := rq.vw.Hidden(ctx)
	src, err := rq.h.v.Graph(ctx)
	if err != nil {
		return nil, err
	}
	l, err := src.HubsHiding(maxNodes, 0, hidden)
	if err != nil {
		return nil, vault.GraphErr("hubs", err)
	}
	out := &graphOut{Nodes: []nodeOut{}, Edges: []edgeLine{}, Truncated: l.Total > len(l.Nodes)}
	ids := make([]note.Path, 0, len(l.Nodes))
	for _, n := range l.Nodes {
		out.Nodes = append(out.Nodes, nodeOf(n, ""))
		ids = append(ids, n.ID)
	}
	edges, err := src.EdgesAmong(ids, hidden)
	if err != nil {
		return nil, vault.GraphErr("hubs", err)
	}
	for _, e := range edges {
		out.Edges = append(out.Edges, edgeLine{Source: e.From, Target: e.To, Type: e.Type})
	}
	return out, nil
}
