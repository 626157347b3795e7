package mcp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/server/mcp"
)

// TestMCP_SearchQueryCap: a search query over graph.MaxQueryBytes is invalid_input
// (fix_input) naming the limit and the size given, parsed or literal; one at the
// limit runs.
func TestMCP_SearchQueryCap(t *testing.T) {
	_, e := testmcp.NewEnv(t, map[string]string{"a.md": "# Alpha\nalpha words\n"})
	owner := &auth.Principal{Name: "o", Owner: true, Scopes: []auth.Scope{auth.ScopeRead, auth.ScopePrivate}}
	c, ctx := e.Connect(owner, false)
	long := strings.Repeat("alpha ", 3<<20/6)
	for _, literal := range []bool{false, true} {
		te := testmcp.WantError(t, c, ctx, "search", map[string]any{"query": long, "literal": literal}, mcp.CodeInvalidInput, mcp.ClassFixInput)
		if !strings.Contains(te.Message, fmt.Sprintf("%d bytes, over the limit of %d", len(long), graph.MaxQueryBytes)) || len(te.Message) > 500 {
			t.Fatalf("literal=%v: message %q", literal, te.Message)
		}
	}
	atLimit := strings.Repeat("alphabetical ", graph.MaxQueryBytes/13+1)[:graph.MaxQueryBytes]
	if te := testmcp.CallTool(t, c, ctx, "search", map[string]any{"query": atLimit}, nil); te != nil {
		t.Fatalf("a query at the limit: %v", te)
	}
}
