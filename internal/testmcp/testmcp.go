// Package testmcp holds the helpers the MCP and transport tests share: a vault
// with its MCP server and in-process clients, the principals they call as, real
// HTTP and stdio transports on 127.0.0.1, and raw JSON-RPC requests. It is
// imported only by tests.
package testmcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/norn-vault/norn/internal/testvault"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/server/mcp"
	"github.com/norn-vault/norn/sync/feed"
	"github.com/norn-vault/norn/sync/remote"
	"github.com/norn-vault/norn/vault"
)

// TokensPath makes a real vault and returns where its tokens file goes.
func TokensPath(t *testing.T) string {
	t.Helper()
	v, _, err := repo.Init(context.Background(), t.TempDir(), repo.InitOptions{Options: repo.Options{Owner: repo.Author{Name: "o", Email: "o@x"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	return auth.TokensPath(v.GitDir())
}

// Quiet discards the transports' own logs.
var Quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// ServeHTTP serves s over streamable HTTP on 127.0.0.1 with tok, as `norn serve
// --http` does, and returns the MCP URL.
func ServeHTTP(t *testing.T, s *mcpserver.MCPServer, tok *auth.Tokens) string {
	t.Helper()
	url, _ := ServeMCPHTTP(t, s, server.HTTPOptions{Tokens: tok, Logger: Quiet})
	return url
}

// Tokens writes a tokens file in the vault's .git/norn with one token per name
// and its scopes, and returns the tokens and their secrets.
func Tokens(t *testing.T, v *vault.Vault, scopes map[string][]auth.Scope) (*auth.Tokens, map[string]string) {
	t.Helper()
	tok := auth.OpenTokens(auth.TokensPath(v.GitDir()), nil)
	secrets := map[string]string{}
	for name, sc := range scopes {
		s, err := tok.Add(name, sc)
		if err != nil {
			t.Fatal(err)
		}
		secrets[name] = s
	}
	return tok, secrets
}

// Fixture is a small vault: public notes, a note in the private folder, a note
// private by its frontmatter, an ambiguous name and a note over the read budget.
var Fixture = map[string]string{
	"README.md":               "---\ntitle: Readme\n---\n# Readme\nStart at [[Bloom filters]].\n",
	"tech/bloom.md":           "---\ntitle: Bloom filters\ntags: [data-structures, hashing]\n---\n# Bloom filters\nA set sketch. See [[cms]].\n\n## Usage\nUse k hash functions.\n\n## Limits\nFalse positives.\n",
	"tech/cms.md":             "---\ntitle: Count-min sketch\ntags: [hashing]\n---\n# Count-min sketch\nLike [[Bloom filters]] but counting. Not [[Secret plan]].\n",
	"tech/secret.md":          "---\ntitle: Secret plan\nprivate: true\ntags: [hashing]\n---\n# Secret plan\nzebra hashing and [[Bloom filters]].\n",
	"personal-notes/diary.md": "# Diary\nzebra day; thinking about [[Bloom filters]].\n",
	"a/dup.md":                "# Dup one\n",
	"b/dup.md":                "# Dup two\n",
	"big.md":                  BigNote(),
}

// BigNote is a note of about 40 KiB in three sections.
func BigNote() string {
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

// NewEnv imports files into a new vault (gate profile default), opens it with
// vault.Open and builds its MCP server.
func NewEnv(t *testing.T, files map[string]string) (*vault.Vault, *Env) {
	t.Helper()
	v := testvault.OpenServed(t, files)
	hub := feed.New(v, feed.Options{Logger: Quiet})
	t.Cleanup(func() { hub.Close() })
	sy := NewSyncer(t, v)
	return v, &Env{T: t, V: v, Hub: hub, Sync: sy, S: mcp.NewMCPServer(v, mcp.MCPOptions{Version: "test", Feed: hub, Sync: sy})}
}

// NewSyncer is v's Syncer over its remotes (none until a test adds one).
func NewSyncer(t testing.TB, v *vault.Vault) *vault.Syncer {
	t.Helper()
	rs, err := remote.Open(v.GitDir(), remote.Options{Logger: Quiet})
	if err != nil {
		t.Fatal(err)
	}
	return vault.NewSyncer(v, rs, vault.SyncerOptions{Machine: "test", Logger: Quiet})
}

// Env is an MCP server under test.
type Env struct {
	T   *testing.T
	V   *vault.Vault
	S   *mcpserver.MCPServer
	Hub *feed.Hub // the change feed wait_for_changes answers from
	// Sync is the vault's Syncer sync_status and the write tools' remote use.
	Sync *vault.Syncer
}

// CallTool calls a tool and decodes its structured content into out (on success)
// or returns the tool error.
func CallTool(t *testing.T, c *client.Client, ctx context.Context, name string, args map[string]any, out any) *mcp.ToolError {
	t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	res, err := c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: name, Arguments: args}})
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
	text, ok := res.Content[0].(mcpgo.TextContent)
	if !ok || !json.Valid([]byte(text.Text)) {
		t.Fatalf("%s: text content is not the JSON of the result: %#v", name, res.Content[0])
	}
	if res.IsError {
		if res.StructuredContent != nil {
			t.Fatalf("%s: error result with structuredContent %s (TypeScript clients validate it against the output schema)", name, b)
		}
		var te mcp.ToolError
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

// MustCall calls a tool that must succeed.
func MustCall(t *testing.T, c *client.Client, ctx context.Context, name string, args map[string]any, out any) {
	t.Helper()
	if te := CallTool(t, c, ctx, name, args, out); te != nil {
		t.Fatalf("%s %v: %s %s: %s", name, args, te.Class, te.Code, te.Message)
	}
}

// WantError calls a tool that must fail with code (and class, when given).
func WantError(t *testing.T, c *client.Client, ctx context.Context, name string, args map[string]any, code mcp.ErrorCode, class mcp.ErrorClass) *mcp.ToolError {
	t.Helper()
	te := CallTool(t, c, ctx, name, args, nil)
	if te == nil {
		t.Fatalf("%s %v: succeeded, want %s", name, args, code)
	}
	if te.Code != code || class != "" && te.Class != class {
		t.Fatalf("%s %v: got %s/%s (%s), want %s/%s", name, args, te.Class, te.Code, te.Message, class, code)
	}
	return te
}

// Git runs git in dir and returns its output.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// The principals the MCP tests call as.
var (
	Agent   = auth.Principal{Name: "claude", Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite}}
	Reader  = auth.Principal{Name: "reader", Scopes: []auth.Scope{auth.ScopeRead}}
	Trusted = auth.Principal{Name: "trusted", Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite, auth.ScopePrivate}}
	Owner   = auth.Principal{Name: "Ada", Email: "ada@example.com", Owner: true, Scopes: auth.AllScopes}
)

// Connect starts an in-process client calling as p (legacy: the initialize
// handshake of protocol 2025-11-25; otherwise the stateless protocol 2026-07-28).
func (e *Env) Connect(p *auth.Principal, legacy bool) (*client.Client, context.Context) {
	e.T.Helper()
	ctx := context.Background()
	if p != nil {
		ctx = auth.WithPrincipal(ctx, *p)
	}
	var opts []client.ClientOption
	if legacy {
		opts = append(opts, client.WithProtocolVersion(mcpgo.LATEST_LEGACY_PROTOCOL_VERSION))
	}
	c, err := client.NewInProcessClientWithOptions(e.S, opts...)
	if err != nil {
		e.T.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		e.T.Fatal(err)
	}
	e.T.Cleanup(func() { c.Close() })
	if _, err := c.Initialize(ctx, mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{ClientInfo: mcpgo.Implementation{Name: "test", Version: "0"}}}); err != nil {
		e.T.Fatal(err)
	}
	return c, ctx
}

// Notifications collects the notifications a client receives, in order.
func Notifications(c *client.Client) <-chan mcpgo.JSONRPCNotification {
	ch := make(chan mcpgo.JSONRPCNotification, 64)
	c.OnNotification(func(n mcpgo.JSONRPCNotification) { ch <- n })
	return ch
}

// NextUpdate waits for the next notifications/resources/updated and returns its uri.
func NextUpdate(t *testing.T, ch <-chan mcpgo.JSONRPCNotification) (string, mcpgo.JSONRPCNotification) {
	t.Helper()
	for n := range ch {
		if n.Method == mcpgo.MethodNotificationResourceUpdated {
			uri, _ := n.Params.AdditionalFields["uri"].(string)
			return uri, n
		}
	}
	t.Fatal("notification channel closed")
	return "", mcpgo.JSONRPCNotification{}
}

func GateCall(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"gate","arguments":{}}}`+"\n", id)
}

// GateMCP is an MCP server with one tool, gate, that answers "done" once gate is
// closed, or fails with its context's error if its request is cancelled first (or
// was by then).
// started gets a value as each call begins.
func GateMCP(gate <-chan struct{}, started chan<- struct{}) *mcpserver.MCPServer {
	s := mcpserver.NewMCPServer("norn-test", "0")
	s.AddTool(mcpgo.NewTool("gate", mcpgo.WithDescription("answers when the test says so")),
		func(ctx context.Context, _ mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			if started != nil {
				started <- struct{}{}
			}
			select {
			case <-gate:
			case <-ctx.Done():
			}
			if err := ctx.Err(); err != nil {
				return mcpgo.NewToolResultError("cancelled: " + err.Error()), nil
			}
			return mcpgo.NewToolResultText("done"), nil
		})
	return s
}

const StdioInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}` + "\n" +
	`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"

// SyncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// ServeMCPHTTP serves s's handler on 127.0.0.1 and returns the MCP URL.
func ServeMCPHTTP(t *testing.T, s *mcpserver.MCPServer, opts server.HTTPOptions) (string, *server.HTTPHandler) {
	t.Helper()
	return ServeMounted(t, s, opts, nil)
}

// ServeMounted is ServeMCPHTTP with mount called on the handler before it
// serves (to mount the feed or the web explorer).
func ServeMounted(t *testing.T, s *mcpserver.MCPServer, opts server.HTTPOptions, mount func(*server.HTTPHandler)) (string, *server.HTTPHandler) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	opts.Addr = ln.Addr().String()
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	h, err := server.NewHTTPHandler(s, opts)
	if err != nil {
		ln.Close()
		t.Fatal(err)
	}
	if mount != nil {
		mount(h)
	}
	srv := h.NewServer()
	done := make(chan struct{})
	go func() { srv.Serve(ln); close(done) }()
	t.Cleanup(func() { srv.Shutdown(context.Background()); <-done })
	return "http://" + ln.Addr().String() + server.MCPPath, h
}

func Bearer(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }

// Dial connects the real streamable HTTP client; legacy pins the initialize handshake
// (protocol 2025-11-25, with sessions) instead of the stateless protocol.
func Dial(t *testing.T, url string, headers map[string]string, legacy bool, opts ...transport.StreamableHTTPCOption) (*client.Client, error) {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(url, append([]transport.StreamableHTTPCOption{transport.WithHTTPHeaders(headers)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	var copts []client.ClientOption
	if legacy {
		//lint:ignore SA1019 the legacy handshake is what older clients speak; the server must keep answering it
		copts = append(copts, client.WithLegacyProtocolOnly())
	}
	c := client.NewClient(tr, copts...)
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	t.Cleanup(func() { c.Close() })
	req := mcpgo.InitializeRequest{}
	req.Params.ClientInfo = mcpgo.Implementation{Name: "norn-test", Version: "0"}
	if _, err := c.Initialize(ctx, req); err != nil {
		return nil, err
	}
	return c, nil
}

func ErrorCode(t *testing.T, body string) string {
	t.Helper()
	var e struct{ Error, Message string }
	if err := json.Unmarshal([]byte(body), &e); err != nil || e.Message == "" {
		t.Fatalf("not a JSON error body: %q", body)
	}
	return e.Error
}

const InitializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

// RawPost sends one JSON-RPC message and returns the response and its body.
func RawPost(t *testing.T, url string, hdr map[string]string, body string) (*http.Response, string) {
	t.Helper()
	return RawDo(t, http.MethodPost, url, hdr, strings.NewReader(body))
}

// RawDo sends one request with the given method, headers and body, and returns
// the response and its body.
func RawDo(t *testing.T, method, url string, hdr map[string]string, body io.Reader) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}
