package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/server/mcp"
)

// whoami is what the test tool answers: the principal its handler sees.
type whoami struct {
	Found  bool         `json:"found"`
	Name   string       `json:"name"`
	Scopes []auth.Scope `json:"scopes"`
	Owner  bool         `json:"owner"`
}

// echoMCP is an MCP server with one tool, whoami, answering PrincipalFrom(ctx).
func echoMCP() *mcpserver.MCPServer {
	s := mcpserver.NewMCPServer("norn-test", "0")
	s.AddTool(mcpgo.NewTool("whoami", mcpgo.WithDescription("who is calling"),
		mcpgo.WithReadOnlyHintAnnotation(true), mcpgo.WithDestructiveHintAnnotation(false),
		mcpgo.WithIdempotentHintAnnotation(true), mcpgo.WithOpenWorldHintAnnotation(false)),
		func(ctx context.Context, _ mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			p, ok := auth.PrincipalFrom(ctx)
			b, _ := json.Marshal(whoami{Found: ok, Name: p.Name, Scopes: p.Scopes, Owner: p.Owner})
			return mcpgo.NewToolResultText(string(b)), nil
		})
	return s
}

// padMCP is an MCP server with one tool, pad, answering 16 KiB of text.
func padMCP() *mcpserver.MCPServer {
	s := mcpserver.NewMCPServer("norn-test", "0")
	s.AddTool(mcpgo.NewTool("pad", mcpgo.WithDescription("a 16 KiB answer, after a progress notification when asked"),
		mcpgo.WithBoolean("notify")),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			if req.GetBool("notify", false) {
				srv := mcpserver.ServerFromContext(ctx)
				if err := srv.SendNotificationToClient(ctx, "notifications/progress", map[string]any{"progressToken": "pad", "progress": 1}); err != nil {
					return nil, err
				}
			}
			return mcpgo.NewToolResultText(strings.Repeat("x", 16<<10)), nil
		})
	return s
}

// serveHTTP serves echoMCP's handler on 127.0.0.1 and returns the MCP URL.
func serveHTTP(t *testing.T, opts server.HTTPOptions) (string, *server.HTTPHandler) {
	t.Helper()
	return testmcp.ServeMCPHTTP(t, echoMCP(), opts)
}

func callWhoami(t *testing.T, c *client.Client) (whoami, error) {
	t.Helper()
	req := mcpgo.CallToolRequest{}
	req.Params.Name = "whoami"
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		return whoami{}, err
	}
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("whoami: %+v", res)
	}
	var w whoami
	if err := json.Unmarshal([]byte(res.Content[0].(mcpgo.TextContent).Text), &w); err != nil {
		t.Fatal(err)
	}
	return w, nil
}

func withTokens(t *testing.T, names ...string) (*auth.Tokens, map[string]string) {
	t.Helper()
	tok := auth.OpenTokens(testmcp.TokensPath(t), nil)
	secrets := map[string]string{}
	for _, n := range names {
		s, err := tok.Add(n, []auth.Scope{auth.ScopeRead})
		if err != nil {
			t.Fatal(err)
		}
		secrets[n] = s
	}
	return tok, secrets
}

// TestHTTPHandler_PrincipalReachesTools: the real client, with a token, in both
// protocol eras; the tool handler sees the token's principal.
func TestHTTPHandler_PrincipalReachesTools(t *testing.T) {
	tok, secret := withTokens(t, "alice", "bob")
	url, _ := serveHTTP(t, server.HTTPOptions{Tokens: tok})
	for _, legacy := range []bool{false, true} {
		for _, name := range []string{"alice", "bob"} {
			c, err := testmcp.Dial(t, url, testmcp.Bearer(secret[name]), legacy)
			if err != nil {
				t.Fatalf("legacy=%v %s: %v", legacy, name, err)
			}
			tools, err := c.ListTools(context.Background(), mcpgo.ListToolsRequest{})
			if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "whoami" {
				t.Fatalf("tools/list: %+v %v", tools, err)
			}
			w, err := callWhoami(t, c)
			if err != nil {
				t.Fatal(err)
			}
			if !w.Found || w.Name != name || w.Owner || !slices.Equal(w.Scopes, []auth.Scope{auth.ScopeRead}) {
				t.Fatalf("legacy=%v: handler saw %+v, want %s", legacy, w, name)
			}
		}
	}
}

func TestHTTPHandler_Unauthorized(t *testing.T) {
	tok, secret := withTokens(t, "alice")
	url, _ := serveHTTP(t, server.HTTPOptions{Tokens: tok})
	for name, hdr := range map[string]map[string]string{
		"missing":  nil,
		"unknown":  testmcp.Bearer(auth.TokenPrefix + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"),
		"empty":    {"Authorization": "Bearer "},
		"basic":    {"Authorization": "Basic " + secret["alice"]},
		"no space": {"Authorization": "Bearer" + secret["alice"]},
	} {
		resp, body := testmcp.RawPost(t, url, hdr, testmcp.InitializeBody)
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s: status %d", name, resp.StatusCode)
			continue
		}
		if got := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(got, `Bearer realm="norn"`) {
			t.Errorf("%s: WWW-Authenticate %q", name, got)
		}
		testmcp.ErrorCode(t, body)
		if !strings.Contains(body, "norn token add NAME") {
			t.Errorf("%s: body does not say how to get a token: %s", name, body)
		}
	}
	if _, err := testmcp.Dial(t, url, testmcp.Bearer("norn_wrong"), false); err == nil {
		t.Fatal("the client initialized with a wrong token")
	}
	if resp, _ := testmcp.RawPost(t, url, testmcp.Bearer(secret["alice"]), testmcp.InitializeBody); resp.StatusCode != http.StatusOK {
		t.Fatalf("good token: %d", resp.StatusCode)
	}
	// Anything but /mcp is 404, after the host check.
	if resp, _ := testmcp.RawPost(t, strings.TrimSuffix(url, server.MCPPath)+"/other", testmcp.Bearer(secret["alice"]), testmcp.InitializeBody); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("other path: %d", resp.StatusCode)
	}
}

// TestHTTPHandler_HotReload: tokens added and revoked while serving take effect
// without a restart.
func TestHTTPHandler_HotReload(t *testing.T) {
	tok, secret := withTokens(t, "alice")
	url, _ := serveHTTP(t, server.HTTPOptions{Tokens: tok})
	cli := auth.OpenTokens(tok.Path(), nil) // the `norn token` process
	late, err := cli.Add("late", []auth.Scope{auth.ScopeRead, auth.ScopeWrite})
	if err != nil {
		t.Fatal(err)
	}
	c, err := testmcp.Dial(t, url, testmcp.Bearer(late), false)
	if err != nil {
		t.Fatalf("token added while serving: %v", err)
	}
	if w, err := callWhoami(t, c); err != nil || w.Name != "late" {
		t.Fatalf("whoami: %+v %v", w, err)
	}
	if err := cli.Revoke("late"); err != nil {
		t.Fatal(err)
	}
	if _, err := callWhoami(t, c); err == nil {
		t.Fatal("a revoked token kept working")
	}
	if resp, _ := testmcp.RawPost(t, url, testmcp.Bearer(late), testmcp.InitializeBody); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("revoked token: %d", resp.StatusCode)
	}
	if resp, _ := testmcp.RawPost(t, url, testmcp.Bearer(secret["alice"]), testmcp.InitializeBody); resp.StatusCode != http.StatusOK {
		t.Fatalf("the other token: %d", resp.StatusCode)
	}
}

// TestNewHTTPHandler_FailsClosed: no tokens, no start — unless the flag and a loopback
// address; the flag never works off loopback; a broken tokens file never starts.
func TestNewHTTPHandler_FailsClosed(t *testing.T) {
	empty := auth.OpenTokens(testmcp.TokensPath(t), nil)
	tok, _ := withTokens(t, "a")
	revoked, _ := withTokens(t, "gone")
	if err := revoked.Revoke("gone"); err != nil {
		t.Fatal(err)
	}
	broken, _ := withTokens(t, "b")
	if err := os.WriteFile(broken.Path(), []byte("{oops\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		opts server.HTTPOptions
		want error // nil: starts
	}{
		{"no file", server.HTTPOptions{Addr: "127.0.0.1:7777", Tokens: empty}, auth.ErrNoTokens},
		{"nil tokens", server.HTTPOptions{Addr: "127.0.0.1:7777"}, auth.ErrNoTokens},
		{"all revoked", server.HTTPOptions{Addr: "127.0.0.1:7777", Tokens: revoked}, auth.ErrNoTokens},
		{"non-loopback without tokens", server.HTTPOptions{Addr: "0.0.0.0:7777", Tokens: empty}, auth.ErrNoTokens},
		{"flag on loopback", server.HTTPOptions{Addr: "127.0.0.1:7777", Tokens: empty, AllowUnauthenticatedLoopback: true}, nil},
		{"flag on localhost", server.HTTPOptions{Addr: "localhost:0", AllowUnauthenticatedLoopback: true}, nil},
		{"flag on ::1", server.HTTPOptions{Addr: "[::1]:7777", AllowUnauthenticatedLoopback: true}, nil},
		{"flag on all interfaces", server.HTTPOptions{Addr: "0.0.0.0:7777", Tokens: empty, AllowUnauthenticatedLoopback: true}, repo.ErrInvalid},
		{"flag on empty host", server.HTTPOptions{Addr: ":7777", Tokens: tok, AllowUnauthenticatedLoopback: true}, repo.ErrInvalid},
		{"flag on a LAN address with tokens", server.HTTPOptions{Addr: "192.168.1.5:7777", Tokens: tok, AllowUnauthenticatedLoopback: true}, repo.ErrInvalid},
		{"tokens on a LAN address", server.HTTPOptions{Addr: "192.168.1.5:7777", Tokens: tok}, nil},
		{"bad address", server.HTTPOptions{Addr: "7777", Tokens: tok}, repo.ErrInvalid},
		{"broken tokens file", server.HTTPOptions{Addr: "127.0.0.1:7777", Tokens: broken}, errAny},
		{"broken tokens file with flag", server.HTTPOptions{Addr: "127.0.0.1:7777", Tokens: broken, AllowUnauthenticatedLoopback: true}, errAny},
	} {
		h, err := server.NewHTTPHandler(echoMCP(), c.opts)
		switch {
		case c.want == nil && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want == errAny && err == nil, c.want != nil && c.want != errAny && !errors.Is(err, c.want):
			t.Errorf("%s: err %v, want %v", c.name, err, c.want)
		case c.want != nil && h != nil:
			t.Errorf("%s: a handler despite the error", c.name)
		}
		if errors.Is(err, auth.ErrNoTokens) && !strings.Contains(err.Error(), "norn token add NAME") {
			t.Errorf("%s: the error does not say how to fix it: %v", c.name, err)
		}
	}
}

var errAny = errors.New("any error")

// TestHTTPHandler_UnauthenticatedLoopback: with the flag, a request without a token
// is the local agent (read, write); a request with a bad token is still refused.
func TestHTTPHandler_UnauthenticatedLoopback(t *testing.T) {
	url, _ := serveHTTP(t, server.HTTPOptions{AllowUnauthenticatedLoopback: true})
	c, err := testmcp.Dial(t, url, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	w, err := callWhoami(t, c)
	if err != nil || w.Name != server.LocalAgentName || w.Owner || !slices.Equal(w.Scopes, []auth.Scope{auth.ScopeRead, auth.ScopeWrite}) {
		t.Fatalf("whoami: %+v %v", w, err)
	}
	if resp, _ := testmcp.RawPost(t, url, testmcp.Bearer("norn_bad"), testmcp.InitializeBody); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("bad token with the flag: %d", resp.StatusCode)
	}
}

// TestHTTPHandler_SessionBoundToPrincipal: a session id used with another principal's
// token is refused (403), an unknown one is 404, and DELETE ends the binding.
func TestHTTPHandler_SessionBoundToPrincipal(t *testing.T) {
	tok, secret := withTokens(t, "alice", "mallory")
	url, _ := serveHTTP(t, server.HTTPOptions{Tokens: tok})

	// With the real client: mallory takes alice's session id.
	alice, err := testmcp.Dial(t, url, testmcp.Bearer(secret["alice"]), true)
	if err != nil {
		t.Fatal(err)
	}
	sid := alice.GetSessionId()
	if sid == "" {
		t.Fatal("legacy initialize gave no session id")
	}
	thief, err := client.NewStreamableHttpClient(url, transport.WithHTTPHeaders(testmcp.Bearer(secret["mallory"])), transport.WithSession(sid))
	if err != nil {
		t.Fatal(err)
	}
	defer thief.Close()
	if err := thief.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := thief.ListTools(context.Background(), mcpgo.ListToolsRequest{}); err == nil {
		t.Fatal("another principal used alice's session")
	}
	if w, err := callWhoami(t, alice); err != nil || w.Name != "alice" {
		t.Fatalf("alice after the attempt: %+v %v", w, err)
	}

	// Raw, every method.
	const list = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	hdr := func(who, session string) map[string]string {
		return map[string]string{"Authorization": "Bearer " + secret[who], "Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-11-25"}
	}
	if resp, body := testmcp.RawPost(t, url, hdr("alice", sid), list); resp.StatusCode != http.StatusOK || !strings.Contains(body, "whoami") {
		t.Fatalf("owner: %d %s", resp.StatusCode, body)
	}
	for _, m := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		resp, body := testmcp.RawDo(t, m, url, hdr("mallory", sid), strings.NewReader(list))
		if resp.StatusCode != http.StatusForbidden || testmcp.ErrorCode(t, body) != "session_forbidden" {
			t.Errorf("%s with another's session: %d %s", m, resp.StatusCode, body)
		}
	}
	if resp, body := testmcp.RawPost(t, url, hdr("alice", "mcp-session-00000000-0000-0000-0000-000000000000"), list); resp.StatusCode != http.StatusNotFound || testmcp.ErrorCode(t, body) != "unknown_session" {
		t.Fatalf("unknown session: %d %s", resp.StatusCode, body)
	}
	if resp, _ := testmcp.RawDo(t, http.MethodDelete, url, hdr("alice", sid), nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("delete by owner: %d", resp.StatusCode)
	}
	if resp, _ := testmcp.RawPost(t, url, hdr("alice", sid), list); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("ended session: %d", resp.StatusCode)
	}
	// A session made by a raw initialize is bound too.
	resp, _ := testmcp.RawPost(t, url, testmcp.Bearer(secret["mallory"]), testmcp.InitializeBody)
	msid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || msid == "" {
		t.Fatalf("raw initialize: %d %q", resp.StatusCode, msid)
	}
	if resp, _ := testmcp.RawPost(t, url, hdr("alice", msid), list); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("alice on mallory's session: %d", resp.StatusCode)
	}
}

// TestHTTPHandler_DNSRebinding: on loopback, a foreign Host or Origin is refused with
// 403 before authentication; loopback names pass (the conformance suite's
// dns-rebinding-protection scenario).
func TestHTTPHandler_DNSRebinding(t *testing.T) {
	url, _ := serveHTTP(t, server.HTTPOptions{AllowUnauthenticatedLoopback: true})
	port := strings.TrimSuffix(strings.TrimPrefix(url, "http://127.0.0.1:"), server.MCPPath)
	for _, c := range []struct {
		host, origin string
		want         int
		code         string
	}{
		{"evil.example.com", "http://evil.example.com", http.StatusForbidden, "forbidden_host"},
		{"evil.example.com:" + port, "", http.StatusForbidden, "forbidden_host"},
		{"127.0.0.1:" + port, "http://evil.example.com", http.StatusForbidden, "forbidden_origin"},
		{"localhost:" + port, "null", http.StatusForbidden, "forbidden_origin"},
		{"localhost:" + port, "file://x", http.StatusForbidden, "forbidden_origin"},
		{"localhost:" + port, "http://localhost:" + port, http.StatusOK, ""},
		{"127.0.0.1:" + port, "http://127.0.0.1:" + port, http.StatusOK, ""},
		{"[::1]:" + port, "", http.StatusOK, ""},
		{"LOCALHOST", "", http.StatusOK, ""},
	} {
		hdr := map[string]string{"Host": c.host}
		if c.origin != "" {
			hdr["Origin"] = c.origin
		}
		resp, body := testmcp.RawPost(t, url, hdr, testmcp.InitializeBody)
		if resp.StatusCode != c.want {
			t.Errorf("Host %q Origin %q: %d, want %d (%s)", c.host, c.origin, resp.StatusCode, c.want, body)
			continue
		}
		if c.code != "" && testmcp.ErrorCode(t, body) != c.code {
			t.Errorf("Host %q Origin %q: %s", c.host, c.origin, body)
		}
	}
	// A token does not get a foreign Host through.
	tok, secret := withTokens(t, "a")
	url2, _ := serveHTTP(t, server.HTTPOptions{Tokens: tok})
	if resp, _ := testmcp.RawPost(t, url2, map[string]string{"Host": "evil.example.com", "Authorization": "Bearer " + secret["a"]}, testmcp.InitializeBody); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign host with a token: %d", resp.StatusCode)
	}
}

// TestHTTPHandler_BodyLimit: a body over the limit is 413, whether it says its length
// or is chunked; the default limit is 4 MiB.
func TestHTTPHandler_BodyLimit(t *testing.T) {
	tok, secret := withTokens(t, "a")
	url, _ := serveHTTP(t, server.HTTPOptions{Tokens: tok, MaxBodyBytes: 1024})
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 2048) + `"}}`
	resp, body := testmcp.RawPost(t, url, testmcp.Bearer(secret["a"]), big)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || testmcp.ErrorCode(t, body) != "body_too_large" {
		t.Fatalf("sized: %d %s", resp.StatusCode, body)
	}
	// No Content-Length: a reader of unknown length is sent chunked.
	resp, _ = testmcp.RawDo(t, http.MethodPost, url, testmcp.Bearer(secret["a"]), io.MultiReader(strings.NewReader(big)))
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("chunked: %d", resp.StatusCode)
	}
	if resp, _ := testmcp.RawPost(t, url, testmcp.Bearer(secret["a"]), testmcp.InitializeBody); resp.StatusCode != http.StatusOK {
		t.Fatalf("small body: %d", resp.StatusCode)
	}
	// Unauthenticated big bodies are refused as unauthorized, never read.
	if resp, _ := testmcp.RawPost(t, url, nil, big); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("unauthenticated big body: %d", resp.StatusCode)
	}

	url4, _ := serveHTTP(t, server.HTTPOptions{Tokens: tok})
	huge := bytes.Repeat([]byte("x"), server.DefaultMaxBodyBytes+1)
	if resp, _ := testmcp.RawDo(t, http.MethodPost, url4, testmcp.Bearer(secret["a"]), bytes.NewReader(huge)); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("default limit: %d", resp.StatusCode)
	}
}

// TestServeStdio: the real client over a pair of pipes; the handler sees the given
// principal; closing stdin is a clean stop.
func TestServeStdio(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := auth.Principal{Name: "owner", Owner: true, Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite, auth.ScopePrivate}}
	done := make(chan error, 1)
	go func() {
		done <- mcp.ServeStdio(context.Background(), echoMCP(), p, inR, outW, mcp.StdioOptions{})
		outW.Close()
	}()
	c := client.NewClient(transport.NewIO(outR, inW, nil))
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := mcpgo.InitializeRequest{}
	req.Params.ClientInfo = mcpgo.Implementation{Name: "norn-test", Version: "0"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
	w, err := callWhoami(t, c)
	if err != nil || !w.Found || w.Name != "owner" || !w.Owner || !slices.Equal(w.Scopes, p.Scopes) {
		t.Fatalf("whoami: %+v %v", w, err)
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Fatalf("ServeStdio after stdin closed: %v", err)
	}
	c.Close()
}

// responseRecorder is an http.RoundTripper that notes how each response body is
// framed.
type responseRecorder struct {
	mu   sync.Mutex
	seen []framing
}

type framing struct {
	contentType string
	length      int64 // -1: unknown (chunked or streamed)
}

func (r *responseRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err == nil && req.Method == http.MethodPost {
		r.mu.Lock()
		r.seen = append(r.seen, framing{resp.Header.Get("Content-Type"), resp.ContentLength})
		r.mu.Unlock()
	}
	return resp, err
}

// TestHTTPHandler_JSONResponsesCarryLength: a POST answered with JSON comes with a
// Content-Length even when it is large (net/http would send it chunked), so that a
// client that stops reading at the end of the JSON value (mcp-go's) can keep the
// connection; a POST answered with an SSE stream (a tool that notifies the client
// before it answers) still streams, and the client gets its answer.
func TestHTTPHandler_JSONResponsesCarryLength(t *testing.T) {
	tok, secrets := withTokens(t, "agent")
	url, _ := testmcp.ServeMCPHTTP(t, padMCP(), server.HTTPOptions{Tokens: tok})
	for _, legacy := range []bool{false, true} {
		rec := &responseRecorder{}
		c, err := testmcp.Dial(t, url, testmcp.Bearer(secrets["agent"]), legacy, transport.WithHTTPBasicClient(&http.Client{Transport: rec}))
		if err != nil {
			t.Fatal(err)
		}
		for _, notify := range []bool{false, false, true} {
			res, err := c.CallTool(context.Background(), mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: "pad", Arguments: map[string]any{"notify": notify}}})
			if err != nil {
				t.Fatalf("legacy %v, notify %v: %v", legacy, notify, err)
			}
			if text, _ := mcpgo.AsTextContent(res.Content[0]); res.IsError || text == nil || len(text.Text) != 16<<10 {
				t.Fatalf("legacy %v, notify %v: %+v", legacy, notify, res)
			}
		}
		rec.mu.Lock()
		seen := slices.Clone(rec.seen)
		rec.mu.Unlock()
		large, streamed := 0, 0
		for _, f := range seen {
			switch {
			case strings.HasPrefix(f.contentType, "application/json"):
				if f.length < 0 {
					t.Errorf("legacy %v: a JSON response without a Content-Length: %+v", legacy, seen)
				}
				if f.length > 16<<10 {
					large++
				}
			case strings.HasPrefix(f.contentType, "text/event-stream"):
				streamed++
			}
		}
		if large != 2 || streamed != 1 {
			t.Errorf("legacy %v: %d large JSON answers, %d streamed: %+v", legacy, large, streamed, seen)
		}
	}
}

// TestHTTPHandler_RefusalsAreJSON: every refusal of the transport, its own or
// mcp-go's, has a JSON body {"error", "message"} (with Allow on a 405); a request
// without its session under the handshake protocols is 400, as the specification
// asks.
func TestHTTPHandler_RefusalsAreJSON(t *testing.T) {
	tok, secret := withTokens(t, "alice")
	url, _ := serveHTTP(t, server.HTTPOptions{Tokens: tok})
	auth := "Bearer " + secret["alice"]
	const list = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	for _, c := range []struct {
		name, method string
		hdr          map[string]string
		body         string
		status       int
		code         string
	}{
		{"no session under the handshake protocol", http.MethodPost, map[string]string{"Mcp-Protocol-Version": "2025-11-25"}, list, http.StatusBadRequest, "missing_session"},
		{"no session, no version", http.MethodPost, nil, list, http.StatusBadRequest, "missing_session"},
		{"PUT", http.MethodPut, nil, list, http.StatusMethodNotAllowed, "method_not_allowed"},
		{"PATCH", http.MethodPatch, nil, list, http.StatusMethodNotAllowed, "method_not_allowed"},
		{"OPTIONS", http.MethodOptions, nil, "", http.StatusMethodNotAllowed, "method_not_allowed"},
		{"wrong Content-Type", http.MethodPost, map[string]string{"Content-Type": "text/plain"}, testmcp.InitializeBody, http.StatusBadRequest, "bad_content_type"},
		{"unknown session id", http.MethodPost, map[string]string{"Mcp-Protocol-Version": "2025-11-25", "Mcp-Session-Id": "x"}, list, http.StatusNotFound, "unknown_session"},
		{"GET under the stateless protocol", http.MethodGet, map[string]string{"Mcp-Protocol-Version": "2026-07-28"}, "", http.StatusMethodNotAllowed, "method_not_allowed"},
		{"DELETE under the stateless protocol", http.MethodDelete, map[string]string{"Mcp-Protocol-Version": "2026-07-28"}, "", http.StatusMethodNotAllowed, "method_not_allowed"},
	} {
		hdr := map[string]string{"Authorization": auth}
		for k, v := range c.hdr {
			hdr[k] = v
		}
		resp, body := testmcp.RawDo(t, c.method, url, hdr, strings.NewReader(c.body))
		if resp.StatusCode != c.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			t.Errorf("%s: %d %q %s, want %d JSON", c.name, resp.StatusCode, resp.Header.Get("Content-Type"), body, c.status)
			continue
		}
		if got := testmcp.ErrorCode(t, body); got != c.code {
			t.Errorf("%s: error %q, want %q (%s)", c.name, got, c.code, body)
		}
		if c.status == http.StatusMethodNotAllowed && !strings.Contains(resp.Header.Get("Allow"), "POST") {
			t.Errorf("%s: Allow %q", c.name, resp.Header.Get("Allow"))
		}
	}
	// An unknown protocol version in a session is refused as JSON too.
	resp, _ := testmcp.RawPost(t, url, map[string]string{"Authorization": auth}, testmcp.InitializeBody)
	sid := resp.Header.Get("Mcp-Session-Id")
	legacy := map[string]string{"Authorization": auth, "Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
	resp, body := testmcp.RawPost(t, url, map[string]string{"Authorization": auth, "Mcp-Session-Id": sid, "Mcp-Protocol-Version": "1999-01-01"}, list)
	if resp.StatusCode != http.StatusBadRequest || testmcp.ErrorCode(t, body) != "unsupported_protocol_version" {
		t.Fatalf("unknown protocol version: %d %s", resp.StatusCode, body)
	}

	// What the protocol refuses is a JSON-RPC error, as docs/mcp.md says.
	stateless := func(drop ...string) map[string]string {
		h := map[string]string{"Authorization": auth, "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "whoami"}
		for _, d := range drop {
			delete(h, d)
		}
		return h
	}
	call := func(name, meta string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + name + `","arguments":{}` + meta + `}}`
	}
	const meta = `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}`
	withHeader := func(h map[string]string, k, v string) map[string]string { h[k] = v; return h }
	for _, c := range []struct {
		name   string
		hdr    map[string]string
		body   string
		status int
		code   int // the JSON-RPC error code; 0: a result
	}{
		{"stateless call", stateless(), call("whoami", meta), http.StatusOK, 0},
		{"not JSON, stateless", stateless(), `{oops`, http.StatusBadRequest, -32700},
		{"not JSON, in a session", legacy, `{oops`, http.StatusBadRequest, -32700},
		{"no Mcp-Method", stateless("Mcp-Method"), call("whoami", meta), http.StatusBadRequest, -32020},
		{"no Mcp-Name", stateless("Mcp-Name"), call("whoami", meta), http.StatusBadRequest, -32020},
		{"Mcp-Name not the tool called", stateless(), call("other", meta), http.StatusBadRequest, -32020},
		{"header version not _meta's", withHeader(stateless(), "Mcp-Protocol-Version", "2025-11-25"), call("whoami", meta), http.StatusBadRequest, -32020},
		{"no _meta", stateless(), call("whoami", ""), http.StatusBadRequest, -32602},
		{"_meta without the client's", stateless(), call("whoami", `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`), http.StatusBadRequest, -32602},
		{"unknown method, stateless", withHeader(stateless("Mcp-Name"), "Mcp-Method", "foo/bar"), `{"jsonrpc":"2.0","id":7,"method":"foo/bar","params":{` + meta[1:] + `}}`, http.StatusNotFound, -32601},
		{"unknown method, in a session", legacy, `{"jsonrpc":"2.0","id":7,"method":"foo/bar"}`, http.StatusOK, -32601},
	} {
		resp, body := testmcp.RawPost(t, url, c.hdr, c.body)
		var m struct {
			Result json.RawMessage
			Error  *struct{ Code int }
		}
		if err := json.Unmarshal([]byte(body), &m); err != nil || resp.StatusCode != c.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			t.Errorf("%s: %d %s, want %d", c.name, resp.StatusCode, body, c.status)
			continue
		}
		switch {
		case m.Error != nil && m.Error.Code != c.code:
			t.Errorf("%s: JSON-RPC error %d, want %d (%s)", c.name, m.Error.Code, c.code, body)
		case m.Error == nil && (c.code != 0 || m.Result == nil):
			t.Errorf("%s: %s, want error %d", c.name, body, c.code)
		}
	}
}

// TestHTTPHandler_GetDeleteNeedSession: under the handshake protocols a GET or a
// DELETE without an Mcp-Session-Id is 400 missing_session with a JSON body, as a
// POST other than initialize is (it had opened an empty listening stream for no
// session, or answered 200 to a DELETE of nothing); the stateless protocol keeps its
// 405, an unknown version its 400, and a session's own GET and DELETE still work.
func TestHTTPHandler_GetDeleteNeedSession(t *testing.T) {
	tok, secret := withTokens(t, "alice")
	url, _ := serveHTTP(t, server.HTTPOptions{Tokens: tok})
	auth := "Bearer " + secret["alice"]
	// do sends a bodiless request and reads the body unless the answer is a stream,
	// which it closes at once (a refusal is never one).
	do := func(method string, hdr map[string]string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest(method, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Authorization", auth)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			return resp, "(an event stream)"
		}
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		for _, c := range []struct {
			name   string
			hdr    map[string]string
			status int
			code   string
		}{
			{"no version", nil, http.StatusBadRequest, "missing_session"},
			{"2025-11-25", map[string]string{"Mcp-Protocol-Version": "2025-11-25"}, http.StatusBadRequest, "missing_session"},
			{"2025-03-26", map[string]string{"Mcp-Protocol-Version": "2025-03-26"}, http.StatusBadRequest, "missing_session"},
			{"stateless", map[string]string{"Mcp-Protocol-Version": "2026-07-28"}, http.StatusMethodNotAllowed, "method_not_allowed"},
			{"unknown version", map[string]string{"Mcp-Protocol-Version": "1999-01-01"}, http.StatusBadRequest, "unsupported_protocol_version"},
		} {
			resp, body := do(m, c.hdr)
			if resp.StatusCode != c.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
				t.Errorf("%s without a session, %s: %d %q %s, want %d JSON", m, c.name, resp.StatusCode, resp.Header.Get("Content-Type"), body, c.status)
				continue
			}
			if got := testmcp.ErrorCode(t, body); got != c.code {
				t.Errorf("%s without a session, %s: error %q, want %q (%s)", m, c.name, got, c.code, body)
			}
		}
	}

	// With its session, DELETE ends it (and a GET of an ended one is unknown).
	resp, _ := testmcp.RawPost(t, url, map[string]string{"Authorization": auth}, testmcp.InitializeBody)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %q", resp.StatusCode, sid)
	}
	hdr := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
	if resp, body := do(http.MethodDelete, hdr); resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE with its session: %d %s", resp.StatusCode, body)
	}
	if resp, body := do(http.MethodGet, hdr); resp.StatusCode != http.StatusNotFound || testmcp.ErrorCode(t, body) != "unknown_session" {
		t.Fatalf("GET with an ended session: %d %s", resp.StatusCode, body)
	}
}
