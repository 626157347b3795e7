package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/vault"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server"
)

// The principals the MCP tests call as.
var (
	mcpAgent   = auth.Principal{Name: "claude", Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite}}
	mcpReader  = auth.Principal{Name: "reader", Scopes: []auth.Scope{auth.ScopeRead}}
	mcpTrusted = auth.Principal{Name: "trusted", Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite, auth.ScopePrivate}}
	mcpOwner   = auth.Principal{Name: "Ada", Email: "ada@example.com", Owner: true, Scopes: auth.AllScopes}
)

// mcpFixture is a small vault: public notes, a note in the private folder, a note
// private by its frontmatter, an ambiguous name and a note over the read budget.
var mcpFixture = map[string]string{
	"README.md":               "---\ntitle: Readme\n---\n# Readme\nStart at [[Bloom filters]].\n",
	"tech/bloom.md":           "---\ntitle: Bloom filters\ntags: [data-structures, hashing]\n---\n# Bloom filters\nA set sketch. See [[cms]].\n\n## Usage\nUse k hash functions.\n\n## Limits\nFalse positives.\n",
	"tech/cms.md":             "---\ntitle: Count-min sketch\ntags: [hashing]\n---\n# Count-min sketch\nLike [[Bloom filters]] but counting. Not [[Secret plan]].\n",
	"tech/secret.md":          "---\ntitle: Secret plan\nprivate: true\ntags: [hashing]\n---\n# Secret plan\nzebra hashing and [[Bloom filters]].\n",
	"personal-notes/diary.md": "# Diary\nzebra day; thinking about [[Bloom filters]].\n",
	"a/dup.md":                "# Dup one\n",
	"b/dup.md":                "# Dup two\n",
	"big.md":                  bigNote(),
}

// bigNote is a note of about 40 KiB in three sections.
func bigNote() string {
	var b strings.Builder
	b.WriteString("# Big\nintro\n")
	for _, h := range []string{"Alpha", "Beta", "Gamma"} {
		fmt.Fprintf(&b, "\n## %s\n", h)
		for range 300 {
			b.WriteString("lorem ipsum dolor sit amet, " + strings.ToLower(h) + "\n")
		}
	}
	return b.String()
}

// newMCPEnv imports files into a new vault (gate profile default), opens it with
// vault.Open and builds its MCP server.
func newMCPEnv(t *testing.T, files map[string]string) (*vault.Vault, *mcpEnvServer) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	owner := repo.Author{Name: "o", Email: "o@x"}
	v0, _, err := repo.Init(ctx, dir, repo.InitOptions{Options: repo.Options{Owner: owner},
		Seed: map[string][]byte{string(vault.ConfigPath): []byte("gates:\n  profile: default\n")}})
	if err != nil {
		t.Fatal(err)
	}
	v0.Close()
	v, err := vault.Open(ctx, dir, vault.Options{Repo: repo.Options{Owner: owner}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v, &mcpEnvServer{t: t, v: v, s: server.NewMCPServer(v, server.MCPOptions{Version: "test"})}
}

// mcpEnvServer is an MCP server under test.
type mcpEnvServer struct {
	t *testing.T
	v *vault.Vault
	s *mcpserver.MCPServer
}

// connect starts an in-process client calling as p (legacy: the initialize
// handshake of protocol 2025-11-25; otherwise the stateless protocol 2026-07-28).
func (e *mcpEnvServer) connect(p *auth.Principal, legacy bool) (*client.Client, context.Context) {
	e.t.Helper()
	ctx := context.Background()
	if p != nil {
		ctx = auth.WithPrincipal(ctx, *p)
	}
	var opts []client.ClientOption
	if legacy {
		opts = append(opts, client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION))
	}
	c, err := client.NewInProcessClientWithOptions(e.s, opts...)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { c.Close() })
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ClientInfo: mcp.Implementation{Name: "test", Version: "0"}}}); err != nil {
		e.t.Fatal(err)
	}
	return c, ctx
}

// callTool calls a tool and decodes its structured content into out (on success)
// or returns the tool error.
func callTool(t *testing.T, c *client.Client, ctx context.Context, name string, args map[string]any, out any) *server.ToolError {
	t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content items, want 1 (the JSON text)", name, len(res.Content))
	}
	text, ok := res.Content[0].(mcp.TextContent)
	if !ok || !json.Valid([]byte(text.Text)) {
		t.Fatalf("%s: text content is not the JSON of the result: %#v", name, res.Content[0])
	}
	if res.IsError {
		if res.StructuredContent != nil {
			t.Fatalf("%s: error result with structuredContent %s (TypeScript clients validate it against the output schema)", name, b)
		}
		var te server.ToolError
		if err := json.Unmarshal([]byte(text.Text), &te); err != nil || te.Code == "" || te.Class == "" || te.Message == "" {
			t.Fatalf("%s: error result without {class, code, message}: %s (%v)", name, text.Text, err)
		}
		return &te
	}
	var wire, copied bytes.Buffer // the text block is the structured content's JSON
	if json.Compact(&wire, res.RawStructuredContent) != nil || json.Compact(&copied, []byte(text.Text)) != nil || wire.String() != copied.String() {
		t.Fatalf("%s: the text block is not the structured content's JSON:\n%s\n%s", name, text.Text, res.RawStructuredContent)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: decode %s: %v", name, b, err)
		}
	}
	return nil
}

// mustCall calls a tool that must succeed.
func mustCall(t *testing.T, c *client.Client, ctx context.Context, name string, args map[string]any, out any) {
	t.Helper()
	if te := callTool(t, c, ctx, name, args, out); te != nil {
		t.Fatalf("%s %v: %s %s: %s", name, args, te.Class, te.Code, te.Message)
	}
}

// wantError calls a tool that must fail with code (and class, when given).
func wantError(t *testing.T, c *client.Client, ctx context.Context, name string, args map[string]any, code server.ErrorCode, class server.ErrorClass) *server.ToolError {
	t.Helper()
	te := callTool(t, c, ctx, name, args, nil)
	if te == nil {
		t.Fatalf("%s %v: succeeded, want %s", name, args, code)
	}
	if te.Code != code || class != "" && te.Class != class {
		t.Fatalf("%s %v: got %s/%s (%s), want %s/%s", name, args, te.Class, te.Code, te.Message, class, code)
	}
	return te
}

// mcpGit runs git in dir and returns its output.
func mcpGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// assertCommitted checks with git that HEAD is a commit by author with op, and the
// working tree is clean.
func assertCommitted(t *testing.T, v *vault.Vault, author, email string, op repo.Op) {
	t.Helper()
	dir := v.Dir()
	if got := mcpGit(t, dir, "log", "-1", "--format=%an <%ae>"); got != author+" <"+email+">" {
		t.Fatalf("git log author: %q, want %s <%s>", got, author, email)
	}
	if body := mcpGit(t, dir, "log", "-1", "--format=%B"); !strings.Contains(body, "Norn-Op: "+string(op)) {
		t.Fatalf("commit message lacks Norn-Op: %s:\n%s", op, body)
	}
	if st := mcpGit(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("git status not clean:\n%s", st)
	}
}

// commitCount is the number of commits on HEAD.
func commitCount(t *testing.T, v *vault.Vault) string {
	t.Helper()
	return mcpGit(t, v.Dir(), "rev-list", "--count", "HEAD")
}

var (
	mcpReadTools  = []string{"diff", "get_context", "graph_hubs", "graph_neighborhood", "history", "links", "list_notes", "read_note", "search", "stats", "vault_map"}
	mcpWriteTools = []string{"archive_note", "capture", "edit_note", "file_note", "link_notes", "move_note", "restore_note", "unlink_notes", "write_note"}
)

func TestMCP_ToolsListSchemasAndAnnotations(t *testing.T) {
	_, e := newMCPEnv(t, mcpFixture)
	for _, legacy := range []bool{true, false} {
		c, ctx := e.connect(&mcpAgent, legacy)
		res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
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
	v, e := newMCPEnv(t, mcpFixture)
	before := commitCount(t, v)
	anon, ctx := e.connect(nil, true)
	te := wantError(t, anon, ctx, "search", map[string]any{"query": "bloom"}, server.CodeForbidden, server.ClassFatal)
	if !strings.Contains(te.Message, "token") {
		t.Errorf("forbidden message does not say how to recover: %s", te.Message)
	}
	wantError(t, anon, ctx, "write_note", map[string]any{"path": "x.md", "content": "# X\n"}, server.CodeForbidden, server.ClassFatal)
	reader, rctx := e.connect(&mcpReader, true)
	mustCall(t, reader, rctx, "search", map[string]any{"query": "bloom"}, nil)
	for _, name := range mcpWriteTools {
		te := wantError(t, reader, rctx, name, map[string]any{"path": "x.md", "content": "# X\n", "text": "t"}, server.CodeForbidden, server.ClassFatal)
		if !strings.Contains(te.Message, "write scope") {
			t.Errorf("%s: %s", name, te.Message)
		}
	}
	if commitCount(t, v) != before || mcpGit(t, v.Dir(), "status", "--porcelain") != "" {
		t.Fatal("a refused call changed the vault")
	}
}

func TestMCP_BadArgumentsAreInvalidInput(t *testing.T) {
	v, e := newMCPEnv(t, mcpFixture)
	before := commitCount(t, v)
	c, ctx := e.connect(&mcpAgent, false)
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
		te := wantError(t, c, ctx, tc.tool, tc.args, server.CodeInvalidInput, server.ClassFixInput)
		if te.Message == "" {
			t.Errorf("%s %v: empty message", tc.tool, tc.args)
		}
	}
	if commitCount(t, v) != before || mcpGit(t, v.Dir(), "status", "--porcelain") != "" {
		t.Fatal("bad input changed the vault")
	}
}

// TestNewMCPServer_OutputValidation: by default a tool result that does not
// conform to the tool's output schema becomes a tool error (so the tests see every
// schema broken); SkipOutputValidation sends it as it is.
func TestNewMCPServer_OutputValidation(t *testing.T) {
	v, _ := newMCPEnv(t, mcpFixture)
	for _, skip := range []bool{false, true} {
		e := &mcpEnvServer{t: t, v: v, s: server.NewMCPServer(v, server.MCPOptions{Version: "test", SkipOutputValidation: skip})}
		e.s.AddTool(mcp.NewTool("liar", mcp.WithOutputSchema[struct {
			N int `json:"n"`
		}]()), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(`{"n":"many"}`)},
				StructuredContent: json.RawMessage(`{"n":"many"}`)}, nil
		})
		c, ctx := e.connect(&mcpAgent, false)
		res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "liar"}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError == skip {
			t.Errorf("SkipOutputValidation %v: isError %v, content %+v", skip, res.IsError, res.Content)
		}
	}
}
