package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/server/mcp"
)

// liveness bounds the waits for something that must happen (a stream to end, a
// notification to come); it is never a performance limit.
const liveness = 20 * time.Second

// sseMethods reads an SSE response until it ends and sends the method of each
// JSON-RPC message in it ("" for a response); the channel closes when the stream
// does.
func sseMethods(body io.ReadCloser) <-chan string {
	ch := make(chan string, 64)
	go func() {
		defer close(ch)
		defer body.Close()
		sc := bufio.NewScanner(body)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var m struct{ Method string }
			json.Unmarshal([]byte(data), &m)
			ch <- m.Method
		}
	}()
	return ch
}

// nextMethod waits (for liveness only) for the next message on a stream.
func nextMethod(t *testing.T, ch <-chan string) (string, bool) {
	t.Helper()
	select {
	case m, ok := <-ch:
		return m, ok
	case <-time.After(liveness):
		t.Fatal("the stream neither sent nor ended")
		return "", false
	}
}

// TestHTTPHandler_RevokeEndsSessions: revoking a token (from another process, by
// rewriting the tokens file) ends its sessions and streams at once: an open GET
// stream subscribed to a note is closed without receiving the next change's
// notification, whether that change comes over HTTP from another token or from a
// commit no request announces, or when nothing happens at all; its session id is unknown afterwards (404) with any
// token, and the revoked token itself is 401. The same for a stateless
// subscriptions/listen stream.
func TestHTTPHandler_RevokeEndsSessions(t *testing.T) {
	readme := mcp.NoteURI("README.md")
	for _, after := range []string{"edit over HTTP", "commit without a request", "nothing (an idle stream)"} {
		t.Run("handshake GET stream, then "+after, func(t *testing.T) {
			overHTTP := after == "edit over HTTP"
			v, e := testmcp.NewEnv(t, testmcp.Fixture)
			tok, secrets := testmcp.Tokens(t, v, map[string][]auth.Scope{
				"w8": {auth.ScopeRead, auth.ScopeWrite}, "editor": {auth.ScopeRead, auth.ScopeWrite}})
			url := testmcp.ServeHTTP(t, e.S, tok)
			editor, err := testmcp.Dial(t, url, testmcp.Bearer(secrets["editor"]), false)
			if err != nil {
				t.Fatal(err)
			}
			inproc, ictx := e.Connect(&testmcp.Trusted, false)
			edit := func() {
				t.Helper()
				args := map[string]any{"path": "README.md", "op": "append", "content": "More.", "expected_revision": string(v.Revision(note.Path("README.md")))}
				if overHTTP {
					testmcp.MustCall(t, editor, context.Background(), "edit_note", args, nil)
				} else {
					testmcp.MustCall(t, inproc, ictx, "edit_note", args, nil)
				}
			}

			resp, _ := testmcp.RawPost(t, url, testmcp.Bearer(secrets["w8"]), testmcp.InitializeBody)
			sid := resp.Header.Get("Mcp-Session-Id")
			if resp.StatusCode != http.StatusOK || sid == "" {
				t.Fatalf("initialize: %d %q", resp.StatusCode, sid)
			}
			hdr := func(who string) map[string]string {
				return map[string]string{"Authorization": "Bearer " + secrets[who], "Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
			}
			testmcp.RawPost(t, url, hdr("w8"), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			if resp, body := testmcp.RawPost(t, url, hdr("w8"), `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"`+readme+`"}}`); resp.StatusCode != http.StatusOK || strings.Contains(body, `"error"`) {
				t.Fatalf("subscribe: %d %s", resp.StatusCode, body)
			}
			req, _ := http.NewRequest(http.MethodGet, url, nil)
			for k, v := range hdr("w8") {
				req.Header.Set(k, v)
			}
			req.Header.Set("Accept", "text/event-stream")
			get, err := http.DefaultClient.Do(req)
			if err != nil || get.StatusCode != http.StatusOK {
				t.Fatalf("GET stream: %v %v", get, err)
			}
			events := sseMethods(get.Body)

			// The stream works: a change before the revoke is notified.
			edit()
			if m, ok := nextMethod(t, events); !ok || m != mcpgo.MethodNotificationResourceUpdated {
				t.Fatalf("before the revoke: %q %v", m, ok)
			}

			if err := auth.OpenTokens(tok.Path(), nil).Revoke("w8"); err != nil { // `norn token revoke w8`
				t.Fatal(err)
			}
			if after != "nothing (an idle stream)" {
				edit()
			}
			for {
				m, ok := nextMethod(t, events)
				if !ok {
					break // the stream ended
				}
				if m == mcpgo.MethodNotificationResourceUpdated {
					t.Fatal("a revoked token's stream got a notification")
				}
			}
			if resp, body := testmcp.RawPost(t, url, hdr("w8"), `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`); resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("revoked token: %d %s", resp.StatusCode, body)
			}
			for _, m := range []string{http.MethodPost, http.MethodGet} {
				resp, body := testmcp.RawDo(t, m, url, hdr("editor"), strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`))
				if resp.StatusCode != http.StatusNotFound || testmcp.ErrorCode(t, body) != "unknown_session" {
					t.Fatalf("%s on the revoked token's session: %d %s", m, resp.StatusCode, body)
				}
			}
			edit() // the server goes on
		})
	}

	t.Run("stateless subscriptions/listen", func(t *testing.T) {
		v, e := testmcp.NewEnv(t, testmcp.Fixture)
		tok, secrets := testmcp.Tokens(t, v, map[string][]auth.Scope{
			"w8": {auth.ScopeRead, auth.ScopeWrite}, "editor": {auth.ScopeRead, auth.ScopeWrite}})
		url := testmcp.ServeHTTP(t, e.S, tok)
		editor, err := testmcp.Dial(t, url, testmcp.Bearer(secrets["editor"]), false)
		if err != nil {
			t.Fatal(err)
		}
		w8, err := testmcp.Dial(t, url, testmcp.Bearer(secrets["w8"]), false)
		if err != nil {
			t.Fatal(err)
		}
		if w8.ProtocolVersion() != mcpgo.ProtocolVersion20260728 {
			t.Fatalf("client negotiated %s", w8.ProtocolVersion())
		}
		got := make(chan string, 64)
		w8.OnNotification(func(n mcpgo.JSONRPCNotification) { got <- n.Method })
		ended := make(chan error, 1)
		go func() {
			ended <- w8.Listen(context.Background(), mcpgo.SubscriptionFilter{ResourceSubscriptions: []string{readme}})
		}()
		if m, _ := nextMethod(t, got); m != mcpgo.MethodNotificationSubscriptionsAcknowledged {
			t.Fatalf("first on the listen stream: %q", m)
		}
		edit := func() {
			t.Helper()
			testmcp.MustCall(t, editor, context.Background(), "edit_note", map[string]any{"path": "README.md", "op": "append", "content": "More.", "expected_revision": string(v.Revision("README.md"))}, nil)
		}
		edit()
		if m, _ := nextMethod(t, got); m != mcpgo.MethodNotificationResourceUpdated {
			t.Fatalf("before the revoke: %q", m)
		}
		if err := auth.OpenTokens(tok.Path(), nil).Revoke("w8"); err != nil {
			t.Fatal(err)
		}
		edit()
		select {
		case <-ended:
		case <-time.After(liveness):
			t.Fatal("the revoked token's listen stream is still open")
		}
		for {
			select {
			case m := <-got:
				if m == mcpgo.MethodNotificationResourceUpdated {
					t.Fatal("a revoked token's listen stream got a notification")
				}
				continue
			default:
			}
			break
		}
		if _, err := w8.ListTools(context.Background(), mcpgo.ListToolsRequest{}); err == nil {
			t.Fatal("the revoked token still works")
		}
	})
}
