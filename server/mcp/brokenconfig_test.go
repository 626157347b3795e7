package mcp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server/mcp"
	"github.com/norn-vault/norn/vault"
)

// TestMCP_BrokenConfigFailsClosed: a .norn/config.yaml that does not parse (a hand
// edit, a pull) leaves which folders are private unknown. Under the defaults a note
// in the broken file's private folder would show, so a caller without the private
// scope is refused by every tool (without a word of the file: a folder's name may
// be private), an agent's write is refused by the gates, and a caller with the scope
// works on. A write that fixes the file passes, and then everything is as before.
func TestMCP_BrokenConfigFailsClosed(t *testing.T) {
	ctx := context.Background()
	v, e := testmcp.NewEnv(t, map[string]string{"secret/plan.md": "# Nightjar plan\n", "pub.md": "# Pub\n"})
	git := func(args ...string) { testmcp.Git(t, v.Dir(), args...) }
	setConfig := func(body string) {
		if err := os.WriteFile(filepath.Join(v.Dir(), ".norn", "config.yaml"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		git("add", ".norn/config.yaml")
		git("commit", "-q", "-m", "config")
		if err := v.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
	}
	setConfig("privacy:\n  folders: [secret/]\n")
	reader, rctx := e.Connect(&testmcp.Reader, true)
	var res struct {
		Total int `json:"total"`
	}
	testmcp.MustCall(t, reader, rctx, "search", map[string]any{"query": "nightjar", "wait_for_pending_writes": true}, &res)
	if res.Total != 0 {
		t.Fatalf("a private note found by a reader: total %d", res.Total)
	}

	setConfig("privacy:\n  folders: [secret/\n") // does not parse
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"search", map[string]any{"query": "nightjar"}},
		{"read_note", map[string]any{"path": "secret/plan.md"}},
		{"list_notes", map[string]any{"folder": "secret"}},
	} {
		te := testmcp.WantError(t, reader, rctx, call.tool, call.args, mcp.CodeForbidden, mcp.ClassFatal)
		if strings.Contains(te.Message, "secret") || !strings.Contains(te.Message, "do not parse") {
			t.Fatalf("%s: %s", call.tool, te.Message)
		}
	}
	agent, actx := e.Connect(&testmcp.Agent, true)
	head := v.Head()
	for _, args := range []map[string]any{
		{"path": "secret/plan.md", "content": "# Overwritten\n"},
		{"path": "new.md", "content": "# New\n"},
	} {
		testmcp.WantError(t, agent, actx, "write_note", args, mcp.CodeForbidden, mcp.ClassFatal)
	}
	if v.Head() != head {
		t.Fatal("a refused write moved HEAD")
	}
	// The gates refuse an agent's write the same way, whatever surface it comes from.
	tx := repo.Tx{Author: repo.Author{Name: "agent"}, Roles: []string{hooks.RoleAgent}, Op: repo.OpWrite,
		Changes: []repo.Change{{Kind: repo.Put, Path: "agent-new.md", Content: []byte("# New\n")}}}
	if _, err := v.Apply(ctx, tx); err == nil || !strings.Contains(err.Error(), "config-invalid") {
		t.Fatalf("agent write under a broken config: %v", err)
	}
	trusted, tctx := e.Connect(&testmcp.Trusted, true)
	testmcp.MustCall(t, trusted, tctx, "read_note", map[string]any{"path": "secret/plan.md"}, nil)

	// The owner fixes the file; a reader sees the vault as before.
	owner, octx := e.Connect(&testmcp.Owner, true)
	testmcp.MustCall(t, owner, octx, "write_note", map[string]any{"path": ".norn/config.yaml", "content": "privacy:\n  folders: [secret/]\n",
		"expected_revision": string(v.Revision(vault.ConfigPath))}, nil)
	testmcp.MustCall(t, reader, rctx, "search", map[string]any{"query": "nightjar", "wait_for_pending_writes": true}, &res)
	if res.Total != 0 {
		t.Fatalf("after the fix, a private note found by a reader: total %d", res.Total)
	}
	testmcp.WantError(t, reader, rctx, "read_note", map[string]any{"path": "secret/plan.md"}, mcp.CodeNotFound, mcp.ClassFixInput)
}
