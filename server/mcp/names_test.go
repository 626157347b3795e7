package mcp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/server/mcp"
)

// unportableNames are the names a clone on Windows or macOS could not check out,
// each with the rule that refuses it as a new path, beside a vault holding
// "Case/Foo.md".
var unportableNames = []struct{ path, rule string }{
	{"CON.md", "path-portable"},
	{"nul.md", "path-portable"},
	{"aux/x.md", "path-portable"},
	{"COM1.md", "path-portable"},
	{"a:b.md", "path-absolute"}, // "a:" is a Windows drive
	{"ab:c.md", "path-portable"},
	{"x?.md", "path-portable"},
	{"x*.md", "path-portable"},
	{"a<b>.md", "path-portable"},
	{"a|b.md", "path-portable"},
	{`a"b.md`, "path-portable"},
	{"Case/foo.md", "path-case-collision"},
	{"case/Foo.md", "path-case-collision"},
	{"CASE/new.md", "path-case-collision"},
	{"cafe\u0301.md", "path-case-collision"}, // beside the composed "café.md"
	{"rtl\u202eoverride.md", "path-portable"},
	{"zero\u200bwidth.md", "path-portable"},
	{"line\u2028sep.md", "path-portable"},
	{" m/space.md", "path-portable"},
	{"m/space.md ", "path-not-markdown"},
	{"trail./x.md", "path-portable"},
	{"../x.md", "path-dotdot"},
	{".git/x.md", "path-git-dir"},
}

// TestMCP_UnportableNamesAreGateRejections: every name of unportableNames, as
// write_note's, file_note's and restore_note's path and as move_note's to, is a
// gate rejection naming its path-* rule (as the CLI's exit 4), the path taken as
// given (no trimming); nothing is written: HEAD, git's index, the working tree and
// the search index stay as they were. A NUL byte in a note is content-nul.
func TestMCP_UnportableNamesAreGateRejections(t *testing.T) {
	ctx := context.Background()
	v, e := testmcp.NewEnv(t, map[string]string{"Case/Foo.md": "# Foo\n", "caf\u00e9.md": "# Café\n", "src.md": "# Src\n"})
	c, cctx := e.Connect(&testmcp.Owner, true)
	if err := v.Index.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	head, stage := v.Head(), testmcp.Git(t, v.Dir(), "ls-files", "--stage")
	indexed, _ := v.Index.Status()
	rules := func(te *mcp.ToolError) []string {
		var out []string
		for _, vi := range te.Violations {
			out = append(out, vi.Rule)
		}
		return out
	}
	for _, tt := range unportableNames {
		for _, dry := range []bool{false, true} {
			calls := []struct {
				tool string
				args map[string]any
			}{
				{"write_note", map[string]any{"path": tt.path, "content": "# X\n", "dry_run": dry}},
				{"file_note", map[string]any{"path": tt.path, "content": "# X\n", "dry_run": dry}},
				{"restore_note", map[string]any{"path": tt.path, "revision": string(v.Revision("src.md")), "dry_run": dry}},
				{"move_note", map[string]any{"from": "src.md", "to": tt.path, "dry_run": dry}},
			}
			for _, call := range calls {
				te := testmcp.WantError(t, c, cctx, call.tool, call.args, mcp.CodeGateRejected, mcp.ClassFixInput)
				if got := rules(te); len(got) == 0 || !strings.Contains(strings.Join(got, " "), tt.rule) {
					t.Errorf("%s %q: rules %v, want %s", call.tool, tt.path, got, tt.rule)
				}
			}
		}
	}
	te := testmcp.WantError(t, c, cctx, "write_note", map[string]any{"path": "nul-byte.md", "content": "# N\nbefore\x00after\n"}, mcp.CodeGateRejected, mcp.ClassFixInput)
	if got := rules(te); len(got) != 1 || got[0] != "content-nul" || te.Violations[0].Line != 2 || !strings.Contains(te.Message, "byte offset 10") {
		t.Fatalf("NUL: %+v", te)
	}
	if v.Head() != head || testmcp.Git(t, v.Dir(), "ls-files", "--stage") != stage || testmcp.Git(t, v.Dir(), "status", "--porcelain", "--untracked-files=all") != "" {
		t.Fatal("a refused write changed the vault")
	}
	if now, _ := v.Index.Status(); now != indexed {
		t.Fatalf("the index moved from %s to %s", indexed, now)
	}
	if _, err := os.Stat(filepath.Join(v.Dir(), "m")); !os.IsNotExist(err) {
		t.Fatalf("\" m/space.md\" was trimmed and written: %v", err)
	}
}

// TestMCP_ExistingUnportableNotesStayUsable: notes committed with such names by
// other means are edited, archived and moved to a good name (the path taken as
// given: " lead.md" is not "lead.md").
func TestMCP_ExistingUnportableNotesStayUsable(t *testing.T) {
	v, e := testmcp.NewEnv(t, map[string]string{"CON.md": "# Con\n", "x?.md": "# Q\n", " lead.md": "# Lead\n", "Case/Foo.md": "# A\n", "case/foo.md": "# B\n"})
	c, cctx := e.Connect(&testmcp.Owner, true)
	testmcp.MustCall(t, c, cctx, "write_note", map[string]any{"path": " lead.md", "content": "# Lead\nmore\n", "expected_revision": string(v.Revision(" lead.md"))}, nil)
	testmcp.MustCall(t, c, cctx, "edit_note", map[string]any{"path": "CON.md", "op": "append", "content": "more", "expected_revision": string(v.Revision("CON.md"))}, nil)
	testmcp.MustCall(t, c, cctx, "write_note", map[string]any{"path": "case/foo.md", "content": "# B\nmore\n", "expected_revision": string(v.Revision("case/foo.md"))}, nil)
	testmcp.MustCall(t, c, cctx, "move_note", map[string]any{"from": "x?.md", "to": "question.md"}, nil)
	testmcp.MustCall(t, c, cctx, "archive_note", map[string]any{"path": "CON.md", "reason": "archived"}, nil)
	testmcp.MustCall(t, c, cctx, "move_note", map[string]any{"from": "case/foo.md", "to": "case-b/foo.md"}, nil)
	var read struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	testmcp.MustCall(t, c, cctx, "read_note", map[string]any{"path": " lead.md"}, &read)
	if read.Path != " lead.md" || read.Content != "# Lead\nmore\n" {
		t.Fatalf("read_note \" lead.md\": %+v", read)
	}
	if v.Revision("question.md") == "" || v.Revision("CON.md") != "" || v.Revision("case-b/foo.md") == "" {
		t.Fatal("the moves and the archive did not land")
	}
	if st := testmcp.Git(t, v.Dir(), "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Fatalf("git status: %s", st)
	}
}
