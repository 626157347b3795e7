package mcp_test

import (
	"strings"
	"testing"

	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/server/mcp"
)

// TestMCP_WriteNote_Unchanged: write_note and edit_note of a note's current bytes
// commit nothing and say so, with the note's revision.
func TestMCP_WriteNote_Unchanged(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	c, ctx := e.Connect(&testmcp.Agent, true)
	content := "---\ntitle: New\n---\n# New\nBody.\n"
	var w mcp.WriteResult
	testmcp.MustCall(t, c, ctx, "write_note", map[string]any{"path": "tech/new.md", "content": content}, &w)
	head := v.Head()
	commits := testmcp.Git(t, v.Dir(), "rev-list", "--count", "HEAD")
	for _, dry := range []bool{true, false} {
		var again mcp.WriteResult
		testmcp.MustCall(t, c, ctx, "write_note", map[string]any{"path": "tech/new.md", "content": content, "expected_revision": string(w.Revision), "dry_run": dry}, &again)
		if !again.Unchanged || again.Commit != "" || len(again.Changes) != 0 || again.Revision != w.Revision || again.Parent != head {
			t.Fatalf("no-op write (dry run %v): %+v", dry, again)
		}
		var ed mcp.WriteResult
		testmcp.MustCall(t, c, ctx, "edit_note", map[string]any{"path": "tech/new.md", "op": "find_replace", "find": "Body.", "replace": "Body.", "expected_revision": string(w.Revision), "dry_run": dry}, &ed)
		if !ed.Unchanged || ed.Commit != "" || len(ed.Changes) != 0 || ed.Revision != w.Revision {
			t.Fatalf("no-op edit (dry run %v): %+v", dry, ed)
		}
	}
	if v.Head() != head || testmcp.Git(t, v.Dir(), "rev-list", "--count", "HEAD") != commits {
		t.Fatalf("a no-op write committed:\n%s", testmcp.Git(t, v.Dir(), "log", "--stat", "-2"))
	}
	if st := testmcp.Git(t, v.Dir(), "status", "--porcelain"); strings.TrimSpace(st) != "" {
		t.Fatalf("git status:\n%s", st)
	}
}
