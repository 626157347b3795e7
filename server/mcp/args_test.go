package mcp_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/server/mcp"
)

// rawToolCall calls tool over streamable HTTP with args as the exact bytes of the
// arguments object (the session handshake, so that nothing re-encodes them) and
// returns the tool error, nil when the call succeeded.
func rawToolCall(t *testing.T, url, token, tool, args string) *mcp.ToolError {
	t.Helper()
	hdr := testmcp.Bearer(token)
	resp, body := testmcp.RawPost(t, url, hdr, testmcp.InitializeBody)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	hdr["Mcp-Session-Id"] = sid
	hdr["MCP-Protocol-Version"] = "2025-11-25"
	resp, body = testmcp.RawPost(t, url, hdr, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"`+tool+`","arguments":`+args+`}}`)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: HTTP %d %s", tool, resp.StatusCode, body)
	}
	var msg struct {
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(body), &msg); err != nil || len(msg.Result.Content) != 1 {
		t.Fatalf("%s: not a tool result: %s (%v)", tool, body, err)
	}
	if !msg.Result.IsError {
		return nil
	}
	var te mcp.ToolError
	if err := json.Unmarshal([]byte(msg.Result.Content[0].Text), &te); err != nil {
		t.Fatalf("%s: not a tool error: %s", tool, msg.Result.Content[0].Text)
	}
	return &te
}

// TestMCP_ArgumentsDecodedStrictly: over real HTTP, arguments whose strings are
// not UTF-8 (raw bytes, or \u escapes of unpaired surrogates) and arguments with a
// repeated key are invalid_input naming the argument, for every tool, and write
// nothing; encoding/json alone would have written U+FFFD or taken the last key.
func TestMCP_ArgumentsDecodedStrictly(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	tok, secret := testmcp.Tokens(t, v, map[string][]auth.Scope{"rw": {auth.ScopeRead, auth.ScopeWrite}})
	url := testmcp.ServeHTTP(t, e.S, tok)
	s := &e2eSession{v: v}
	state := s.vaultState(t)
	for _, tc := range []struct {
		name, tool, args, arg string
	}{
		{"lone low surrogate in a path", "write_note", `{"path":"x\udc80.md","content":"# x\n"}`, `"path"`},
		{"lone high surrogate in content", "write_note", `{"path":"x.md","content":"# x\ud800\n"}`, `"content"`},
		{"high surrogate then a non-surrogate", "write_note", `{"path":"x.md","content":"# x\ud800\u0041\n"}`, `"content"`},
		{"raw invalid bytes", "write_note", "{\"path\":\"x.md\",\"content\":\"# x\xff\xfe\\n\"}", `"content"`},
		{"raw invalid bytes in a message", "write_note", "{\"path\":\"x.md\",\"content\":\"# x\\n\",\"message\":\"m\xc3\"}", `"message"`},
		{"invalid bytes in a read", "search", "{\"query\":\"bloom\xff\"}", `"query"`},
		{"invalid bytes in a list", "graph_neighborhood", `{"path":"tech/bloom.md","types":["link","\udfff"]}`, `"types"`},
		{"repeated key", "write_note", `{"path":"x.md","content":"# x\n","path":"y.md"}`, `"path"`},
		{"repeated key in another case", "write_note", `{"path":"x.md","content":"# x\n","Path":"y.md"}`, `"Path"`},
		{"repeated key with a long s", "write_note", `{"path":"x.md","content":"# x\n","message":"a","me\u017fsage":"b"}`, `"meſsage"`},
		{"repeated key with the Kelvin sign", "write_note", `{"path":"x.md","content":"# x\n","\u212aind":"x","kind":"y"}`, `"kind"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			te := rawToolCall(t, url, secret["rw"], tc.tool, tc.args)
			if te == nil || te.Code != mcp.CodeInvalidInput || te.Class != mcp.ClassFixInput || !strings.Contains(te.Message, "argument "+tc.arg) {
				t.Fatalf("got %+v, want invalid_input naming argument %s", te, tc.arg)
			}
		})
	}
	if after := s.vaultState(t); after != state {
		t.Fatalf("a refused call changed the vault: %s, then %s", state, after)
	}
	// Well-formed escapes still decode: a surrogate pair, an escaped BMP character.
	if te := rawToolCall(t, url, secret["rw"], "write_note", `{"path":"ok.md","content":"# ok \ud83d\ude00 \u00e9\n"}`); te != nil {
		t.Fatalf("a valid surrogate pair: %+v", te)
	}
	if got := onDisk(t, v, "ok.md"); got != "# ok 😀 é\n" {
		t.Fatalf("ok.md: %q", got)
	}
}
