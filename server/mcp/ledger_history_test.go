package mcp_test

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
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

// twinContents returns two note contents whose blob ids share their first
// repo.MinPrefix hex digits (a birthday search over a few tens of thousands).
func twinContents(t *testing.T) (string, string) {
	t.Helper()
	seen := map[string]string{}
	for i := 0; i < 1<<22; i++ {
		c := fmt.Sprintf("# Twin\n\nversion %d\n", i)
		h := sha1.New()
		fmt.Fprintf(h, "blob %d\x00%s", len(c), c)
		k := hex.EncodeToString(h.Sum(nil))[:repo.MinPrefix]
		if o, ok := seen[k]; ok {
			return o, c
		}
		seen[k] = c
	}
	t.Fatal("no twins found")
	return "", ""
}

// TestMCP_RestoreShortRevision: restore_note takes the revision list_archived
// printed, or its first 7 digits, and brings back the same bytes; a prefix two of
// the note's revisions share is invalid_input naming both, and one of another
// note (a private one) not_found; neither writes anything.
func TestMCP_RestoreShortRevision(t *testing.T) {
	a, b := twinContents(t)
	v, e := testmcp.NewEnv(t, map[string]string{"tech/twin.md": a, "personal-notes/p.md": "# P\n"})
	c, ctx := e.Connect(&testmcp.Agent, false)
	testmcp.MustCall(t, c, ctx, "write_note", map[string]any{"path": "tech/twin.md", "content": b, "expected_revision": string(v.Revision("tech/twin.md"))}, nil)
	last := "# Twin\n\nthe last\n"
	testmcp.MustCall(t, c, ctx, "write_note", map[string]any{"path": "tech/twin.md", "content": last, "expected_revision": string(v.Revision("tech/twin.md"))}, nil)
	lastRev := v.Revision("tech/twin.md")
	priv := v.Revision("personal-notes/p.md")
	testmcp.MustCall(t, c, ctx, "archive_note", map[string]any{"path": "tech/twin.md", "reason": "archived"}, nil)
	var l mcp.ListArchivedResult
	testmcp.MustCall(t, c, ctx, "list_archived", map[string]any{}, &l)
	if len(l.Archived) != 1 || l.Archived[0].Revision != lastRev || l.Archived[0].Reason != repo.ReasonArchived {
		t.Fatalf("list_archived: %+v", l)
	}
	head := v.Head()
	twin := string(blobRev(a))[:repo.MinPrefix]
	te := testmcp.WantError(t, c, ctx, "restore_note", map[string]any{"path": "tech/twin.md", "revision": twin}, mcp.CodeInvalidInput, mcp.ClassFixInput)
	if !strings.Contains(te.Message, "ambiguous") || !strings.Contains(te.Message, string(blobRev(a))) || !strings.Contains(te.Message, string(blobRev(b))) {
		t.Fatalf("ambiguous prefix: %s", te.Message)
	}
	testmcp.WantError(t, c, ctx, "restore_note", map[string]any{"path": "tech/twin.md", "revision": string(priv)[:10]}, mcp.CodeNotFound, mcp.ClassFixInput)
	testmcp.WantError(t, c, ctx, "restore_note", map[string]any{"path": "tech/twin.md", "revision": "abc"}, mcp.CodeInvalidInput, mcp.ClassFixInput)
	if v.Head() != head {
		t.Fatal("a refused restore wrote a commit")
	}
	var w mcp.WriteResult
	testmcp.MustCall(t, c, ctx, "restore_note", map[string]any{"path": "tech/twin.md", "revision": string(lastRev)[:repo.MinPrefix]}, &w)
	if w.Revision != lastRev || v.Revision("tech/twin.md") != lastRev {
		t.Fatalf("restore by short revision: %+v", w)
	}
	testmcp.MustCall(t, c, ctx, "list_archived", map[string]any{}, &l)
	if len(l.Archived) != 0 || l.Total != 0 {
		t.Fatalf("a restored note is still in the catalog: %+v", l)
	}
}

// blobRev is the git blob id of content.
func blobRev(content string) repo.Revision {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00%s", len(content), content)
	return repo.Revision(hex.EncodeToString(h.Sum(nil)))
}
