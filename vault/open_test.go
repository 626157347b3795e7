package vault_test

import (
	"context"
	"github.com/norn-vault/norn/vault"
	"testing"

	"github.com/norn-vault/norn/repo"
)

// TestOpen_WritesAreSearchableWhenAcknowledged: through vault.Open, a write is in the
// index by the time Apply returns, without waiting for pending writes.
func TestOpen_WritesAreSearchableWhenAcknowledged(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	v0, _, err := repo.Init(ctx, dir, repo.InitOptions{Options: repo.Options{Owner: repo.Author{Name: "o", Email: "o@x"}}})
	if err != nil {
		t.Fatal(err)
	}
	v0.Close()
	v, err := vault.Open(ctx, dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	for i, word := range []string{"aardvark", "okapi", "quokka"} {
		_, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "agent"}, Roles: []string{"agent"}, Op: repo.OpWrite,
			Changes: []repo.Change{{Kind: repo.Put, Path: notePath("n" + string(rune('a'+i)) + ".md"), Content: []byte("# " + word + "\n")}}})
		if err != nil {
			t.Fatal(err)
		}
		r, err := v.Index.Search(ctx, vault.SearchRequest{Query: word})
		if err != nil {
			t.Fatal(err)
		}
		if r.IndexStale || r.Total != 1 || r.Engine != vault.EngineBM25 {
			t.Fatalf("write %d not in the index when acknowledged: %+v", i, r)
		}
	}
	// The gates are wired too.
	_, err = v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "agent"}, Roles: []string{"agent"}, Op: repo.OpWrite,
		Changes: []repo.Change{{Kind: repo.Put, Path: "bad.md", Content: []byte("no newline")}}})
	if err == nil {
		t.Fatal("gates not wired")
	}
}
