package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server"
	"github.com/norn-vault/norn/server/mcp"
	"github.com/norn-vault/norn/vault"
)

// TestWrite_ReachesRunningServerAtOnce: a `norn write` beside a running server
// (its local endpoint advertised, no maintenance rounds at all) is seen by the
// server's next MCP read and search: the CLI told the server a commit landed. With
// the endpoint gone, the write still succeeds.
func TestWrite_ReachesRunningServerAtOnce(t *testing.T) {
	dir := newVault(t)
	ctx := context.Background()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	v, err := vault.Open(ctx, dir, vault.Options{Repo: repo.Options{Logger: quiet}})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	l, err := server.StartLocal(ctx, v, server.LocalOptions{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h, err := server.NewHTTPHandler(mcp.NewMCPServer(v, mcp.MCPOptions{Logger: quiet}),
		server.HTTPOptions{Addr: ln.Addr().String(), AllowUnauthenticatedLoopback: true, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	srv := h.NewServer()
	go srv.Serve(ln)
	defer srv.Shutdown(ctx)
	c, err := client.NewStreamableHttpClient("http://" + ln.Addr().String() + server.MCPPath)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: "t", Version: "0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	call := func(tool string, args map[string]any) (string, bool) {
		req := mcpgo.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = tool, args
		res, err := c.CallTool(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res.StructuredContent)
		return string(b), res.IsError
	}

	const content = "---\ntitle: Quokka\n---\n# Quokka\nThe zyzzyva note.\n"
	mustCLI(t, dir, content, "write", "new.md")
	if got, failed := call("read_note", map[string]any{"path": "new.md"}); failed || !strings.Contains(got, "zyzzyva") {
		t.Fatalf("read over MCP right after the CLI write: %s", got)
	}
	if got, failed := call("search", map[string]any{"query": "zyzzyva"}); failed || !strings.Contains(got, `"new.md"`) {
		t.Fatalf("search over MCP right after the CLI write: %s", got)
	}

	// No server to tell: the write is still a success.
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, dir, content+"More.\n", "write", "other.md")
}
