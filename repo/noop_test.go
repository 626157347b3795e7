package repo_test

import (
	"context"
	"testing"

	"github.com/norn-vault/norn/repo"
)

// TestVault_Apply_Unchanged: a put of a note's current bytes commits nothing.
func TestVault_Apply_Unchanged(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	res := write(t, v, put("a.md", "# A\n", ""))
	rev := res.Changes[0].Revision
	head := v.Head()
	for _, dry := range []bool{true, false} {
		got, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "x"}, Op: repo.OpWrite, DryRun: dry, Changes: []repo.Change{put("a.md", "# A\n", rev)}})
		if err != nil || !got.Unchanged || got.Commit != "" || len(got.Changes) != 0 || got.Parent != head {
			t.Fatalf("no-op put (dry run %v) = %+v, %v", dry, got, err)
		}
	}
	if v.Head() != head {
		t.Fatal("HEAD moved")
	}
	// One real change beside a no-op one still commits.
	res = write(t, v, put("a.md", "# A\n", rev), put("b.md", "# B\n", ""))
	if res.Unchanged || res.Commit == "" {
		t.Fatalf("mixed: %+v", res)
	}
	assertClean(t, v)
}
