package mcp_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/mark3labs/mcp-go/client"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/server/mcp"
	"github.com/norn-vault/norn/vault"
)

// TestMCP_WriteReportsRelinkedLinks: a write that makes existing links in other
// notes resolve differently says which, so that it is never silent: a new note
// whose file name is another's title takes its links, a second note of the same
// name makes them ambiguous, a removed heading or a new title loses them. Links
// in notes the caller may not see are left out; appending a section, or creating
// a note that only resolves broken links, reports nothing.
func TestMCP_WriteReportsRelinkedLinks(t *testing.T) {
	v, e := testmcp.NewEnv(t, map[string]string{
		"people/jdoe.md": "---\ntitle: John Doe\n---\n# John Doe\n\n## Bio\nBorn.\n",
		"a.md":           "# A\nSee [[John Doe]] and [[jdoe#Bio]].\n",
		"c.md":           "# C\nNot yet: [[Nothing here]].\n",
		"secret/p.md":    "---\ntitle: P\nprivate: true\n---\n# P\nAbout [[John Doe]].\n",
	})
	agent, ctx := e.Connect(&testmcp.Agent, false)
	trusted, tctx := e.Connect(&testmcp.Trusted, false)
	head := v.Head()
	call := func(c *client.Client, ctx context.Context, tool string, args map[string]any) mcp.WriteResult {
		t.Helper()
		var w mcp.WriteResult // fresh: decoding leaves fields a result omits alone
		testmcp.MustCall(t, c, ctx, tool, args, &w)
		return w
	}
	took := vault.Relink{From: "a.md", Line: 2, Link: "[[John Doe]]", Was: "people/jdoe.md", Status: graph.LinkResolved, To: "John Doe.md"}

	w := call(agent, ctx, "write_note", map[string]any{"path": "John Doe.md", "content": "# John Doe\nAnother one.\n", "dry_run": true})
	if !reflect.DeepEqual(w.Relinked, []vault.Relink{took}) || w.RelinkedTotal != 1 {
		t.Fatalf("dry run of a note taking over a title's links: %+v", w.Relinked)
	}
	w = call(trusted, tctx, "write_note", map[string]any{"path": "John Doe.md", "content": "# John Doe\nAnother one.\n", "dry_run": true})
	hiddenToo := vault.Relink{From: "secret/p.md", Line: 6, Link: "[[John Doe]]", Was: "people/jdoe.md", Status: graph.LinkResolved, To: "John Doe.md"}
	if !reflect.DeepEqual(w.Relinked, []vault.Relink{took, hiddenToo}) {
		t.Fatalf("the same for a caller who sees private notes: %+v", w.Relinked)
	}

	w = call(agent, ctx, "write_note", map[string]any{"path": "other/jdoe.md", "content": "# Other\n", "dry_run": true})
	amb := []vault.Relink{{From: "a.md", Line: 2, Link: "[[jdoe#Bio]]", Was: "people/jdoe.md", Status: graph.LinkAmbiguous, Candidates: []note.Path{"other/jdoe.md", "people/jdoe.md"}}}
	if !reflect.DeepEqual(w.Relinked, amb) {
		t.Fatalf("a second note of the same name: %+v", w.Relinked)
	}

	w = call(agent, ctx, "write_note", map[string]any{"path": "Nothing here.md", "content": "# Nothing here\n", "dry_run": true})
	if w.Relinked != nil {
		t.Fatalf("a note that only resolves a broken link: %+v", w.Relinked)
	}

	rev := string(v.Revision("people/jdoe.md"))
	ed := call(agent, ctx, "edit_note", map[string]any{"path": "people/jdoe.md", "op": "append", "content": "## More\nLater.\n", "expected_revision": rev, "dry_run": true})
	if ed.Relinked != nil {
		t.Fatalf("appending a section: %+v", ed.Relinked)
	}
	ed = call(agent, ctx, "edit_note", map[string]any{"path": "people/jdoe.md", "op": "find_replace", "find": "## Bio", "replace": "## Biography", "expected_revision": rev, "dry_run": true})
	lost := []vault.Relink{{From: "a.md", Line: 2, Link: "[[jdoe#Bio]]", Was: "people/jdoe.md", Status: graph.LinkResolved, To: "people/jdoe.md", HeadingMissing: true}}
	if !reflect.DeepEqual(ed.Relinked, lost) {
		t.Fatalf("renaming a heading: %+v", ed.Relinked)
	}
	w = call(agent, ctx, "write_note", map[string]any{"path": "people/jdoe.md", "content": "---\ntitle: Jane Doe\n---\n# Jane Doe\n\n## Bio\nBorn.\n", "expected_revision": rev, "dry_run": true})
	broken := []vault.Relink{{From: "a.md", Line: 2, Link: "[[John Doe]]", Was: "people/jdoe.md", Status: graph.LinkBroken}}
	if !reflect.DeepEqual(w.Relinked, broken) {
		t.Fatalf("a new title: %+v", w.Relinked)
	}
	if v.Head() != head {
		t.Fatal("a dry run committed")
	}

	// The write itself reports the same, and the links now say so.
	w = call(agent, ctx, "write_note", map[string]any{"path": "John Doe.md", "content": "# John Doe\nAnother one.\n"})
	if w.Commit == "" || !reflect.DeepEqual(w.Relinked, []vault.Relink{took}) {
		t.Fatalf("the write: %+v", w)
	}
	links, err := vault.NoteLinks(ctx, v, "a.md", 10)
	if err != nil || len(links.Outgoing) == 0 || links.Outgoing[0].To != "John Doe.md" {
		t.Fatalf("a.md's links after the write: %+v %v", links, err)
	}
}
