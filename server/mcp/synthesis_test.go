package mcp_test

import (
	"strings"
	"testing"

	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/server/mcp"
	"github.com/norn-vault/norn/vault"
)

// TestMCP_Synthesis: an agent registers a summary over MCP; synthesis_status,
// read_note and search answer current, then stale with the drifted source once
// it is edited; a private source is never named to an agent without the
// private scope; bad arguments are fix_input errors that write nothing.
func TestMCP_Synthesis(t *testing.T) {
	files := map[string]string{"sum/overview.md": "# Overview\nzebra overview of the sketches.\n"}
	for p, c := range testmcp.Fixture {
		files[p] = c
	}
	v, e := testmcp.NewEnv(t, files)
	owner, ctx := e.Connect(&testmcp.Owner, false)
	var reg mcp.SynthesisRegistered
	testmcp.MustCall(t, owner, ctx, "register_synthesis", map[string]any{"summary": "sum/overview.md",
		"sources": []string{"tech/bloom.md", "tech/cms.md", "tech/secret.md"}}, &reg)
	if reg.File != ".norn/synthesis/sum/overview.md.yaml" || len(reg.Sources) != 3 || reg.Commit == "" {
		t.Fatalf("register: %+v", reg)
	}
	if log := testmcp.Git(t, v.Dir(), "log", "-1", "--format=%an|%(trailers:key=Norn-Op,valueonly)"); strings.TrimSpace(log) != "Ada|claim" {
		t.Fatalf("commit: %q", log)
	}
	agent, actx := e.Connect(&testmcp.Agent, false)
	var st mcp.SynthesisStatusResult
	testmcp.MustCall(t, agent, actx, "synthesis_status", map[string]any{"summary": "sum/overview.md"}, &st)
	if st.Status != vault.SynthesisCurrent || st.Scope != vault.ScopeVisible || st.Checked != 2 || st.Budget == nil || st.Budget.Checks != 128 {
		t.Fatalf("agent's status: %+v", st)
	}
	// The owner edits the private source and a public one.
	var w mcp.WriteResult
	testmcp.MustCall(t, owner, ctx, "edit_note", map[string]any{"path": "tech/secret.md", "op": "append", "content": "more\n",
		"expected_revision": string(v.Revision("tech/secret.md"))}, &w)
	testmcp.MustCall(t, owner, ctx, "edit_note", map[string]any{"path": "tech/cms.md", "op": "append", "content": "more\n",
		"expected_revision": string(v.Revision("tech/cms.md"))}, &w)
	testmcp.MustCall(t, agent, actx, "synthesis_status", map[string]any{"summary": "sum/overview.md"}, &st)
	if st.Status != vault.SynthesisStale || len(st.Drifted) != 1 || st.Drifted[0].Path != "tech/cms.md" || st.Drifted[0].NewRevision != w.Revision {
		t.Fatalf("agent's stale status: %+v", st)
	}
	testmcp.MustCall(t, owner, ctx, "synthesis_status", map[string]any{"summary": "sum/overview.md"}, &st)
	if st.Status != vault.SynthesisStale || len(st.Drifted) != 2 || st.Scope != vault.ScopeAll {
		t.Fatalf("owner's stale status: %+v", st)
	}
	var rn mcp.ReadNoteResult
	testmcp.MustCall(t, agent, actx, "read_note", map[string]any{"path": "sum/overview.md"}, &rn)
	if rn.Synthesis == nil || rn.Synthesis.Status != vault.SynthesisStale || rn.SynthesisBudget == nil || rn.SynthesisBudget.UsedChecks != 2 {
		t.Fatalf("read_note: %+v %+v", rn.Synthesis, rn.SynthesisBudget)
	}
	var plain mcp.ReadNoteResult
	testmcp.MustCall(t, agent, actx, "read_note", map[string]any{"path": "tech/cms.md"}, &plain)
	if plain.Synthesis != nil || plain.SynthesisBudget != nil {
		t.Fatalf("read_note of a note that is no summary: %+v", plain.Synthesis)
	}
	var sr mcp.SearchResult
	testmcp.MustCall(t, agent, actx, "search", map[string]any{"query": "zebra"}, &sr)
	var found bool
	for _, h := range sr.Hits {
		if h.Path == "sum/overview.md" {
			found = h.Synthesis != nil && h.Synthesis.Status == vault.SynthesisStale && sr.SynthesisBudget != nil
		} else if h.Synthesis != nil {
			t.Fatalf("hit %s carries a synthesis status", h.Path)
		}
	}
	if !found {
		t.Fatalf("search hits: %+v", sr.Hits)
	}
	// The registration file names a private source: the agent cannot read it, nor
	// see it in history (its only path: the commit is not listed).
	testmcp.WantError(t, agent, actx, "read_note", map[string]any{"path": ".norn/synthesis/sum/overview.md.yaml"}, mcp.CodeNotFound, mcp.ClassFixInput)
	var hist struct {
		Commits []struct {
			Paths []string `json:"paths"`
		} `json:"commits"`
	}
	testmcp.MustCall(t, agent, actx, "history", map[string]any{"limit": 100}, &hist)
	for _, c := range hist.Commits {
		for _, p := range c.Paths {
			if strings.HasPrefix(p, ".norn/synthesis/") {
				t.Fatalf("history shows %s to the agent", p)
			}
		}
	}
	head := v.Head()
	testmcp.WantError(t, agent, actx, "register_synthesis", map[string]any{"summary": "sum/overview.md", "sources": []string{"tech/secret.md"}},
		mcp.CodeNotFound, mcp.ClassFixInput)
	testmcp.WantError(t, agent, actx, "register_synthesis", map[string]any{"summary": "sum/overview.md", "sources": []string{"sum/overview.md"}},
		mcp.CodeInvalidInput, mcp.ClassFixInput)
	testmcp.WantError(t, agent, actx, "register_synthesis", map[string]any{"summary": "sum/overview.md", "sources": []string{}},
		mcp.CodeInvalidInput, mcp.ClassFixInput)
	testmcp.WantError(t, agent, actx, "synthesis_status", map[string]any{"summary": "tech/secret.md"}, mcp.CodeNotFound, mcp.ClassFixInput)
	reader, rctx := e.Connect(&testmcp.Reader, false)
	testmcp.WantError(t, reader, rctx, "register_synthesis", map[string]any{"summary": "sum/overview.md", "sources": []string{"tech/cms.md"}},
		mcp.CodeForbidden, mcp.ClassFatal)
	if v.Head() != head {
		t.Fatal("a refused registration committed")
	}
}
