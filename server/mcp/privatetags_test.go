package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/internal/testvault"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/server/mcp"
	"github.com/norn-vault/norn/vault"
)

// TestMCP_PrivateTags: privacy.tags is part of the one privacy rule. Setting it
// re-judges the notes already there (the index is rebuilt; search, read, list,
// links, graph, history, resources and the change feed hide a note that carries
// the tag from a reader without the private scope), and a public note that gains
// the tag by an edit is hidden from then on, while its revisions from before the
// edit stay readable, as for a note made private by `private: true`.
func TestMCP_PrivateTags(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{
		"tech/plan.md":  "---\ntitle: Nightjar plan\ntags: [work, Hush]\n---\n# Nightjar plan\nquokka budget.\n",
		"tech/open.md":  "# Open\nSee [[Nightjar plan]] and [[Later note]]. quokka open.\n",
		"tech/later.md": "---\ntitle: Later note\n---\n# Later note\nquokka later.\n",
	}
	v, e := testmcp.NewEnv(t, files)
	reader, rctx := e.Connect(&testmcp.Agent, false)
	trusted, tctx := e.Connect(&testmcp.Trusted, false)
	answer := func(c *client.Client, ctx context.Context, tool string, args map[string]any) string {
		t.Helper()
		var out json.RawMessage
		if te := testmcp.CallTool(t, c, ctx, tool, args, &out); te != nil {
			return string(te.Code) + ": " + te.Message
		}
		return string(out)
	}
	// views are the reader's answers that would name a note it may see.
	views := func() []string {
		return []string{
			answer(reader, rctx, "search", map[string]any{"query": "quokka", "wait_for_pending_writes": true}),
			answer(reader, rctx, "list_notes", map[string]any{"titles": true}),
			answer(reader, rctx, "links", map[string]any{"path": "tech/open.md"}),
			answer(reader, rctx, "graph_neighborhood", map[string]any{"path": "tech/open.md"}),
		}
	}
	hiddenNow := func(p, title string, always bool) {
		t.Helper()
		vs := views()
		if always { // private in every revision: history never names it
			vs = append(vs, answer(reader, rctx, "history", nil), answer(reader, rctx, "vault_map", nil))
		}
		for _, a := range vs {
			if strings.Contains(a, p) {
				t.Fatalf("the reader is told of %s: %s", p, a)
			}
		}
		if a := answer(reader, rctx, "list_notes", map[string]any{"titles": true}); strings.Contains(a, title) {
			t.Fatalf("the reader is told the title %q: %s", title, a)
		}
		testmcp.WantError(t, reader, rctx, "read_note", map[string]any{"path": p}, mcp.CodeNotFound, "")
		if _, err := reader.ReadResource(rctx, mcpgo.ReadResourceRequest{Params: mcpgo.ReadResourceParams{URI: mcp.NoteURI(note.Path(p))}}); err == nil {
			t.Fatalf("the reader read the resource of %s", p)
		}
		if a := answer(trusted, tctx, "read_note", map[string]any{"path": p}); !strings.Contains(a, title) {
			t.Fatalf("the trusted principal cannot read %s: %s", p, a)
		}
	}
	seenNow := func(p, title string) {
		t.Helper()
		if a := answer(reader, rctx, "search", map[string]any{"query": "quokka", "wait_for_pending_writes": true}); !strings.Contains(a, p) {
			t.Fatalf("the reader does not find %s: %s", p, a)
		}
		if a := answer(reader, rctx, "read_note", map[string]any{"path": p}); !strings.Contains(a, title) {
			t.Fatalf("the reader cannot read %s: %s", p, a)
		}
	}
	// No private tags yet: the tag is only a tag.
	seenNow("tech/plan.md", "Nightjar plan")
	before := v.Head()

	// The setting re-judges the note already there.
	if err := testvault.Write(v, string(vault.ConfigPath), "gates:\n  profile: default\nprivacy:\n  tags: [hush]\n", "owner"); err != nil {
		t.Fatal(err)
	}
	// Before the maintainer reconfigures the index (its bits judged without
	// the tag), the note is hidden all the same.
	hiddenNow("tech/plan.md", "Nightjar plan", true)
	m := &vault.Maintainer{Vault: v}
	if err := m.Round(ctx); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		hiddenNow("tech/plan.md", "Nightjar plan", true)
		r, err := v.Index.Search(ctx, vault.SearchRequest{Query: "quokka", Limit: 10, HidePrivate: true})
		if err != nil {
			t.Fatal(err)
		}
		if r.Engine == vault.EngineBM25 {
			break // rebuilt under the new tags (and hiding the note all along)
		}
		if time.Now().After(deadline) {
			t.Fatalf("index not back after the privacy change: %+v", r)
		}
	}
	seenNow("tech/later.md", "Later note")

	// A public note tagged by an edit (inline): hidden from then on, its old
	// revision still readable; the feed tells the reader it went away.
	oldRev := string(v.Revision("tech/later.md"))
	var w mcp.WriteResult
	testmcp.MustCall(t, trusted, tctx, "edit_note", map[string]any{"path": "tech/later.md", "op": "append",
		"content": "Filed under #hush/2026.\n", "expected_revision": oldRev}, &w)
	hiddenNow("tech/later.md", "Later note", false)
	// Its history before the edit stays (the import still lists it); the edit
	// that tagged it is not shown.
	if a := answer(reader, rctx, "history", nil); strings.Contains(a, string(w.Commit)) || !strings.Contains(a, "tech/later.md") {
		t.Fatalf("the reader's history after the note was tagged: %s", a)
	}
	if a := answer(reader, rctx, "read_note", map[string]any{"path": "tech/later.md", "at": oldRev}); !strings.Contains(a, "quokka later") {
		t.Fatalf("the revision from before the tag: %s", a)
	}
	out, raw := waitChanges(t, reader, rctx, map[string]any{"since": string(before), "timeout": 0})
	if strings.Contains(raw, "tech/plan.md") || strings.Contains(raw, string(w.Revision)) || out.Cursor != w.Commit {
		t.Fatalf("wait_for_changes tells of the tagged note or stops short: %s", raw)
	}
	if last := out.Messages[len(out.Messages)-1]; last.Commit != w.Commit || strings.Join(eventChanges(last), ",") != "archived tech/later.md" {
		t.Fatalf("the edit that tagged the note, as the reader sees it: %+v", last)
	}
	all, _ := waitChanges(t, trusted, tctx, map[string]any{"since": string(before), "timeout": 0})
	if last := all.Messages[len(all.Messages)-1]; strings.Join(eventChanges(last), ",") != "modified tech/later.md" {
		t.Fatalf("the trusted principal's view of the edit: %+v", last)
	}
}
