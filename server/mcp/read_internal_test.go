package mcp

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"testing"
	"time"

	"github.com/norn-vault/norn/internal/testvault"
	"github.com/norn-vault/norn/server/auth"
)

// TestMCP_NamesAndMapIndexEqualsScan: read_note by a wikilink name and vault_map
// answer from the index's resolver and notes, or (index unavailable) from every note
// at HEAD read into memory, with the same answers, for a caller with and without the
// private scope.
func TestMCP_NamesAndMapIndexEqualsScan(t *testing.T) {
	ctx := context.Background()
	v := testvault.Served(t, map[string]string{
		"README.md":           "# Readme\nStart at [[Bloom filters]].\n",
		"tech/bloom.md":       "---\ntitle: Bloom filters\naliases: [bloomy]\ntags: [sketch, hashing]\n---\n# Bloom filters\n## Usage\nk hashes.\n",
		"tech/cms.md":         "---\ntitle: Count-min sketch\ntags: [sketch]\n---\n# CMS\n",
		"tech/secret.md":      "---\ntitle: Secret plan\naliases: [plan]\nprivate: true\ntags: [hashing]\n---\n# Secret\n",
		"personal-notes/d.md": "# Diary\n",
		"a/dup.md":            "# One\n",
		"b/dup.md":            "# Two\n",
		"c/same.md":           "---\ntitle: Shared\n---\n# S1\n",
		"d/same2.md":          "---\ntitle: Shared\nprivate: yes\n---\n# S2\n",
		"broken.md":           "---\ntitle: [unclosed\nprivate: true\n---\n# Broken\n",
		"deep/er/leaf.md":     "# Leaf\n",
		"pic.png":             "not really a png\n",
	})
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	indexed := &mcpTools{v: v, log: quiet, now: time.Now}
	scanned := &mcpTools{v: testvault.WithoutIndex(t, v), log: quiet, now: time.Now} // no index
	if _, err := v.Index.Graph(ctx); err != nil {
		t.Fatalf("the served vault has no index: %v", err)
	}
	names := []string{"Bloom filters", "bloomy", "bloom", "tech/bloom", "er/leaf", "[[Bloom filters#Usage]]", "[[bloom|b]]",
		"dup", "Shared", "Secret plan", "plan", "secret", "broken", "d", "pic.png", "pic", "nothing", "README"}
	for _, p := range []auth.Principal{
		{Name: "agent", Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite}},
		{Name: "trusted", Scopes: []auth.Scope{auth.ScopeRead, auth.ScopePrivate}},
	} {
		pctx := auth.WithPrincipal(ctx, p)
		call := func(tools *mcpTools) *caller {
			c, terr := tools.caller(pctx, auth.ScopeRead)
			if terr != nil {
				t.Fatal(terr)
			}
			return c
		}
		resolved := 0
		for _, name := range names {
			a, aerr := indexed.readNote(pctx, call(indexed), ReadNoteArgs{Path: name})
			b, berr := scanned.readNote(pctx, call(scanned), ReadNoteArgs{Path: name})
			if fmt.Sprint(aerr) != fmt.Sprint(berr) || !reflect.DeepEqual(a, b) {
				t.Errorf("%s: read_note %q:\nindex %+v %v\nscan  %+v %v", p.Name, name, a, aerr, b, berr)
			}
			if aerr == nil {
				resolved++
			}
		}
		if resolved < 8 {
			t.Errorf("%s: only %d of the names resolved: the cases no longer cover resolution", p.Name, resolved)
		}
		a, aerr := indexed.vaultMap(pctx, call(indexed), VaultMapArgs{})
		b, berr := scanned.vaultMap(pctx, call(scanned), VaultMapArgs{})
		if aerr != nil || berr != nil || !reflect.DeepEqual(a, b) {
			t.Errorf("%s: vault_map:\nindex %+v %v\nscan  %+v %v", p.Name, a, aerr, b, berr)
		}
		want := 11 // every note
		if !p.Can(auth.ScopePrivate) {
			want = 7 // not secret, same2, broken (private by its bytes), personal-notes/d
		}
		if a != nil && a.Notes != want {
			t.Errorf("%s: vault_map counts %d notes, want %d: %+v", p.Name, a.Notes, want, a)
		}
	}
}
