package vault_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

var words = strings.Fields("bloom filter hash sketch count merge commit vault index search rank graph edge link note tree blob revision conflict archive")

func randomNote(rng *rand.Rand, i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\ntitle: Note %d %s\ntags: [%s]\n---\n# Note %d\n", i, words[rng.IntN(len(words))], words[rng.IntN(len(words))], i)
	for range 20 + rng.IntN(40) {
		b.WriteString(words[rng.IntN(len(words))])
		b.WriteByte(' ')
	}
	b.WriteString("\n")
	return b.String()
}

func apply(t *testing.T, v *repo.Vault, tx repo.Tx) {
	t.Helper()
	tx.Author = repo.Author{Name: "t"}
	tx.Roles = []string{"owner"}
	if _, err := v.Apply(context.Background(), tx); err != nil {
		t.Fatal(err)
	}
}

// results runs a fixed set of queries and returns every ranked path and score.
func results(t *testing.T, x *vault.Indexer) []string {
	t.Helper()
	var out []string
	for _, q := range append(words, "bloom filter", `"hash sketch"`, "commit -vault", "tag:graph", "folder:b") {
		r, err := x.Search(context.Background(), vault.SearchRequest{Query: q, Limit: 50})
		if err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		if r.Engine != vault.EngineBM25 {
			t.Fatalf("engine %q", r.Engine)
		}
		for _, h := range r.Hits {
			out = append(out, fmt.Sprintf("%s %s %.9f %d", q, h.Path, h.Score, h.Line))
		}
	}
	return out
}

// TestIndexer_IncrementalEqualsRebuild: an index caught up over many commits (puts,
// updates, moves, archives, restores, then one commit of many notes) answers
// exactly like one rebuilt from scratch.
func TestIndexer_IncrementalEqualsRebuild(t *testing.T) {
	ctx := context.Background()
	v, _ := openVault(t)
	x := vault.OpenIndexer(ctx, v, graph.Options{}, nil)
	defer x.Close()
	rng := rand.New(rand.NewPCG(3, 4))
	live := map[int]string{}
	for i := range 120 {
		k := rng.IntN(40)
		p, ok := live[k]
		switch {
		case !ok:
			p = fmt.Sprintf("%s/n%d.md", []string{"a", "b", "c/d"}[rng.IntN(3)], k)
			apply(t, v, repo.Tx{Op: repo.OpWrite, Changes: []repo.Change{{Kind: repo.Put, Path: note.Path(p), Content: []byte(randomNote(rng, i))}}})
			live[k] = p
		case rng.IntN(5) == 0:
			apply(t, v, repo.Tx{Op: repo.OpArchive, Reason: repo.ReasonArchived, Changes: []repo.Change{{Kind: repo.Archive, Path: note.Path(p)}}})
			delete(live, k)
		case rng.IntN(5) == 0:
			np := fmt.Sprintf("moved/n%d-%d.md", k, i)
			apply(t, v, repo.Tx{Op: repo.OpMove, Changes: []repo.Change{{Kind: repo.Move, From: note.Path(p), Path: note.Path(np)}}})
			live[k] = np
		default:
			apply(t, v, repo.Tx{Op: repo.OpWrite, Changes: []repo.Change{{Kind: repo.Put, Path: note.Path(p), Content: []byte(randomNote(rng, i)), ExpectedRevision: v.Revision(note.Path(p))}}})
		}
		if i%7 == 0 {
			if err := x.CatchUp(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	// One commit of many notes, new and changed (read and parsed in parallel).
	var many []repo.Change
	for k := range 60 {
		if p, ok := live[k]; ok {
			many = append(many, repo.Change{Kind: repo.Put, Path: note.Path(p), Content: []byte(randomNote(rng, 1000+k)), ExpectedRevision: v.Revision(note.Path(p))})
		} else if k%2 == 0 {
			p := fmt.Sprintf("many/n%d.md", k)
			many = append(many, repo.Change{Kind: repo.Put, Path: note.Path(p), Content: []byte(randomNote(rng, 1000+k))})
			live[k] = p
		}
	}
	if len(many) < 20 {
		t.Fatalf("only %d changes in the large commit", len(many))
	}
	apply(t, v, repo.Tx{Op: repo.OpWrite, Changes: many})
	if err := x.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	if c, _ := x.Status(); c != string(v.Head()) {
		t.Fatalf("index at %s, head %s", c, v.Head())
	}
	incremental := results(t, x)
	if err := x.Rebuild(ctx, nil); err != nil {
		t.Fatal(err)
	}
	rebuilt := results(t, x)
	if len(rebuilt) < 100 {
		t.Fatalf("only %d results", len(rebuilt))
	}
	if !reflect.DeepEqual(incremental, rebuilt) {
		for i := range min(len(incremental), len(rebuilt)) {
			if incremental[i] != rebuilt[i] {
				t.Fatalf("first difference at %d:\nincremental %s\nrebuilt     %s", i, incremental[i], rebuilt[i])
			}
		}
		t.Fatalf("incremental has %d results, rebuilt %d", len(incremental), len(rebuilt))
	}
}

// TestIndexer_Honesty: responses say whether the index is stale, and
// WaitForPendingWrites waits for it to catch up.
func TestIndexer_Honesty(t *testing.T) {
	ctx := context.Background()
	v, _ := openVault(t)
	x := vault.OpenIndexer(ctx, v, graph.Options{}, nil)
	defer x.Close()
	if err := x.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	apply(t, v, repo.Tx{Op: repo.OpWrite, Changes: []repo.Change{{Kind: repo.Put, Path: "fresh.md", Content: []byte("# Fresh\nzebra crossing\n")}}})
	r, err := x.Search(ctx, vault.SearchRequest{Query: "zebra"})
	if err != nil {
		t.Fatal(err)
	}
	if !r.IndexStale || r.IndexCommit == r.HeadCommit || r.Total != 0 {
		t.Fatalf("stale index not reported: %+v", r)
	}
	r, err = x.Search(ctx, vault.SearchRequest{Query: "zebra", WaitForPendingWrites: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.IndexStale || r.Total != 1 || r.Hits[0].Path != "fresh.md" || r.HeadCommit != string(v.Head()) {
		t.Fatalf("after waiting: %+v", r)
	}
}

// zebraIndexer is a vault with one note, z.md ("stripes"), and an indexer caught up
// with it.
func zebraIndexer(t *testing.T) (*repo.Vault, *vault.Indexer) {
	t.Helper()
	ctx := context.Background()
	v, _ := openVault(t)
	apply(t, v, repo.Tx{Op: repo.OpWrite, Changes: []repo.Change{{Kind: repo.Put, Path: "z.md", Content: []byte("# Zebra\nstripes\n")}}})
	x := vault.OpenIndexer(ctx, v, graph.Options{}, nil)
	if err := x.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	return v, x
}

// TestIndexer_Degrades: a corrupt, missing or locked index still answers, labelled,
// with a scan of HEAD; a corrupt one is rebuilt.
func TestIndexer_Degrades(t *testing.T) {
	ctx := context.Background()
	v, x := zebraIndexer(t)

	// Locked: a second handle scans.
	y := vault.OpenIndexer(ctx, v, graph.Options{}, nil)
	r, err := y.Search(ctx, vault.SearchRequest{Query: "stripes"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.Engine, "scan (") || !strings.Contains(r.Engine, "locked") || r.Total != 1 || !r.IndexStale {
		t.Fatalf("locked: %+v", r)
	}
	y.Close()
	x.Close()

	// Corrupt: every file of the index overwritten with garbage.
	dir := vault.IndexDir(v)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "LOCK" {
			os.WriteFile(filepath.Join(dir, e.Name()), []byte("garbage"), 0o644)
		}
	}
	z := vault.OpenIndexer(ctx, v, graph.Options{}, nil)
	r, err = z.Search(ctx, vault.SearchRequest{Query: "stripes"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Total != 1 || r.Hits[0].Path != "z.md" {
		t.Fatalf("corrupt: %+v", r)
	}
	if r.Engine != vault.EngineBM25 && !strings.Contains(r.Engine, "rebuilding") {
		t.Fatalf("corrupt index answered by %q", r.Engine)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		r, _ = z.Search(ctx, vault.SearchRequest{Query: "stripes"})
		if r.Engine == vault.EngineBM25 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("corrupt index never rebuilt: %q", r.Engine)
		}
		time.Sleep(20 * time.Millisecond)
	}
	z.Close()

	// Deleted: rebuilt on the next catch-up.
	os.RemoveAll(dir)
	w := vault.OpenIndexer(ctx, v, graph.Options{}, nil)
	defer w.Close()
	if err := w.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	r, err = w.Search(ctx, vault.SearchRequest{Query: "stripes"})
	if err != nil || r.Engine != vault.EngineBM25 || r.Total != 1 || r.IndexStale {
		t.Fatalf("deleted: %+v %v", r, err)
	}
}

// TestIndexer_ReopenOnceFree: an indexer that found the index locked by another
// handle scans, and takes the index up — caught up with what was written meanwhile —
// in a maintainer round once the other handle lets go; failed attempts are paced.
func TestIndexer_ReopenOnceFree(t *testing.T) {
	ctx := context.Background()
	v, x := zebraIndexer(t)
	w, err := vault.Open(ctx, v.Dir(), vault.Options{}) // a second handle: its index is locked
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	y := w.Index
	apply(t, v, repo.Tx{Op: repo.OpWrite, Changes: []repo.Change{{Kind: repo.Put, Path: "q.md", Content: []byte("# Quagga\nstripes too\n")}}})
	if err := w.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	search := func() *vault.SearchResponse {
		t.Helper()
		r, err := y.Search(ctx, vault.SearchRequest{Query: "stripes"})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if err := y.Reopen(ctx); err == nil || !strings.Contains(err.Error(), "locked") {
		t.Fatalf("reopen while locked: %v", err)
	}
	if r := search(); !strings.Contains(r.Engine, "locked") || r.Total != 2 {
		t.Fatalf("while locked: %+v", r)
	}
	x.Close()
	if err := y.Reopen(ctx); err != nil {
		t.Fatalf("reopen paced after a failure: %v", err)
	}
	if r := search(); r.Engine == vault.EngineBM25 {
		t.Fatalf("reopened before the pause after a failed attempt: %+v", r)
	}
	m := &vault.Maintainer{Vault: w}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := m.Round(ctx); err != nil {
			t.Fatal(err)
		}
		if r := search(); r.Engine == vault.EngineBM25 {
			if r.Total != 2 || r.IndexStale || r.IndexCommit != string(v.Head()) {
				t.Fatalf("reopened: %+v", r)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("index never taken up: %+v", search())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
