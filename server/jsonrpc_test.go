package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/server"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/server/mcp"
)

// countMCP is an MCP server with one tool, count, that counts its calls in n.
func countMCP(n *atomic.Int64) *mcpserver.MCPServer {
	s := mcpserver.NewMCPServer("norn-test", "0")
	s.AddTool(mcpgo.NewTool("count", mcpgo.WithDescription("counts its calls")),
		func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			n.Add(1)
			return mcpgo.NewToolResultText("counted"), nil
		})
	return s
}

// badEnvelopes are messages that must be refused as Invalid Request without running:
// ids that are not a string or a number, a request with id null, batches.
var badEnvelopes = map[string]string{
	"object id":  `{"jsonrpc":"2.0","id":{"x":1},"method":"tools/call","params":{"name":"count","arguments":{}}}`,
	"array id":   `{"jsonrpc":"2.0","id":[1],"method":"tools/call","params":{"name":"count","arguments":{}}}`,
	"bool id":    `{"jsonrpc":"2.0","id":true,"method":"tools/call","params":{"name":"count","arguments":{}}}`,
	"null id":    `{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"count","arguments":{}}}`,
	"batch":      `[{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"count","arguments":{}}}]`,
	"empty list": `[]`,
	"scalar":     `42`,
}

// jsonrpcError is a JSON-RPC error answer.
type jsonrpcError struct {
	ID    json.RawMessage `json:"id"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func wantInvalidRequest(t *testing.T, name, answer string) {
	t.Helper()
	var e jsonrpcError
	if err := json.Unmarshal([]byte(answer), &e); err != nil || e.Error == nil {
		t.Fatalf("%s: not a JSON-RPC error: %q", name, answer)
	}
	if e.Error.Code != mcpgo.INVALID_REQUEST || string(e.ID) != "null" || !strings.HasPrefix(e.Error.Message, "Invalid Request") {
		t.Fatalf("%s: want -32600 with id null, got %q", name, answer)
	}
}

// TestServeStdio_InvalidIDs: each bad envelope is answered -32600 with id null and
// runs nothing; a good call after them runs.
func TestServeStdio_InvalidIDs(t *testing.T) {
	for name, msg := range badEnvelopes {
		var n atomic.Int64
		in := testmcp.StdioInit + msg + "\n"
		var out testmcp.SyncBuffer
		p := auth.Principal{Name: "bot", Scopes: []auth.Scope{auth.ScopeRead}}
		if err := mcp.ServeStdio(context.Background(), countMCP(&n), p, strings.NewReader(in), &out, mcp.StdioOptions{Grace: time.Hour}); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != 2 {
			t.Fatalf("%s: want the initialize answer and one error, got %q", name, lines)
		}
		// The initialize request runs on its own goroutine: its answer may come second.
		if strings.Contains(lines[1], `"id":1,`) {
			lines[0], lines[1] = lines[1], lines[0]
		}
		wantInvalidRequest(t, name, lines[1])
		if n.Load() != 0 {
			t.Fatalf("%s: the tool ran %d times", name, n.Load())
		}
	}
	var n atomic.Int64
	var out testmcp.SyncBuffer
	in := testmcp.StdioInit + `{"jsonrpc":"2.0","id":"s-1","method":"tools/call","params":{"name":"count","arguments":{}}}` + "\n"
	if err := mcp.ServeStdio(context.Background(), countMCP(&n), auth.Principal{Name: "bot"}, strings.NewReader(in), &out, mcp.StdioOptions{}); err != nil {
		t.Fatal(err)
	}
	if n.Load() != 1 || !strings.Contains(out.String(), `"id":"s-1"`) {
		t.Fatalf("a string id: ran %d times, answered %q", n.Load(), out.String())
	}
}

// TestHTTPHandler_InvalidIDs: over streamable HTTP each bad envelope is answered
// 400 with a -32600 error, id null, and runs nothing; the same call with a number
// id runs.
func TestHTTPHandler_InvalidIDs(t *testing.T) {
	var n atomic.Int64
	tok, secret := withTokens(t, "a")
	url, _ := testmcp.ServeMCPHTTP(t, countMCP(&n), server.HTTPOptions{Tokens: tok})
	resp, _ := testmcp.RawPost(t, url, testmcp.Bearer(secret["a"]), testmcp.InitializeBody)
	hdr := testmcp.Bearer(secret["a"])
	hdr["Mcp-Session-Id"] = resp.Header.Get("Mcp-Session-Id")
	hdr["Mcp-Protocol-Version"] = "2025-11-25"
	for name, msg := range badEnvelopes {
		resp, body := testmcp.RawPost(t, url, hdr, msg)
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("%s: status %d %s", name, resp.StatusCode, body)
		}
		wantInvalidRequest(t, name, body)
	}
	if n.Load() != 0 {
		t.Fatalf("the tool ran %d times", n.Load())
	}
	resp, body := testmcp.RawPost(t, url, hdr, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"count","arguments":{}}}`)
	if resp.StatusCode != http.StatusOK || n.Load() != 1 {
		t.Fatalf("a number id: %d %s, ran %d times", resp.StatusCode, body, n.Load())
	}
}
