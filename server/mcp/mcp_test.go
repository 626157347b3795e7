package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server/mcp"
	"github.com/norn-vault/norn/vault"
)

// assertCommitted checks with git that HEAD is a commit by author with op, and the
// working tree is clean.
func assertCommitted(t *testing.T, v *vault.Vault, author, email string, op repo.Op) {
	t.Helper()
	dir := v.Dir()
	if got := testmcp.Git(t, dir, "log", "-1", "--format=%an <%ae>"); got != author+" <"+email+">" {
		t.Fatalf("git log author: %q, want %s <%s>", got, author, email)
	}
	if body := testmcp.Git(t, dir, "log", "-1", "--format=%B"); !strings.Contains(body, "Norn-Op: "+string(op)) {
		t.Fatalf("commit message lacks Norn-Op: %s:\n%s", op, body)
	}
	if st := testmcp.Git(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("git status not clean:\n%s", st)
	}
}

// commitCount is the number of commits on HEAD.
func commitCount(t *testing.T, v *vault.Vault) string {
	t.Helper()
	return testmcp.Git(t, v.Dir(), "rev-list", "--count", "HEAD")
}

var (
	mcpReadTools  = []string{"diff", "get_context", "graph_hubs", "graph_neighborhood", "history", "links", "list_archived", "list_notes", "read_note", "search", "stats", "sync_status", "vault_map", "wait_for_changes", "synthesis_status", "claim_value", "claim_history"}
	mcpWriteTools = []string{"archive_note", "capture", "edit_note", "file_note", "link_notes", "move_note", "restore_note", "unlink_notes", "write_note", "register_synthesis", "assert_claim", "retract_claim"}
)

func TestMCP_ToolsListSchemasAndAnnotations(t *testing.T) {
	_, e := testmcp.NewEnv(t, testmcp.Fixture)
	for _, legacy := range []bool{true, false} {
		c, ctx := e.Connect(&testmcp.Agent, legacy)
		res, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
			a := tool.Annotations
			if a.ReadOnlyHint == nil || a.DestructiveHint == nil || a.IdempotentHint == nil || a.OpenWorldHint == nil {
				t.Fatalf("%s: an annotation is unset: %+v", tool.Name, a)
			}
			if *a.OpenWorldHint {
				t.Errorf("%s: openWorldHint true; a tool touches only the vault", tool.Name)
			}
			read := slices.Contains(mcpReadTools, tool.Name)
			if *a.ReadOnlyHint != read || read && *a.DestructiveHint {
				t.Errorf("%s: readOnly=%v destructive=%v", tool.Name, *a.ReadOnlyHint, *a.DestructiveHint)
			}
			if len(tool.Description) < 80 {
				t.Errorf("%s: description too short to say when to use it: %q", tool.Name, tool.Description)
			}
			if tool.OutputSchema.Type != "object" || len(tool.OutputSchema.Properties) == 0 {
				t.Errorf("%s: no output schema: %+v", tool.Name, tool.OutputSchema)
			}
			if tool.InputSchema.Type != "object" || len(tool.InputSchema.Properties) == 0 {
				t.Errorf("%s: no input schema: %+v", tool.Name, tool.InputSchema)
			}
		}
		want := slices.Concat(mcpReadTools, mcpWriteTools)
		slices.Sort(want)
		slices.Sort(names)
		if !slices.Equal(names, want) {
			t.Fatalf("tools: %v\nwant %v", names, want)
		}
		for _, tool := range res.Tools {
			switch tool.Name {
			case "capture":
				if *tool.Annotations.IdempotentHint || *tool.Annotations.DestructiveHint {
					t.Errorf("capture appends: not idempotent, not destructive")
				}
			case "read_note":
				if !slices.Contains(tool.InputSchema.Required, "path") {
					t.Errorf("read_note: path not required: %v", tool.InputSchema.Required)
				}
			case "edit_note":
				op, _ := tool.InputSchema.Properties["op"].(map[string]any)
				if fmt.Sprint(op["enum"]) != "[append prepend replace_section find_replace]" {
					t.Errorf("edit_note op enum: %v", op)
				}
			}
		}
	}
}

func TestMCP_CallerMustHoldScope(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	before := commitCount(t, v)
	anon, ctx := e.Connect(nil, true)
	te := testmcp.WantError(t, anon, ctx, "search", map[string]any{"query": "bloom"}, mcp.CodeForbidden, mcp.ClassFatal)
	if !strings.Contains(te.Message, "token") {
		t.Errorf("forbidden message does not say how to recover: %s", te.Message)
	}
	testmcp.WantError(t, anon, ctx, "write_note", map[string]any{"path": "x.md", "content": "# X\n"}, mcp.CodeForbidden, mcp.ClassFatal)
	reader, rctx := e.Connect(&testmcp.Reader, true)
	testmcp.MustCall(t, reader, rctx, "search", map[string]any{"query": "bloom"}, nil)
	for _, name := range mcpWriteTools {
		te := testmcp.WantError(t, reader, rctx, name, map[string]any{"path": "x.md", "content": "# X\n", "text": "t"}, mcp.CodeForbidden, mcp.ClassFatal)
		if !strings.Contains(te.Message, "write scope") {
			t.Errorf("%s: %s", name, te.Message)
		}
	}
	if commitCount(t, v) != before || testmcp.Git(t, v.Dir(), "status", "--porcelain") != "" {
		t.Fatal("a refused call changed the vault")
	}
}

func TestMCP_BadArgumentsAreInvalidInput(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	before := commitCount(t, v)
	c, ctx := e.Connect(&testmcp.Agent, false)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"vault_map", map[string]any{"bogus": 1}},
		{"vault_map", map[string]any{"recent": 51}},
		{"search", map[string]any{"query": ""}},
		{"search", map[string]any{"query": "x", "limit": 51}},
		{"search", map[string]any{"query": "x", "offset": -1}},
		{"search", map[string]any{"query": "\"unterminated"}},
		{"search", map[string]any{"query": 7}},
		{"read_note", map[string]any{}},
		{"read_note", map[string]any{"path": "tech/bloom.md", "max_bytes": 2 << 20}},
		{"read_note", map[string]any{"path": "dup"}},
		{"list_notes", map[string]any{"cursor": "!!"}},
		{"list_notes", map[string]any{"limit": 501}},
		{"list_notes", map[string]any{"folder": "../x"}},
		{"get_context", map[string]any{"path": ""}},
		{"links", map[string]any{"path": "tech/bloom.md", "limit": 501}},
		{"stats", map[string]any{"limit": -1}},
		{"history", map[string]any{"cursor": "x"}},
		{"history", map[string]any{"limit": 101}},
		{"diff", map[string]any{}},
		// A path a tool writes is a gate rejection (TestMCP_UnportableNamesAreGateRejections);
		// one that names an existing note is invalid input.
		{"archive_note", map[string]any{"path": "../x.md", "reason": "archived"}},
		{"move_note", map[string]any{"from": "/abs.md", "to": "x.md"}},
		{"edit_note", map[string]any{"path": ".git/x.md", "op": "append", "content": "x", "expected_revision": "abc"}},
		{"write_note", map[string]any{"path": "x.md", "content": "# X\n", "extra": true}},
		{"edit_note", map[string]any{"path": "tech/bloom.md", "op": "append", "content": "x"}},
		{"edit_note", map[string]any{"path": "tech/bloom.md", "op": "explode", "expected_revision": "abc"}},
		{"restore_note", map[string]any{"path": "x.md"}},
		{"restore_note", map[string]any{"path": "x.md", "from": "HEAD", "revision": "abc"}},
		{"capture", map[string]any{"text": "  "}},
		{"capture", map[string]any{"text": "hi", "path": "tech/bloom.md"}},
		{"file_note", map[string]any{"path": "tech/_INDEX.md", "content": "# I\n"}},
		{"archive_note", map[string]any{"path": "tech/cms.md", "reason": "bored"}},
		{"move_note", map[string]any{"from": "tech/cms.md", "to": ""}},
		{"link_notes", map[string]any{"from": "tech/cms.md", "to": ""}},
	} {
		te := testmcp.WantError(t, c, ctx, tc.tool, tc.args, mcp.CodeInvalidInput, mcp.ClassFixInput)
		if te.Message == "" {
			t.Errorf("%s %v: empty message", tc.tool, tc.args)
		}
	}
	if commitCount(t, v) != before || testmcp.Git(t, v.Dir(), "status", "--porcelain") != "" {
		t.Fatal("bad input changed the vault")
	}
}

// TestNewMCPServer_OutputValidation: by default a tool result that does not
// conform to the tool's output schema becomes a tool error (so the tests see every
// schema broken); SkipOutputValidation sends it as it is.
func TestNewMCPServer_OutputValidation(t *testing.T) {
	v, _ := testmcp.NewEnv(t, testmcp.Fixture)
	for _, skip := range []bool{false, true} {
		e := &testmcp.Env{T: t, V: v, S: mcp.NewMCPServer(v, mcp.MCPOptions{Version: "test", SkipOutputValidation: skip})}
		e.S.AddTool(mcpgo.NewTool("liar", mcpgo.WithOutputSchema[struct {
			N int `json:"n"`
		}]()), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return &mcpgo.CallToolResult{Content: []mcpgo.Content{mcpgo.NewTextContent(`{"n":"many"}`)},
				StructuredContent: json.RawMessage(`{"n":"many"}`)}, nil
		})
		c, ctx := e.Connect(&testmcp.Agent, false)
		res, err := c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: "liar"}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError == skip {
			t.Errorf("SkipOutputValidation %v: isError %v, content %+v", skip, res.IsError, res.Content)
		}
	}
}
