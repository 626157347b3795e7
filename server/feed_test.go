package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/sync/feed"
)

// TestHTTPHandler_Feed: the change feed mounted beside MCP takes the same
// tokens and host checks; a token without the private scope is told nothing of
// a note private by folder or by frontmatter (raw frames checked), one with it
// sees them; revoking a token closes its connection.
func TestHTTPHandler_Feed(t *testing.T) {
	v, _ := testmcp.NewEnv(t, map[string]string{"guide.md": "# Guide\n"})
	tok, secrets := withTokens(t, "reader")
	owner, err := tok.Add("owner", []auth.Scope{auth.ScopeRead, auth.ScopePrivate})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h, err := server.NewHTTPHandler(echoMCP(), server.HTTPOptions{Addr: ln.Addr().String(), Tokens: tok,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	hub := feed.New(v, feed.Options{})
	h.MountFeed(v, hub)
	srv := h.NewServer()
	done := make(chan struct{})
	go func() { srv.Serve(ln); close(done) }()
	t.Cleanup(func() { srv.Shutdown(context.Background()); hub.Close(); <-done })
	url := "ws://" + ln.Addr().String() + feed.Path

	dial := func(token string, hdr http.Header) (*websocket.Conn, int) {
		if hdr == nil {
			hdr = http.Header{}
		}
		if token != "" {
			hdr.Set("Authorization", "Bearer "+token)
		}
		c, resp, err := websocket.DefaultDialer.Dial(url, hdr)
		if err != nil {
			if resp == nil {
				t.Fatal(err)
			}
			return nil, resp.StatusCode
		}
		return c, http.StatusSwitchingProtocols
	}
	if _, status := dial("", nil); status != http.StatusUnauthorized {
		t.Fatalf("no token: %d, want 401", status)
	}
	if _, status := dial(secrets["reader"], http.Header{"Origin": {"http://evil.example"}}); status != http.StatusForbidden {
		t.Fatalf("foreign origin: %d, want 403", status)
	}
	reader, _ := dial(secrets["reader"], nil)
	defer reader.Close()
	all, _ := dial(owner, nil)
	defer all.Close()

	var ids []repo.CommitID
	for _, ch := range []repo.Change{
		{Kind: repo.Put, Path: "personal-notes/diary.md", Content: []byte("# Diary\n")},
		{Kind: repo.Put, Path: "tech/plan.md", Content: []byte("---\nprivate: true\n---\n# Plan\n")},
		{Kind: repo.Put, Path: "tech/public.md", Content: []byte("# Public\n")},
	} {
		res, err := v.Apply(context.Background(), repo.Tx{Author: repo.Author{Name: "a"}, Op: repo.OpWrite, Changes: []repo.Change{ch}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Commit)
	}
	read := func(c *websocket.Conn, n int) (msgs []feed.Message, raw [][]byte) {
		for range n {
			_, b, err := c.ReadMessage()
			if err != nil {
				t.Fatal(err)
			}
			var m feed.Message
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			msgs, raw = append(msgs, m), append(raw, b)
		}
		return msgs, raw
	}
	msgs, raw := read(reader, 4)
	if msgs[0].Type != feed.TypeHello || msgs[0].Principal != "reader" {
		t.Fatalf("hello %+v", msgs[0])
	}
	for i, want := range []feed.MessageType{feed.TypeHead, feed.TypeHead, feed.TypeEvent} {
		if m := msgs[i+1]; m.Type != want || m.Cursor() != ids[i] {
			t.Fatalf("reader message %d: %s %s, want %s %s", i, m.Type, m.Cursor().Short(), want, ids[i].Short())
		}
	}
	for _, b := range raw {
		if bytes.Contains(b, []byte("personal-notes")) || bytes.Contains(b, []byte("plan")) {
			t.Fatalf("the reader got a frame naming a private note: %s", b)
		}
	}
	msgs, _ = read(all, 4)
	for i := range ids {
		if m := msgs[i+1]; m.Type != feed.TypeEvent || m.Commit != ids[i] || len(m.Changes) != 1 {
			t.Fatalf("owner message %d: %+v", i, m)
		}
	}
	if !strings.HasPrefix(string(msgs[1].Changes[0].Path), "personal-notes/") {
		t.Fatalf("owner got %+v", msgs[1])
	}

	// A revoked token's connection is closed before it is told of the next commit.
	if err := tok.Revoke("reader"); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Apply(context.Background(), repo.Tx{Author: repo.Author{Name: "a"}, Op: repo.OpWrite,
		Changes: []repo.Change{{Kind: repo.Put, Path: "tech/later.md", Content: []byte("# Later\n")}}}); err != nil {
		t.Fatal(err)
	}
	_, b, err := reader.ReadMessage()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.ClosePolicyViolation || ce.Text != feed.RevokedReason {
		t.Fatalf("after the revoke: %q %v, want a close 1008 %q", b, err, feed.RevokedReason)
	}
	if msgs, _ := read(all, 1); msgs[0].Type != feed.TypeEvent {
		t.Fatalf("the owner after the reader's revoke: %+v", msgs[0])
	}
}
