package mcp_test

import (
	"context"
	"errors"
	"testing"

	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/internal/testvault"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server/mcp"
	"github.com/norn-vault/norn/vault"
)

func TestVaultStats(t *testing.T) {
	v := testvault.OpenServed(t, nil)
	notes := map[string]string{
		"a/x.md":   "---\ntags: [one]\nedges:\n  - to: \"[[b/y]]\"\n    type: supports\n    why: Because the second note gives the evidence for it.\n---\n# X\n[[y]] [[Missing]] ![[x#X]] [[dup]] `[[in code]]` [md](../b/y.md)\n",
		"b/y.md":   "# Y\n#one #two [[X]]\n",
		"c/dup.md": "# Dup one\n",
		"d/dup.md": "# Dup two\n",
		"bad.md":   "---\ntitle: a\ntitle: b\n---\n# Bad\n[[X]]\n",
	}
	var changes []repo.Change
	for p, c := range notes {
		changes = append(changes, repo.Change{Kind: repo.Put, Path: note.Path(p), Content: []byte(c)})
	}
	if _, err := v.Apply(context.Background(), repo.Tx{Author: repo.Author{Name: "t"}, Op: repo.OpImport, Changes: changes}); err == nil {
		t.Fatal("the default gates accepted duplicate keys")
	}
	// Import as a person would: by hand, then `norn commit`.
	testvault.CommitFiles(t, v, notes)
	st, err := vault.VaultStats(context.Background(), v, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Links outside code: x has 5 ([[y]] [[Missing]] ![[x#X]] [[dup]] [md]), y 1, bad 1.
	want := vault.LinkCounts{Total: 7, Resolved: 5, Broken: 1, Ambiguous: 1}
	if st.Links != want || st.Notes != 5 || st.Unparsed != 1 || st.Edges != (vault.LinkCounts{Total: 1, Resolved: 1}) {
		t.Fatalf("stats: links %+v edges %+v notes %d unparsed %d", st.Links, st.Edges, st.Notes, st.Unparsed)
	}
	if len(st.Folders) != 2 || !st.Truncated {
		t.Fatalf("folders not cut at the limit: %+v", st.Folders)
	}
	if len(st.Tags) != 2 || st.Tags[0] != (vault.Count{Name: "one", Notes: 2}) {
		t.Fatalf("tags: %+v", st.Tags)
	}
	if len(st.EdgeTypes) != 1 || st.EdgeTypes[0].Name != "supports" {
		t.Fatalf("edge types: %+v", st.EdgeTypes)
	}
}

// TestVaultStats_Pages walks the folder table page by page.
func TestVaultStats_Pages(t *testing.T) {
	ctx := context.Background()
	v := testvault.OpenServed(t, nil)
	testvault.CommitFiles(t, v, map[string]string{"a/1.md": "# 1\n", "a/2.md": "# 2\n", "a/3.md": "# 3\n", "b/1.md": "# 1\n", "b/2.md": "# 2\n", "c/1.md": "# 1\n", "d/1.md": "# 1\n"})
	var got []vault.Count
	off, pages := 0, 0
	for {
		st, err := vault.VaultStats(ctx, v, 2, off)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		got = append(got, st.Folders...)
		// Folders a, b, c and d (the seeded .norn/config.yaml is no note).
		if st.FoldersTotal != 4 {
			t.Fatalf("folders total %d: %+v", st.FoldersTotal, st)
		}
		if st.FoldersNextOffset == 0 {
			break
		}
		off = st.FoldersNextOffset
	}
	want := []vault.Count{{Name: "a", Notes: 3}, {Name: "b", Notes: 2}, {Name: "c", Notes: 1}, {Name: "d", Notes: 1}}
	if pages != 2 || len(got) != len(want) {
		t.Fatalf("%d pages: %+v", pages, got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("pages: %+v, want %+v", got, want)
		}
	}
	past, err := vault.VaultStats(ctx, v, 2, 10)
	if err != nil || len(past.Folders) != 0 || past.FoldersTotal != 4 || past.Truncated {
		t.Fatalf("past the end: %+v %v", past, err)
	}
	if _, err := vault.VaultStats(ctx, v, 2000, 0); !errors.Is(err, repo.ErrInvalid) {
		t.Fatalf("limit over 1000: %v", err)
	}
}

// TestMCP_StatsPages: the stats tool pages its tables by offset, and a caller
// without the private scope counts neither private notes nor their folders,
// tags and links.
func TestMCP_StatsPages(t *testing.T) {
	_, e := testmcp.NewEnv(t, testmcp.Fixture)
	c, ctx := e.Connect(&testmcp.Agent, false)
	var p1, p2 vault.Stats
	testmcp.MustCall(t, c, ctx, "stats", map[string]any{"limit": 2}, &p1)
	testmcp.MustCall(t, c, ctx, "stats", map[string]any{"limit": 2, "offset": p1.FoldersNextOffset}, &p2)
	// Visible: /, tech (bloom, cms), a, b; not personal-notes, not tech/secret.md.
	if p1.FoldersTotal != 4 || p1.FoldersNextOffset != 2 || len(p2.Folders) != 2 || p2.FoldersNextOffset != 0 {
		t.Fatalf("pages: %+v / %+v", p1, p2)
	}
	for _, f := range append(p1.Folders, p2.Folders...) {
		if f.Name == "personal-notes" || f.Name == "tech" && f.Notes != 2 {
			t.Fatalf("a private note counted: %+v", f)
		}
	}
	if p1.Tags[0] != (vault.Count{Name: "hashing", Notes: 2}) || p1.Links.Total != 4 {
		t.Fatalf("agent stats: %+v", p1)
	}
	testmcp.WantError(t, c, ctx, "stats", map[string]any{"offset": -1}, mcp.CodeInvalidInput, mcp.ClassFixInput)
	tc, tctx := e.Connect(&testmcp.Trusted, false)
	var all vault.Stats
	testmcp.MustCall(t, tc, tctx, "stats", map[string]any{"limit": 2}, &all)
	if all.FoldersTotal != 5 || all.Notes != 8 || all.Tags[0] != (vault.Count{Name: "hashing", Notes: 3}) {
		t.Fatalf("trusted: %+v", all)
	}
}
