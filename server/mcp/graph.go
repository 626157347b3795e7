package mcp

import (
	"context"
	"errors"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/vault"
)

func (t *mcpTools) addGraphTools() {
	read := func(name, title, desc string) toolDef {
		return toolDef{name: name, title: title, desc: desc, scope: auth.ScopeRead, readOnly: true, idempotent: true}
	}
	addTool(t, read("graph_neighborhood", "Graph neighbourhood",
		"The notes around one note, walking resolved links both ways (body links and typed edges) up to depth hops "+
			"(default 1, at most 5). Use it to see what a note is connected to before reading further. Returns nodes "+
			"(id = path, title, folder, type, backlink and outgoing-link counts, depth from the centre) and the edges "+
			"between them (from, to, type: \"link\" for body links, else the typed edge's type). types keeps only those "+
			"edge types. Cut at max_nodes (default 50, at most 1000) with truncated=true."), t.graphNeighborhood)
	addTool(t, read("graph_hubs", "Graph hubs",
		"The most linked-to notes of the vault (by distinct linking notes), most first: the vault's central notes, "+
			"good entry points. Returns nodes (id = path, title, folder, type, backlinks, links), the total, and "+
			"next_offset for the next page (limit default 20, at most 200)."), t.graphHubs)
}

// NeighborhoodArgs are graph_neighborhood's arguments.
type NeighborhoodArgs struct {
	Path     string   `json:"path" jsonschema:"the centre note's path"`
	Depth    int      `json:"depth,omitempty" jsonschema:"hops to walk, 1..5 (default 1)"`
	MaxNodes int      `json:"max_nodes,omitempty" jsonschema:"most nodes returned, 1..1000 (default 50)"`
	Types    []string `json:"types,omitempty" jsonschema:"follow only these edge types (link for body links, or typed-edge types such as supports); default all"`
}

// HubsArgs are graph_hubs' arguments.
type HubsArgs struct {
	Limit  int `json:"limit,omitempty" jsonschema:"most notes returned, 1..200 (default 20)"`
	Offset int `json:"offset,omitempty" jsonschema:"skip this many: the next_offset of the previous page"`
}

func (t *mcpTools) graphNeighborhood(ctx context.Context, c *caller, in NeighborhoodArgs) (*graph.Neighborhood, error) {
	p, err := notePathArg("path", in.Path)
	if err != nil {
		return nil, err
	}
	depth, err := bound("depth", in.Depth, 1, 5)
	if err != nil {
		return nil, err
	}
	maxNodes, err := bound("max_nodes", in.MaxNodes, 50, 1000)
	if err != nil {
		return nil, err
	}
	if err := t.v.CheckFollowTypes(ctx, in.Types, c.Hidden(ctx)); err != nil {
		if errors.Is(err, config.ErrInvalid) {
			return nil, errInput("types: %v", err)
		}
		return nil, err
	}
	if !c.Visible(ctx, p) {
		return nil, errInvisible(p)
	}
	src, err := t.v.Graph(ctx) // the index, or the notes at HEAD read when it is unavailable
	if err != nil {
		return nil, err
	}
	nb, err := src.Neighborhood(p, graph.NeighborhoodOptions{Depth: depth, MaxNodes: maxNodes, Types: in.Types, Hidden: c.Hidden(ctx)})
	switch {
	case errors.Is(err, graph.ErrUnknownNote):
		return nil, errInvisible(p) // a hidden note answers like a missing one
	case err != nil:
		return nil, vault.GraphErr("graph_neighborhood", err)
	}
	return nb, nil
}

func (t *mcpTools) graphHubs(ctx context.Context, c *caller, in HubsArgs) (*graph.NodeList, error) {
	limit, err := bound("limit", in.Limit, 20, 200)
	if err != nil {
		return nil, err
	}
	if in.Offset < 0 {
		return nil, errInput("offset must be 0 or more, not %d", in.Offset)
	}
	src, err := t.v.Graph(ctx)
	if err != nil {
		return nil, err
	}
	l, err := src.HubsHiding(limit, in.Offset, c.Hidden(ctx))
	if err != nil {
		return nil, vault.GraphErr("graph_hubs", err)
	}
	return l, nil
}
