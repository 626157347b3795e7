package mcp_test

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server/mcp"
	"github.com/norn-vault/norn/vault"
)

func notePaths(refs []mcp.NoteRef) []string {
	var out []string
	for _, r := range refs {
		out = append(out, string(r.Path))
	}
	return out
}

func TestMCP_VaultMap(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	c, ctx := e.Connect(&testmcp.Agent, false)
	var m mcp.VaultMap
	testmcp.MustCall(t, c, ctx, "vault_map", nil, &m)
	if m.HeadCommit != string(v.Head()) || m.Notes != 6 || m.Inbox != "inbox/" {
		t.Fatalf("head/notes/inbox: %+v", m)
	}
	if got := notePaths(m.RootDocs); !slices.Equal(got, []string{"README.md", "big.md"}) || m.RootDocs[0].Title != "Readme" {
		t.Fatalf("root docs: %+v", m.RootDocs)
	}
	if len(m.Folders) != 3 || m.Folders[2] != (vault.Count{Name: "tech", Notes: 2}) {
		t.Fatalf("folders (the private folder and note hidden): %+v", m.Folders)
	}
	if len(m.Tags) != 2 || m.Tags[0] != (vault.Count{Name: "hashing", Notes: 2}) {
		t.Fatalf("tags: %+v", m.Tags)
	}
	if len(m.Recent) != 1 || m.Recent[0].Op != repo.OpImport || slices.Contains(m.Recent[0].Paths, "tech/secret.md") ||
		m.Recent[0].PathsTotal != 7 || m.Recent[0].Subject != "import "+strings.Join(notePathsOf(m.Recent[0].Paths), ", ") {
		t.Fatalf("recent (the import also added private notes: only the others, under a subject made of them): %+v", m.Recent)
	}
	var short mcp.VaultMap
	testmcp.MustCall(t, c, ctx, "vault_map", map[string]any{"folders": 1, "tags": 1}, &short)
	if !short.Truncated || len(short.Folders) != 1 || short.FoldersTotal != 3 || len(short.Tags) != 1 || short.TagsTotal != 2 {
		t.Fatalf("limits: %+v", short)
	}
	tc, tctx := e.Connect(&testmcp.Trusted, false)
	var all mcp.VaultMap
	testmcp.MustCall(t, tc, tctx, "vault_map", nil, &all)
	if all.Notes != 8 || all.FoldersTotal != 4 || all.Tags[0] != (vault.Count{Name: "hashing", Notes: 3}) || all.Recent[0].PathsTotal != 9 {
		t.Fatalf("trusted map: %+v", all)
	}
}

func TestMCP_Search(t *testing.T) {
	_, e := testmcp.NewEnv(t, testmcp.Fixture)
	c, ctx := e.Connect(&testmcp.Agent, false)
	var r mcp.SearchResult
	testmcp.MustCall(t, c, ctx, "search", map[string]any{"query": "hashing"}, &r)
	if r.Engine != vault.EngineBM25 || r.IndexStale || r.Total != 2 || len(r.Hits) != 2 || r.NextOffset != 0 {
		t.Fatalf("search: %+v", r)
	}
	for _, h := range r.Hits {
		if h.Path != "tech/bloom.md" && h.Path != "tech/cms.md" || h.Revision == "" || h.Title == "" {
			t.Fatalf("hit: %+v", h)
		}
	}
	var p1, p2 mcp.SearchResult
	testmcp.MustCall(t, c, ctx, "search", map[string]any{"query": "hashing", "limit": 1}, &p1)
	if len(p1.Hits) != 1 || p1.NextOffset != 1 {
		t.Fatalf("page 1: %+v", p1)
	}
	testmcp.MustCall(t, c, ctx, "search", map[string]any{"query": "hashing", "limit": 1, "offset": p1.NextOffset}, &p2)
	if len(p2.Hits) != 1 || p2.NextOffset != 0 || p2.Hits[0].Path == p1.Hits[0].Path {
		t.Fatalf("page 2: %+v after %+v", p2, p1)
	}
	var lit mcp.SearchResult
	testmcp.MustCall(t, c, ctx, "search", map[string]any{"query": "\"hash functions", "literal": true, "folder": "tech", "wait_for_pending_writes": true}, &lit)
	if lit.Total != 2 || lit.Hits[0].Path != "tech/bloom.md" || lit.Hits[0].Section != "Usage" || lit.IndexStale {
		t.Fatalf("literal: %+v", lit)
	}
	tc, tctx := e.Connect(&testmcp.Trusted, false)
	var all mcp.SearchResult
	testmcp.MustCall(t, tc, tctx, "search", map[string]any{"query": "hashing zebra"}, &all)
	if all.Total != 4 {
		t.Fatalf("trusted sees the private notes too: %+v", all)
	}
}

func TestMCP_ReadNote(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	c, ctx := e.Connect(&testmcp.Agent, false)
	var r mcp.ReadNoteResult
	testmcp.MustCall(t, c, ctx, "read_note", map[string]any{"path": "Bloom filters"}, &r)
	if r.Path != "tech/bloom.md" || r.ResolvedFrom != "Bloom filters" || r.Revision != v.Revision("tech/bloom.md") ||
		r.Commit != v.Head() || r.Title != "Bloom filters" || r.Content != testmcp.Fixture["tech/bloom.md"] || r.Truncated {
		t.Fatalf("by name: %+v", r)
	}
	if tags, _ := r.Frontmatter["tags"].([]any); len(tags) != 2 {
		t.Fatalf("frontmatter: %+v", r.Frontmatter)
	}
	for _, tc := range []struct {
		args          map[string]any
		path, content string
	}{
		{map[string]any{"path": "[[Bloom filters#Usage]]"}, "tech/bloom.md", "## Usage\nUse k hash functions.\n\n"},
		{map[string]any{"path": "tech/bloom.md", "section": "## Limits"}, "tech/bloom.md", "## Limits\nFalse positives.\n"},
		{map[string]any{"path": "cms"}, "tech/cms.md", testmcp.Fixture["tech/cms.md"]},
		{map[string]any{"path": "count-min SKETCH"}, "tech/cms.md", testmcp.Fixture["tech/cms.md"]},
		{map[string]any{"path": "tech/cms"}, "tech/cms.md", testmcp.Fixture["tech/cms.md"]},
	} {
		var got mcp.ReadNoteResult
		testmcp.MustCall(t, c, ctx, "read_note", tc.args, &got)
		if got.Path != note.Path(tc.path) || got.Content != tc.content {
			t.Fatalf("%v: %+v", tc.args, got)
		}
	}
	te := testmcp.WantError(t, c, ctx, "read_note", map[string]any{"path": "dup"}, mcp.CodeInvalidInput, mcp.ClassFixInput)
	if !slices.Equal(te.Candidates, []note.Path{"a/dup.md", "b/dup.md"}) {
		t.Fatalf("ambiguous: %+v", te)
	}
	testmcp.WantError(t, c, ctx, "read_note", map[string]any{"path": "No such note"}, mcp.CodeNotFound, mcp.ClassFixInput)
	te = testmcp.WantError(t, c, ctx, "read_note", map[string]any{"path": "tech/bloom.md", "section": "Nope"}, mcp.CodeNotFound, mcp.ClassFixInput)
	if !strings.Contains(te.Message, `"## Usage"`) {
		t.Fatalf("missing section should list the headings: %s", te.Message)
	}

	// Over the read budget: the outline with section sizes instead of the content.
	var big mcp.ReadNoteResult
	testmcp.MustCall(t, c, ctx, "read_note", map[string]any{"path": "big.md"}, &big)
	if !big.Truncated || big.Content != "" || big.Size != len(testmcp.Fixture["big.md"]) || len(big.Outline) != 4 || !strings.Contains(big.Notice, "max_bytes") {
		t.Fatalf("over budget: %+v", big)
	}
	total := 0
	for _, o := range big.Outline[1:] {
		if o.Level != 2 || o.Size < 9000 {
			t.Fatalf("outline entry: %+v", o)
		}
		total += o.Size
	}
	if big.Outline[0].Text != "Big" || big.Outline[0].Size != len(testmcp.Fixture["big.md"]) || total >= big.Size {
		t.Fatalf("outline: %+v", big.Outline)
	}
	var sec mcp.ReadNoteResult
	testmcp.MustCall(t, c, ctx, "read_note", map[string]any{"path": "big.md", "section": "Beta"}, &sec)
	if sec.Truncated || !strings.HasPrefix(sec.Content, "## Beta\n") || strings.Contains(sec.Content, "gamma") || sec.Size != big.Outline[2].Size {
		t.Fatalf("one section within budget: %+v", sec.Size)
	}
	var small mcp.ReadNoteResult
	testmcp.MustCall(t, c, ctx, "read_note", map[string]any{"path": "big.md", "section": "Beta", "max_bytes": 100}, &small)
	if !small.Truncated || len(small.Outline) != 1 || small.Outline[0].Text != "Beta" {
		t.Fatalf("section over budget: %+v", small)
	}
	var whole mcp.ReadNoteResult
	testmcp.MustCall(t, c, ctx, "read_note", map[string]any{"path": "big.md", "max_bytes": 1 << 20}, &whole)
	if whole.Truncated || whole.Content != testmcp.Fixture["big.md"] {
		t.Fatal("raised budget should give the content")
	}

	// at: an older commit, or a revision.
	first := v.Head()
	oldRev := r.Revision
	var w mcp.WriteResult
	testmcp.MustCall(t, c, ctx, "edit_note", map[string]any{"path": "tech/bloom.md", "op": "append", "content": "More.", "expected_revision": string(oldRev)}, &w)
	var old, byRev, now mcp.ReadNoteResult
	testmcp.MustCall(t, c, ctx, "read_note", map[string]any{"path": "tech/bloom.md", "at": string(first)}, &old)
	testmcp.MustCall(t, c, ctx, "read_note", map[string]any{"path": "tech/bloom.md", "at": string(oldRev)}, &byRev)
	testmcp.MustCall(t, c, ctx, "read_note", map[string]any{"path": "tech/bloom.md"}, &now)
	if old.Content != testmcp.Fixture["tech/bloom.md"] || old.Commit != first || byRev.Content != old.Content || byRev.Revision != oldRev ||
		now.Content != testmcp.Fixture["tech/bloom.md"]+"More.\n" || now.Revision != w.Revision {
		t.Fatalf("at: old %q, by revision %q, now %q", old.Content, byRev.Content, now.Content)
	}
	testmcp.WantError(t, c, ctx, "read_note", map[string]any{"path": "tech/bloom.md", "at": "no-such-commit"}, mcp.CodeNotFound, mcp.ClassFixInput)
}

func TestMCP_ListNotes(t *testing.T) {
	_, e := testmcp.NewEnv(t, testmcp.Fixture)
	c, ctx := e.Connect(&testmcp.Agent, false)
	var all mcp.ListNotesResult
	testmcp.MustCall(t, c, ctx, "list_notes", nil, &all)
	want := []string{"README.md", "a/dup.md", "b/dup.md", "big.md", "tech/bloom.md", "tech/cms.md"}
	if got := notePaths(all.Notes); !slices.Equal(got, want) || all.Total != 6 || all.Truncated || all.NextCursor != "" {
		t.Fatalf("list: %v %+v", got, all)
	}
	var p1, p2 mcp.ListNotesResult
	testmcp.MustCall(t, c, ctx, "list_notes", map[string]any{"limit": 4}, &p1)
	testmcp.MustCall(t, c, ctx, "list_notes", map[string]any{"limit": 4, "cursor": p1.NextCursor}, &p2)
	if got := append(notePaths(p1.Notes), notePaths(p2.Notes)...); !slices.Equal(got, want) || !p1.Truncated || p2.Truncated || p2.NextCursor != "" {
		t.Fatalf("pages: %v / %v", notePaths(p1.Notes), notePaths(p2.Notes))
	}
	var tech mcp.ListNotesResult
	testmcp.MustCall(t, c, ctx, "list_notes", map[string]any{"folder": "tech/", "titles": true}, &tech)
	if len(tech.Notes) != 2 || tech.Notes[0].Title != "Bloom filters" || tech.Notes[1].Title != "Count-min sketch" || tech.Notes[0].Revision == "" {
		t.Fatalf("tech: %+v", tech)
	}
	testmcp.WantError(t, c, ctx, "list_notes", map[string]any{"folder": "nope"}, mcp.CodeNotFound, mcp.ClassFixInput)
}

func TestMCP_LinksAndContext(t *testing.T) {
	_, e := testmcp.NewEnv(t, testmcp.Fixture)
	c, ctx := e.Connect(&testmcp.Agent, false)
	var l vault.Links
	testmcp.MustCall(t, c, ctx, "links", map[string]any{"path": "tech/cms.md"}, &l)
	if l.OutgoingTotal != 2 || l.Outgoing[0].To != "tech/bloom.md" || l.Outgoing[0].Status != "resolved" ||
		l.Outgoing[1].Status != "broken" || l.Outgoing[1].To != "" {
		t.Fatalf("outgoing (a link to a private note is broken, as if it did not exist): %+v", l.Outgoing)
	}
	if l.BacklinksTotal != 1 || l.Backlinks[0].From != "tech/bloom.md" || l.SameTagsTotal != 1 || l.SameTags[0] != "tech/bloom.md" {
		t.Fatalf("backlinks/same tags: %+v", l)
	}
	var ctxOut mcp.NoteContext
	testmcp.MustCall(t, c, ctx, "get_context", map[string]any{"path": "tech/bloom.md"}, &ctxOut)
	var from []string
	for _, b := range ctxOut.Backlinks {
		from = append(from, string(b.From))
	}
	if !slices.Equal(from, []string{"README.md", "tech/cms.md"}) || ctxOut.BacklinksTotal != 2 || !strings.Contains(ctxOut.Backlinks[0].Context, "[[Bloom filters]]") {
		t.Fatalf("backlinks: %+v", ctxOut.Backlinks)
	}
	if ctxOut.Title != "Bloom filters" || !slices.Equal(ctxOut.Tags, []string{"data-structures", "hashing"}) || ctxOut.Frontmatter["title"] != "Bloom filters" ||
		len(ctxOut.Outlinks) != 1 || ctxOut.Outlinks[0].To != "tech/cms.md" {
		t.Fatalf("context: %+v", ctxOut)
	}
	if got := notePaths(ctxOut.Siblings); !slices.Equal(got, []string{"tech/cms.md"}) || ctxOut.SiblingsTotal != 1 || !slices.Equal(ctxOut.SameTags, []note.Path{"tech/cms.md"}) {
		t.Fatalf("siblings/same tags: %+v %+v", ctxOut.Siblings, ctxOut.SameTags)
	}
	var short mcp.NoteContext
	testmcp.MustCall(t, c, ctx, "get_context", map[string]any{"path": "tech/bloom.md", "limit": 1}, &short)
	if !short.Truncated || len(short.Backlinks) != 1 || short.BacklinksTotal != 2 {
		t.Fatalf("limit: %+v", short)
	}
	testmcp.WantError(t, c, ctx, "get_context", map[string]any{"path": "nope.md"}, mcp.CodeNotFound, mcp.ClassFixInput)
	testmcp.WantError(t, c, ctx, "links", map[string]any{"path": "nope.md"}, mcp.CodeNotFound, mcp.ClassFixInput)

	tc, tctx := e.Connect(&testmcp.Trusted, false)
	var tl mcp.NoteContext
	testmcp.MustCall(t, tc, tctx, "get_context", map[string]any{"path": "tech/bloom.md"}, &tl)
	if tl.BacklinksTotal != 4 || tl.SiblingsTotal != 2 || tl.SameTagsTotal != 2 {
		t.Fatalf("trusted context: %+v", tl)
	}
}

func TestMCP_Stats(t *testing.T) {
	_, e := testmcp.NewEnv(t, testmcp.Fixture)
	c, ctx := e.Connect(&testmcp.Agent, false)
	var st vault.Stats
	testmcp.MustCall(t, c, ctx, "stats", nil, &st)
	if st.Notes != 6 || st.Tags[0] != (vault.Count{Name: "hashing", Notes: 2}) || st.Links.Total != 4 {
		t.Fatalf("agent stats: %+v", st)
	}
	tc, tctx := e.Connect(&testmcp.Trusted, false)
	var all vault.Stats
	testmcp.MustCall(t, tc, tctx, "stats", map[string]any{"limit": 1}, &all)
	if all.Notes != 8 || all.Links.Total != 6 || len(all.Folders) != 1 || !all.Truncated {
		t.Fatalf("trusted stats: %+v", all)
	}
}

func TestMCP_HistoryAndDiff(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	c, ctx := e.Connect(&testmcp.Agent, false)
	first := v.Head()
	var w mcp.WriteResult
	testmcp.MustCall(t, c, ctx, "edit_note", map[string]any{"path": "tech/bloom.md", "op": "find_replace", "find": "False positives.", "replace": "False positives, never false negatives.",
		"expected_revision": string(v.Revision("tech/bloom.md")), "message": "bloom: negatives"}, &w)
	var h mcp.HistoryResult
	testmcp.MustCall(t, c, ctx, "history", map[string]any{"limit": 1}, &h)
	if len(h.Commits) != 1 || h.Commits[0].Commit != w.Commit || h.Commits[0].Op != repo.OpEdit || h.Commits[0].Subject != "bloom: negatives" ||
		h.Commits[0].Author != "claude <claude@norn.invalid>" || !slices.Equal(h.Commits[0].Paths, []note.Path{"tech/bloom.md"}) || h.NextCursor != "1" {
		t.Fatalf("history page 1: %+v", h)
	}
	var h2 mcp.HistoryResult
	testmcp.MustCall(t, c, ctx, "history", map[string]any{"limit": 1, "cursor": h.NextCursor}, &h2)
	if len(h2.Commits) != 1 || h2.Commits[0].Commit != first || h2.NextCursor != "" || h2.Truncated {
		t.Fatalf("history page 2: %+v", h2)
	}
	var hp mcp.HistoryResult
	testmcp.MustCall(t, c, ctx, "history", map[string]any{"path": "tech/cms.md"}, &hp)
	if len(hp.Commits) != 1 || hp.Commits[0].Commit != first {
		t.Fatalf("history of cms: %+v", hp)
	}

	var d mcp.DiffResult
	testmcp.MustCall(t, c, ctx, "diff", map[string]any{"from": "HEAD~1", "path": "tech/bloom.md"}, &d)
	if d.From != first || d.To != w.Commit || d.Total != 1 || len(d.Changes) != 1 || d.Changes[0].Revision != w.Revision {
		t.Fatalf("diff: %+v", d)
	}
	wantDiff := "--- a/tech/bloom.md\n+++ b/tech/bloom.md\n@@ -9,4 +9,4 @@\n Use k hash functions.\n \n ## Limits\n-False positives.\n+False positives, never false negatives.\n"
	if d.Unified != wantDiff || d.UnifiedTruncated {
		t.Fatalf("unified:\n%s\nwant:\n%s", d.Unified, wantDiff)
	}
	var cut mcp.DiffResult
	testmcp.MustCall(t, c, ctx, "diff", map[string]any{"from": string(first), "to": string(w.Commit), "path": "tech/bloom.md", "max_bytes": 60}, &cut)
	if !cut.UnifiedTruncated || len(cut.Unified) > 60 || !strings.HasPrefix(wantDiff, cut.Unified) {
		t.Fatalf("bounded unified: %q", cut.Unified)
	}
	testmcp.WantError(t, c, ctx, "diff", map[string]any{"from": "nope"}, mcp.CodeNotFound, mcp.ClassFixInput)
}

func TestMCP_DiffShapes(t *testing.T) {
	// Whole-file cases through the tool: a create and lines added at the start.
	v, e := testmcp.NewEnv(t, map[string]string{"n.md": "# N\nb\nc\n"})
	c, ctx := e.Connect(&testmcp.Owner, false)
	testmcp.MustCall(t, c, ctx, "edit_note", map[string]any{"path": "n.md", "op": "find_replace", "find": "# N\n", "replace": "# N\na\n", "expected_revision": string(v.Revision("n.md"))}, nil)
	var d mcp.DiffResult
	testmcp.MustCall(t, c, ctx, "diff", map[string]any{"from": "HEAD~1", "path": "n.md"}, &d)
	if d.Unified != "--- a/n.md\n+++ b/n.md\n@@ -1,3 +1,4 @@\n # N\n+a\n b\n c\n" {
		t.Fatalf("insert:\n%s", d.Unified)
	}
	testmcp.MustCall(t, c, ctx, "write_note", map[string]any{"path": "m.md", "content": "# M\nx\n"}, nil)
	testmcp.MustCall(t, c, ctx, "diff", map[string]any{"from": "HEAD~1", "path": "m.md"}, &d)
	if d.Unified != "--- a/m.md\n+++ b/m.md\n@@ -0,0 +1,2 @@\n+# M\n+x\n" {
		t.Fatalf("create:\n%s", d.Unified)
	}
}

// TestMCP_ReadArgumentsChecked: a cursor list_notes did not hand out (or handed
// out for another folder) is invalid_input, as history's is; search checks its
// folder as list_notes does; graph_neighborhood's types must be well-formed edge
// type names (a well-formed type no edge has simply matches nothing); 0 for a
// count is its default, as everywhere.
func TestMCP_ReadArgumentsChecked(t *testing.T) {
	_, e := testmcp.NewEnv(t, testmcp.Fixture)
	c, ctx := e.Connect(&testmcp.Agent, false)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"list_notes", map[string]any{"cursor": "garbage"}},
		{"list_notes", map[string]any{"cursor": "!!"}},
		{"list_notes", map[string]any{"folder": "tech", "cursor": base64.RawURLEncoding.EncodeToString([]byte("a/dup.md"))}},
		{"history", map[string]any{"cursor": "garbage"}},
		{"search", map[string]any{"query": "bloom", "folder": "../"}},
		{"search", map[string]any{"query": "bloom", "folder": "a/../b"}},
		{"list_notes", map[string]any{"folder": "../"}},
		{"graph_neighborhood", map[string]any{"path": "tech/bloom.md", "types": []string{"Nope!"}}},
		{"graph_neighborhood", map[string]any{"path": "tech/bloom.md", "types": []string{""}}},
		{"graph_neighborhood", map[string]any{"path": "tech/bloom.md", "types": []string{"nope"}}},
	} {
		testmcp.WantError(t, c, ctx, tc.tool, tc.args, mcp.CodeInvalidInput, mcp.ClassFixInput)
	}
	var l mcp.ListNotesResult
	testmcp.MustCall(t, c, ctx, "list_notes", map[string]any{"limit": 2}, &l)
	testmcp.MustCall(t, c, ctx, "list_notes", map[string]any{"limit": 2, "cursor": l.NextCursor}, &l)
	if len(l.Notes) != 2 {
		t.Fatalf("second page: %+v", l)
	}
	var r mcp.SearchResult
	testmcp.MustCall(t, c, ctx, "search", map[string]any{"query": "hashing", "folder": "/tech/", "limit": 0}, &r)
	if len(r.Hits) == 0 {
		t.Fatalf("search in /tech/: %+v", r)
	}
	var nb graph.Neighborhood
	testmcp.MustCall(t, c, ctx, "graph_neighborhood", map[string]any{"path": "tech/bloom.md", "types": []string{"refines"}}, &nb)
	if len(nb.Edges) != 0 {
		t.Fatalf("a registered type no edge has: %+v", nb)
	}
}

func notePathsOf(ps []note.Path) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = string(p)
	}
	return out
}
