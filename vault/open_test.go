package vault_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
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

// TestOpen_LazyIndex: a vault opened with LazyIndex (the CLI's) writes, moves and
// answers link queries without opening the index, so another process may hold
// it meanwhile; a search opens it, and Close works either way.
func TestOpen_LazyIndex(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	v0, _, err := repo.Init(ctx, dir, repo.InitOptions{Options: repo.Options{Owner: repo.Author{Name: "o", Email: "o@x"}}})
	if err != nil {
		t.Fatal(err)
	}
	v0.Close()
	landed := 0
	v, err := vault.Open(ctx, dir, vault.Options{LazyIndex: true, Repo: repo.Options{OnCommit: func(repo.CommitID) { landed++ }}})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	owner := repo.Author{Name: "o", Email: "o@x"}
	for _, p := range []string{"a.md", "b.md"} {
		if _, err := v.Apply(ctx, repo.Tx{Author: owner, Roles: []string{"owner"}, Op: repo.OpWrite,
			Changes: []repo.Change{{Kind: repo.Put, Path: notePath(p), Content: []byte("# " + p + "\nokapi [[a]]\n")}}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := v.MoveNote(ctx, vault.MoveRequest{From: "b.md", To: "c.md", Author: owner, Roles: []string{"owner"}}); err != nil {
		t.Fatal(err)
	}
	if l, err := vault.NoteLinks(ctx, v, "a.md", 10); err != nil || l.BacklinksTotal == 0 {
		t.Fatalf("links without the index: %+v, %v", l, err)
	}
	if landed != 3 {
		t.Fatalf("OnCommit told of %d commits, want 3", landed)
	}
	// Nothing of this process holds the index: a second handle takes it.
	other, err := vault.Open(ctx, dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := other.Index.Search(ctx, vault.SearchRequest{Query: "okapi"}); err != nil || r.Engine != vault.EngineBM25 {
		t.Fatalf("the lazy vault held the index: %+v, %v", r, err)
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := v.Index.Search(ctx, vault.SearchRequest{Query: "okapi"})
	if err != nil || r.Engine != vault.EngineBM25 || r.Total != 2 {
		t.Fatalf("first search through the lazy index: %+v, %v", r, err)
	}
}

// TestOpen_LazyIndexNeverOpened: Close of a vault whose lazy index nobody asked for
// works, and the index is not created.
func TestOpen_LazyIndexNeverOpened(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	v0, _, err := repo.Init(ctx, dir, repo.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v0.Close()
	v, err := vault.Open(ctx, dir, vault.Options{LazyIndex: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Index.Graph(ctx); !errors.Is(err, vault.ErrIndexUnavailable) {
		t.Fatalf("Graph opened the lazy index: %v", err)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(v.GitDir(), "norn", "index")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the index was created: %v", err)
	}
}
