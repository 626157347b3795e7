package server_test

import (
	"context"
	"testing"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server"
)

func TestVaultStats(t *testing.T) {
	v, _ := openVault(t)
	notes := map[string]string{
		"a/x.md":   "---\ntags: [one]\nedges:\n  - to: \"[[b/y]]\"\n    type: supports\n    why: Because the second note gives the evidence for it.\n---\n# X\n[[y]] [[Missing]] ![[x#X]] [[dup]] `[[in code]]` [md](../b/y.md)\n",
		"b/y.md":   "# Y\n#one #two [[X]]\n",
		"c/dup.md": "# Dup one\n",
		"d/dup.md": "# Dup two\n",
		"bad.md":   "---\ntitle: a\ntitle: b\n---\n# Bad\n[[X]]\n",
	}
	var changes []repo.Change
	for p, c := range notes {
		changes = append(changes, repo.Change{Kind: repo.Put, Path: notePath(p), Content: []byte(c)})
	}
	if _, err := v.Apply(context.Background(), repo.Tx{Author: repo.Author{Name: "t"}, Op: repo.OpImport, Changes: changes}); err == nil {
		t.Fatal("the default gates accepted duplicate keys")
	}
	// Import as a person would: by hand, then `norn commit`.
	for p, c := range notes {
		writeFile(t, v, p, c)
	}
	if _, err := v.CommitExternal(context.Background(), "", ""); err != nil {
		t.Fatal(err)
	}
	st, err := server.VaultStats(context.Background(), v, 2)
	if err != nil {
		t.Fatal(err)
	}
	// Links outside code: x has 5 ([[y]] [[Missing]] ![[x#X]] [[dup]] [md]), y 1, bad 1.
	want := server.LinkCounts{Total: 7, Resolved: 5, Broken: 1, Ambiguous: 1}
	if st.Links != want || st.Notes != 5 || st.Unparsed != 1 {
		t.Fatalf("stats: links %+v notes %d unparsed %d", st.Links, st.Notes, st.Unparsed)
	}
	if len(st.Folders) != 2 || !st.Truncated {
		t.Fatalf("folders not cut at the limit: %+v", st.Folders)
	}
	if len(st.Tags) != 2 || st.Tags[0] != (server.Count{Name: "one", Notes: 2}) {
		t.Fatalf("tags: %+v", st.Tags)
	}
	if len(st.EdgeTypes) != 1 || st.EdgeTypes[0].Name != "supports" {
		t.Fatalf("edge types: %+v", st.EdgeTypes)
	}
}
