package server_test

import (
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/norn-vault/norn/server"
)

// TestMCP_PrivateNotesAreInvisible: to a principal without the private scope, a
// private note (by folder or by frontmatter) is exactly like a note that does not
// exist, in every read tool and resource; nothing of its title or content leaks.
func TestMCP_PrivateNotesAreInvisible(t *testing.T) {
	v, e := newMCPEnv(t, mcpFixture)
	c, ctx := e.connect(&mcpAgent, true)
	leaks := func(what string, s string) {
		t.Helper()
		for _, secret := range []string{"zebra", "Secret plan", "secret.md", "diary", "Diary"} {
			if strings.Contains(s, secret) {
				t.Fatalf("%s leaks %q: %s", what, secret, s)
			}
		}
	}
	var r server.SearchResult
	mustCall(t, c, ctx, "search", map[string]any{"query": "zebra"}, &r)
	if r.Total != 0 || len(r.Hits) != 0 {
		t.Fatalf("search: %+v", r)
	}
	var p1, p2 server.SearchResult
	mustCall(t, c, ctx, "search", map[string]any{"query": "hashing", "limit": 1}, &p1)
	mustCall(t, c, ctx, "search", map[string]any{"query": "hashing", "limit": 1, "offset": 1}, &p2)
	if p1.Total != 2 || p1.NextOffset != 1 || len(p2.Hits) != 1 || p2.NextOffset != 0 || p2.Hits[0].Path == "tech/secret.md" || p2.Hits[0].Path == p1.Hits[0].Path {
		t.Fatalf("search pages around a hidden hit: %+v / %+v", p1, p2)
	}

	// Hidden and missing notes answer the same.
	same := func(hidden, missing map[string]any, tool, hiddenPath, missingPath string) {
		t.Helper()
		h := wantError(t, c, ctx, tool, hidden, server.CodeNotFound, server.ClassFixInput)
		m := wantError(t, c, ctx, tool, missing, server.CodeNotFound, server.ClassFixInput)
		if strings.ReplaceAll(h.Message, hiddenPath, missingPath) != m.Message {
			t.Fatalf("%s: a hidden note answers %q, a missing one %q", tool, h.Message, m.Message)
		}
	}
	same(map[string]any{"path": "personal-notes/diary.md"}, map[string]any{"path": "personal-notes/nope.md"}, "read_note", "diary.md", "nope.md")
	same(map[string]any{"path": "tech/secret.md"}, map[string]any{"path": "tech/nopes.md"}, "read_note", "secret.md", "nopes.md")
	same(map[string]any{"path": "Secret plan"}, map[string]any{"path": "Absent plan"}, "read_note", "Secret", "Absent")
	same(map[string]any{"path": "tech/secret.md"}, map[string]any{"path": "tech/nopes.md"}, "get_context", "secret.md", "nopes.md")
	same(map[string]any{"path": "tech/secret.md"}, map[string]any{"path": "tech/nopes.md"}, "links", "secret.md", "nopes.md")
	same(map[string]any{"path": "personal-notes/diary.md"}, map[string]any{"path": "personal-notes/nope.md"}, "history", "diary.md", "nope.md")
	for _, args := range []map[string]any{
		{"path": "tech/secret.md", "at": string(v.Head())},
		{"path": "tech/secret.md", "at": string(v.Revision("tech/secret.md"))},
		{"path": "tech/public-name.md", "at": string(v.Revision("tech/secret.md"))},
	} {
		te := wantError(t, c, ctx, "read_note", args, server.CodeNotFound, server.ClassFixInput)
		if strings.Contains(te.Message, "zebra") || strings.Contains(te.Message, "Secret plan") {
			t.Fatalf("read_note at leaks: %s", te.Message)
		}
	}

	var l server.ListNotesResult
	mustCall(t, c, ctx, "list_notes", nil, &l)
	for _, n := range l.Notes {
		leaks("list_notes", string(n.Path))
	}
	var h server.HistoryResult
	mustCall(t, c, ctx, "history", nil, &h)
	for _, cm := range h.Commits {
		for _, p := range cm.Paths {
			leaks("history", string(p))
		}
	}

	// A private note changed by someone trusted: the change is not in diff.
	tc, tctx := e.connect(&mcpTrusted, true)
	mustCall(t, tc, tctx, "edit_note", map[string]any{"path": "tech/secret.md", "op": "append", "content": "zebra crossing", "expected_revision": string(v.Revision("tech/secret.md"))}, nil)
	var d server.DiffResult
	mustCall(t, c, ctx, "diff", map[string]any{"from": "HEAD~1"}, &d)
	if d.Total != 0 || len(d.Changes) != 0 {
		t.Fatalf("diff shows a private change: %+v", d)
	}
	wantError(t, c, ctx, "diff", map[string]any{"from": "HEAD~1", "path": "tech/secret.md"}, server.CodeNotFound, server.ClassFixInput)
	mustCall(t, c, ctx, "history", map[string]any{"limit": 1}, &h)
	if !h.Commits[0].Redacted || len(h.Commits[0].Paths) != 0 || h.Commits[0].PathsTotal != 0 {
		t.Fatalf("history shows a private change: %+v", h.Commits[0])
	}
	leaks("history subject", h.Commits[0].Subject)

	// Resources too.
	list, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range list.Resources {
		leaks("resources/list", res.URI)
	}
	if len(list.Resources) != 6 {
		t.Fatalf("resources: %d, want the 6 visible notes", len(list.Resources))
	}
	if _, err := c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: server.NoteURI("tech/secret.md")}}); err == nil || !strings.Contains(err.Error(), "not_found") {
		t.Fatalf("resource read of a private note: %v", err)
	}

	// The trusted principal sees everything.
	var sr server.SearchResult
	mustCall(t, tc, tctx, "search", map[string]any{"query": "zebra"}, &sr)
	var rn server.ReadNoteResult
	mustCall(t, tc, tctx, "read_note", map[string]any{"path": "Secret plan"}, &rn)
	if sr.Total != 2 || rn.Path != "tech/secret.md" || !strings.Contains(rn.Content, "zebra crossing") {
		t.Fatalf("trusted: %+v %+v", sr, rn)
	}
}
