package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/internal/testrerank"
	"github.com/norn-vault/norn/rerank"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/server/mcp"
)

// TestMCP_SearchRerank_Privacy: search's rerank argument over a randomized vault
// with many private notes, for the owner (who sees them) and an agent (who does
// not): no request to the endpoint holds any private path, title, heading or body
// line, private hits keep their places, and engine and rerank say what happened.
func TestMCP_SearchRerank_Privacy(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	tv := testrerank.NewVault(seed, 30)
	ep := testrerank.New(t, testrerank.Last)
	v := testrerank.Open(t, tv.Files, ep.URL(), nil)
	e := &testmcp.Env{T: t, V: v, S: mcp.NewMCPServer(v, mcp.MCPOptions{Version: "test"})}
	reranked, withPrivate := 0, 0
	for _, p := range []struct {
		name  string
		who   auth.Principal
		owner bool
	}{{"owner", testmcp.Owner, true}, {"agent", testmcp.Agent, false}} {
		c, ctx := e.Connect(&p.who, false)
		for _, q := range tv.Queries {
			var base, got mcp.SearchResult
			testmcp.MustCall(t, c, ctx, "search", map[string]any{"query": q, "limit": 30, "literal": true, "rerank": "off"}, &base)
			testmcp.MustCall(t, c, ctx, "search", map[string]any{"query": q, "limit": 30, "literal": true, "rerank": "force"}, &got)
			if base.Engine != "bm25" || len(got.Hits) != len(base.Hits) {
				t.Fatalf("%s %q: off engine %q, %d hits vs %d", p.name, q, base.Engine, len(got.Hits), len(base.Hits))
			}
			if got.Engine != "bm25+rerank:m1" || got.Rerank == nil {
				t.Fatalf("%s %q force: engine %q, rerank %v", p.name, q, got.Engine, got.Rerank)
			}
			reranked++
			for i, h := range base.Hits {
				if tv.Private[string(h.Path)] {
					if !p.owner {
						t.Fatalf("agent sees private %s", h.Path)
					}
					withPrivate++
					if got.Hits[i].Path != h.Path {
						t.Errorf("%q: private %s at %d moved", q, h.Path, i)
					}
				}
			}
		}
	}
	if reranked == 0 || withPrivate == 0 {
		t.Fatalf("%d reranked, %d private hits: the test proves nothing", reranked, withPrivate)
	}
	if leaks := testrerank.Leaks(ep.Bodies(), tv.Secrets); len(leaks) > 0 {
		t.Fatalf("private text sent (seed %d): %v", seed, leaks[:min(5, len(leaks))])
	}
}

// TestMCP_SearchRerank_Arg: rerank is an enum in search's input schema; a value
// outside it is invalid_input (fix_input) and asks nothing; an endpoint slower
// than the timeout leaves the BM25 order with engine saying so; without a
// reranker, force says no endpoint is configured.
func TestMCP_SearchRerank_Arg(t *testing.T) {
	files := map[string]string{}
	for i := range 6 {
		files["n/bloom-"+string(rune('a'+i))+".md"] = "# Bloom filter " + string(rune('a'+i)) + "\n\nBloom filter text.\n"
	}
	ep := testrerank.New(t, func(testrerank.Query) (int, string) { return -1, "" })
	v := testrerank.Open(t, files, ep.URL(), func(o *rerank.Options) { o.Timeout = 200 * time.Millisecond })
	e := &testmcp.Env{T: t, V: v, S: mcp.NewMCPServer(v, mcp.MCPOptions{Version: "test"})}
	c, ctx := e.Connect(&testmcp.Agent, false)

	tools, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var schema string
	for _, tl := range tools.Tools {
		if tl.Name == "search" {
			b, _ := json.Marshal(tl.InputSchema.Properties["rerank"])
			schema = string(b)
		}
	}
	if !strings.Contains(schema, `"enum":["auto","off","force"]`) {
		t.Fatalf("rerank's schema: %s", schema)
	}
	testmcp.WantError(t, c, ctx, "search", map[string]any{"query": "bloom", "rerank": "always"}, mcp.CodeInvalidInput, mcp.ClassFixInput)
	if n := len(ep.Bodies()); n != 0 {
		t.Fatalf("%d calls for a bad argument", n)
	}
	var base, got mcp.SearchResult
	testmcp.MustCall(t, c, ctx, "search", map[string]any{"query": "bloom filter", "rerank": "off"}, &base)
	testmcp.MustCall(t, c, ctx, "search", map[string]any{"query": "bloom filter", "rerank": "force"}, &got)
	if got.Engine != "bm25 (rerank failed: timeout)" || len(got.Hits) != len(base.Hits) || got.Hits[0].Path != base.Hits[0].Path {
		t.Fatalf("timeout: engine %q, hits %v vs %v", got.Engine, got.Hits, base.Hits)
	}

	none := testrerank.Open(t, files, "", nil)
	en := &testmcp.Env{T: t, V: none, S: mcp.NewMCPServer(none, mcp.MCPOptions{Version: "test"})}
	cn, ctxn := en.Connect(&testmcp.Agent, false)
	testmcp.MustCall(t, cn, ctxn, "search", map[string]any{"query": "bloom filter", "rerank": "force"}, &got)
	if got.Engine != rerank.EngineNoEndpoint {
		t.Fatalf("no endpoint, force: engine %q", got.Engine)
	}
	testmcp.MustCall(t, cn, ctxn, "search", map[string]any{"query": "bloom filter"}, &got)
	if got.Engine != "bm25" {
		t.Fatalf("no endpoint, auto: engine %q", got.Engine)
	}
}
