package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server/mcp"
)

// TestMCP_HistoryFollowsMoves: history of a note lists its rename as one commit
// (kind moved, from the old path) and goes on with the commits under the old
// path. A move out of a private folder is listed without its source and nothing
// older, a move into one without its target, to a caller without the private
// scope: no part of the private path is in the answer. The trusted caller sees
// both paths.
func TestMCP_HistoryFollowsMoves(t *testing.T) {
	v, e := testmcp.NewEnv(t, map[string]string{
		"tech/a.md":                  "# A\n\nfirst\n",
		"tech/pub.md":                "# Pub\n\nleaving\n",
		"personal-notes/hideaway.md": "# Hideaway\n\nsecret words\n",
	})
	tc, tctx := e.Connect(&testmcp.Trusted, false)
	ac, actx := e.Connect(&testmcp.Agent, false)
	testmcp.MustCall(t, tc, tctx, "edit_note", map[string]any{"path": "tech/a.md", "op": "append", "content": "more\n",
		"expected_revision": string(v.Revision("tech/a.md"))}, nil)
	testmcp.MustCall(t, tc, tctx, "move_note", map[string]any{"from": "tech/a.md", "to": "notes/b.md"}, nil)
	testmcp.MustCall(t, tc, tctx, "move_note", map[string]any{"from": "personal-notes/hideaway.md", "to": "tech/out.md"}, nil)
	testmcp.MustCall(t, tc, tctx, "move_note", map[string]any{"from": "tech/pub.md", "to": "personal-notes/in.md"}, nil)

	var h mcp.HistoryResult
	testmcp.MustCall(t, ac, actx, "history", map[string]any{"path": "notes/b.md"}, &h)
	if len(h.Commits) != 3 || h.Commits[0].Kind != repo.EventMoved || h.Commits[0].From != "tech/a.md" || h.Commits[0].Path != "notes/b.md" ||
		h.Commits[1].Kind != repo.EventModified || h.Commits[1].Path != "tech/a.md" || h.Commits[2].Kind != repo.EventAdded ||
		h.Commits[0].OldRevision != h.Commits[1].Revision || h.Commits[0].Revision != v.Revision("notes/b.md") {
		t.Fatalf("history of a moved note: %+v", h.Commits)
	}

	leaks := func(what string, x any) {
		t.Helper()
		b, _ := json.Marshal(x)
		for _, secret := range []string{"personal-notes", "hideaway", "in.md", "secret"} {
			if strings.Contains(string(b), secret) {
				t.Fatalf("%s names %q: %s", what, secret, b)
			}
		}
	}
	var out mcp.HistoryResult
	testmcp.MustCall(t, ac, actx, "history", map[string]any{"path": "tech/out.md"}, &out)
	leaks("history of a note moved out of a private folder", out)
	if len(out.Commits) != 1 || out.Commits[0].Kind != repo.EventMoved || out.Commits[0].From != "" ||
		len(out.Commits[0].Paths) != 1 || out.Commits[0].Paths[0] != "tech/out.md" {
		t.Fatalf("history of tech/out.md to an agent: %+v", out.Commits)
	}
	var left mcp.HistoryResult
	testmcp.MustCall(t, ac, actx, "history", map[string]any{"path": "tech/pub.md"}, &left)
	leaks("history of a note moved into a private folder", left)
	if len(left.Commits) != 2 || left.Commits[0].Kind != repo.EventMoved || left.Commits[0].To != "" || left.Commits[0].Path != "tech/pub.md" {
		t.Fatalf("history of tech/pub.md to an agent: %+v", left.Commits)
	}
	var all mcp.HistoryResult
	testmcp.MustCall(t, ac, actx, "history", map[string]any{}, &all)
	leaks("the vault's history", all)

	var trusted mcp.HistoryResult
	testmcp.MustCall(t, tc, tctx, "history", map[string]any{"path": "tech/out.md"}, &trusted)
	if len(trusted.Commits) != 2 || trusted.Commits[0].From != "personal-notes/hideaway.md" || trusted.Commits[1].Path != "personal-notes/hideaway.md" {
		t.Fatalf("history of tech/out.md to a trusted caller: %+v", trusted.Commits)
	}
	testmcp.MustCall(t, tc, tctx, "history", map[string]any{"path": "tech/pub.md"}, &trusted)
	if len(trusted.Commits) != 2 || trusted.Commits[0].To != "personal-notes/in.md" {
		t.Fatalf("history of tech/pub.md to a trusted caller: %+v", trusted.Commits)
	}
	// The private note itself has no history for the agent.
	var none mcp.HistoryResult
	testmcp.MustCall(t, ac, actx, "history", map[string]any{"path": "personal-notes/in.md"}, &none)
	if len(none.Commits) != 0 {
		t.Fatalf("history of a private note to an agent: %+v", none.Commits)
	}
}

// TestMCP_ReadNoteAtDate: read_note's at takes a date or an RFC 3339 time (the
// last commit at or before it); a malformed date is invalid_input and one
// before the history not_found, and neither writes anything.
func TestMCP_ReadNoteAtDate(t *testing.T) {
	v, e := testmcp.NewEnv(t, map[string]string{"tech/a.md": "# A\n\nfirst\n"})
	c, ctx := e.Connect(&testmcp.Agent, false)
	first := v.Revision("tech/a.md")
	testmcp.MustCall(t, c, ctx, "edit_note", map[string]any{"path": "tech/a.md", "op": "append", "content": "more\n",
		"expected_revision": string(first)}, nil)
	head := v.Head()
	for _, at := range []string{"2999-12-31", "2999-12-31T00:00:00Z"} {
		var r mcp.ReadNoteResult
		testmcp.MustCall(t, c, ctx, "read_note", map[string]any{"path": "tech/a.md", "at": at}, &r)
		if r.Commit != head || r.Revision != v.Revision("tech/a.md") {
			t.Fatalf("read at %s: commit %s revision %s, want HEAD's", at, r.Commit, r.Revision)
		}
	}
	te := testmcp.WantError(t, c, ctx, "read_note", map[string]any{"path": "tech/a.md", "at": "2026-02-30"}, mcp.CodeInvalidInput, mcp.ClassFixInput)
	if !strings.Contains(te.Message, "YYYY-MM-DD") {
		t.Fatalf("a bad date's message does not say what is accepted: %s", te.Message)
	}
	testmcp.WantError(t, c, ctx, "read_note", map[string]any{"path": "tech/a.md", "at": "2000-01-01"}, mcp.CodeNotFound, mcp.ClassFixInput)
	if v.Head() != head || v.Revision(note.Path("tech/a.md")) == first {
		t.Fatal("a read changed the vault")
	}
}
