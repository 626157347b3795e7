package vault

import (
	"context"
	"testing"

	"github.com/norn-vault/norn/repo"
)

// TestVault_MoveNote_MissingHeading: a link to a heading the target lacks still
// resolves to the target, so a move rewrites it and keeps the heading as written.
func TestVault_MoveNote_MissingHeading(t *testing.T) {
	ctx := context.Background()
	v := servedVault(t, map[string]string{
		"t.md":     "# T\n\n## Here\n",
		"s.md":     "# S\n\n[[t#Nope]]\n![[t#Nope]]\n[[t#Nope|x]]\n[x](t.md#Nope)\n[[t#Here]]\n",
		"sub/r.md": "# R\n\n[y](../t.md#Nope)\n[[../t#Nope]]\n",
	})
	res, err := v.MoveNote(ctx, MoveRequest{From: "t.md", To: "u.md", Author: repo.Author{Name: "agent"}, Roles: []string{"agent"}})
	if err != nil {
		t.Fatalf("move: %v", err)
	}
	if res.Commit == "" {
		t.Fatalf("no commit: %+v", res.Result)
	}
	want := map[string]string{
		"s.md":     "# S\n\n[[u#Nope]]\n![[u#Nope]]\n[[u#Nope|x]]\n[x](u.md#Nope)\n[[u#Here]]\n",
		"sub/r.md": "# R\n\n[y](../u.md#Nope)\n[[../u#Nope]]\n",
	}
	for p, w := range want {
		if got := headAndDisk(t, v, p); got != w {
			t.Errorf("%s after the move:\n%s\nwant:\n%s", p, got, w)
		}
	}
	assertClean(t, v)
}
