package mcp_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/server/mcp"
)

func nodeIDs(ns []graph.Node) []string {
	var out []string
	for _, n := range ns {
		out = append(out, string(n.ID))
	}
	return out
}

func TestMCP_GraphNeighborhood(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	before := commitCount(t, v)
	c, ctx := e.Connect(&testmcp.Agent, false)
	var nb graph.Neighborhood
	testmcp.MustCall(t, c, ctx, "graph_neighborhood", map[string]any{"path": "tech/bloom.md"}, &nb)
	// bloom ← README, cms; bloom → cms. The private note and diary also link to
	// bloom, but this caller may not see them: they are neither nodes nor counted.
	if nb.Center != "tech/bloom.md" || !slices.Equal(nodeIDs(nb.Nodes), []string{"tech/bloom.md", "README.md", "tech/cms.md"}) || nb.Truncated {
		t.Fatalf("neighborhood: %+v", nb)
	}
	if nb.Nodes[0].Backlinks != 2 || nb.Nodes[0].Depth != 0 || nb.Nodes[1].Depth != 1 || nb.Nodes[0].Title != "Bloom filters" {
		t.Fatalf("centre node: %+v", nb.Nodes)
	}
	want := map[graph.Edge]bool{{From: "README.md", To: "tech/bloom.md", Type: "link"}: true,
		{From: "tech/bloom.md", To: "tech/cms.md", Type: "link"}: true, {From: "tech/cms.md", To: "tech/bloom.md", Type: "link"}: true}
	if len(nb.Edges) != len(want) {
		t.Fatalf("edges: %+v", nb.Edges)
	}
	for _, ed := range nb.Edges {
		if !want[ed] {
			t.Fatalf("unexpected edge %+v in %+v", ed, nb.Edges)
		}
	}
	s := mustJSON(t, nb)
	for _, secret := range []string{"secret", "Secret", "diary"} {
		if strings.Contains(s, secret) {
			t.Fatalf("neighborhood leaks %q: %s", secret, s)
		}
	}

	var capped graph.Neighborhood
	testmcp.MustCall(t, c, ctx, "graph_neighborhood", map[string]any{"path": "tech/bloom.md", "depth": 2, "max_nodes": 2}, &capped)
	if len(capped.Nodes) != 2 || !capped.Truncated {
		t.Fatalf("max_nodes 2: %+v", capped)
	}
	var typed graph.Neighborhood
	testmcp.MustCall(t, c, ctx, "graph_neighborhood", map[string]any{"path": "tech/bloom.md", "types": []string{"supports"}}, &typed)
	if len(typed.Nodes) != 1 || len(typed.Edges) != 0 {
		t.Fatalf("types=[supports] follows body links: %+v", typed)
	}

	// The owner (private scope) sees the private notes around it.
	oc, octx := e.Connect(&testmcp.Trusted, false)
	var all graph.Neighborhood
	testmcp.MustCall(t, oc, octx, "graph_neighborhood", map[string]any{"path": "tech/bloom.md"}, &all)
	if got := nodeIDs(all.Nodes); !slices.Contains(got, "tech/secret.md") || !slices.Contains(got, "personal-notes/diary.md") || all.Nodes[0].Backlinks != 4 {
		t.Fatalf("trusted neighborhood: %+v", all)
	}

	// Bad input, and a hidden centre that answers like a missing one.
	for _, args := range []map[string]any{
		{"path": ""}, {"path": "../x.md"}, {"path": "tech/bloom.md", "depth": 6}, {"path": "tech/bloom.md", "depth": -1},
		{"path": "tech/bloom.md", "max_nodes": 1001}, {"path": "tech/bloom.md", "types": []string{""}}, {"path": "tech/bloom.md", "deep": 2},
	} {
		testmcp.WantError(t, c, ctx, "graph_neighborhood", args, mcp.CodeInvalidInput, mcp.ClassFixInput)
	}
	h := testmcp.WantError(t, c, ctx, "graph_neighborhood", map[string]any{"path": "tech/secret.md"}, mcp.CodeNotFound, mcp.ClassFixInput)
	m := testmcp.WantError(t, c, ctx, "graph_neighborhood", map[string]any{"path": "tech/nopes.md"}, mcp.CodeNotFound, mcp.ClassFixInput)
	if strings.ReplaceAll(h.Message, "secret.md", "nopes.md") != m.Message {
		t.Fatalf("a hidden centre answers %q, a missing one %q", h.Message, m.Message)
	}
	if commitCount(t, v) != before {
		t.Fatal("a read tool committed")
	}
}

func TestMCP_GraphHubs(t *testing.T) {
	_, e := testmcp.NewEnv(t, testmcp.Fixture)
	c, ctx := e.Connect(&testmcp.Agent, false)
	var hubs graph.NodeList
	testmcp.MustCall(t, c, ctx, "graph_hubs", nil, &hubs)
	// Visible to this caller: bloom (README, cms) and cms (bloom); the private notes
	// neither appear nor count.
	if !slices.Equal(nodeIDs(hubs.Nodes), []string{"tech/bloom.md", "tech/cms.md"}) || hubs.Total != 2 || hubs.Nodes[0].Backlinks != 2 || hubs.NextOffset != 0 {
		t.Fatalf("hubs: %+v", hubs)
	}
	var page graph.NodeList
	testmcp.MustCall(t, c, ctx, "graph_hubs", map[string]any{"limit": 1}, &page)
	if len(page.Nodes) != 1 || page.NextOffset != 1 || page.Total != 2 {
		t.Fatalf("first page: %+v", page)
	}
	var page2 graph.NodeList
	testmcp.MustCall(t, c, ctx, "graph_hubs", map[string]any{"limit": 1, "offset": page.NextOffset}, &page2)
	if len(page2.Nodes) != 1 || page2.Nodes[0].ID != note.Path("tech/cms.md") || page2.NextOffset != 0 {
		t.Fatalf("second page: %+v", page2)
	}
	tc, tctx := e.Connect(&testmcp.Trusted, false)
	var all graph.NodeList
	testmcp.MustCall(t, tc, tctx, "graph_hubs", nil, &all)
	if all.Total != 3 || all.Nodes[0].ID != "tech/bloom.md" || all.Nodes[0].Backlinks != 4 {
		t.Fatalf("trusted hubs: %+v", all)
	}
	for _, args := range []map[string]any{{"limit": 201}, {"limit": -1}, {"offset": -1}, {"top": 3}} {
		testmcp.WantError(t, c, ctx, "graph_hubs", args, mcp.CodeInvalidInput, mcp.ClassFixInput)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
