package vault_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/vault"
)

// TestSearchOptionsFrom_Defaults: the defaults of .norn/config.yaml's search section
// are exactly graph's (weights, stop words and the rest), so the figures measured
// with graph's defaults are what a vault without settings gets.
func TestSearchOptionsFrom_Defaults(t *testing.T) {
	got := vault.SearchOptionsFrom(config.Default(), nil)
	if want := graph.DefaultWeights(); got.Weights != want {
		t.Fatalf("search defaults of config.yaml:\n%+v\ngraph's defaults:\n%+v", got.Weights, want)
	}
	if !slices.Equal(got.StopWords, graph.DefaultStopWords) {
		t.Errorf("stop words of config.yaml:\n%q\ngraph's:\n%q", got.StopWords, graph.DefaultStopWords)
	}
	if got.DiversityCap != 0 || len(got.FolderFactors) != 0 || got.ChunksPerFile != 1 {
		t.Errorf("diversity cap %d, folder factors %v, chunks per file %d: want graph's 0, none, 1", got.DiversityCap, got.FolderFactors, got.ChunksPerFile)
	}
}

// TestSearchSettings_FeedbackAndPrefix: search.feedback and search.prefix from a
// config.yaml reach the ranking. Feedback brings in a note that has none of the query
// words (it shares the best notes' vocabulary) and docs: 0 leaves it out; a word's
// prefix matches, and prefix: 0 turns them off.
func TestSearchSettings_FeedbackAndPrefix(t *testing.T) {
	ctx := context.Background()
	files := hashingNotes()
	files["d.md"] = "# Gardening\n\nTomatoes want sun and water.\n"
	v := openServed(t, files)
	if err := v.Index.Close(); err != nil {
		t.Fatal(err)
	}
	search := func(yaml, query string) []string {
		t.Helper()
		cfg, err := config.Parse([]byte(yaml))
		if err != nil {
			t.Fatal(err)
		}
		x := vault.OpenIndexer(ctx, v.Repo(), vault.SearchOptionsFrom(cfg, nil), nil)
		defer x.Close()
		r, err := x.Search(ctx, vault.SearchRequest{Query: query, Limit: 10, WaitForPendingWrites: true})
		if err != nil || r.Engine != vault.EngineBM25 {
			t.Fatalf("%q with %q: %+v, %v", query, yaml, r, err)
		}
		var paths []string
		for _, h := range r.Hits {
			paths = append(paths, string(h.Path))
		}
		return paths
	}
	if got := search("", "bloom sketch"); !reflect.DeepEqual(got, []string{"a.md", "b.md", "c.md"}) && !reflect.DeepEqual(got, []string{"b.md", "a.md", "c.md"}) {
		t.Errorf("default feedback: %v, want a.md and b.md, then c.md by expansion", got)
	}
	if got := search("search:\n  feedback: {docs: 0}\n", "bloom sketch"); len(got) != 2 || got[0] == "c.md" || got[1] == "c.md" {
		t.Errorf("feedback off: %v, want only a.md and b.md", got)
	}
	if got := search("", "tomat"); !reflect.DeepEqual(got, []string{"d.md"}) {
		t.Errorf("prefix on: %v, want d.md", got)
	}
	if got := search("search:\n  prefix: 0\n", "tomat"); len(got) != 0 {
		t.Errorf("prefix off: %v, want nothing", got)
	}
}

// TestMaintainer_AppliesSearchSettings: a running server takes a changed search
// section of .norn/config.yaml within one maintainer round: ranking settings at once,
// other stop words by rebuilding the index from HEAD (searches scan meanwhile).
func TestMaintainer_AppliesSearchSettings(t *testing.T) {
	ctx := context.Background()
	v := openServed(t, hashingNotes())
	m := &vault.Maintainer{Vault: v}
	find := func(q string) *vault.SearchResponse {
		t.Helper()
		r, err := v.Index.Search(ctx, vault.SearchRequest{Query: q, Limit: 10, WaitForPendingWrites: true})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := find("bloom sketch"); r.Engine != vault.EngineBM25 || len(r.Hits) != 3 {
		t.Fatalf("with feedback: %+v", r)
	}
	if err := write(v.Repo(), ".norn/config.yaml", "search:\n  feedback: {docs: 0}\n", "owner"); err != nil {
		t.Fatal(err)
	}
	if r := find("bloom sketch"); len(r.Hits) != 3 {
		t.Fatalf("settings applied before a maintainer round: %+v", r.Hits)
	}
	if err := m.Round(ctx); err != nil {
		t.Fatal(err)
	}
	if r := find("bloom sketch"); r.Engine != vault.EngineBM25 || len(r.Hits) != 2 {
		t.Fatalf("after a round with feedback off: %+v", r.Hits)
	}

	// Search settings out of range are refused by the gates: nothing is committed,
	// and the index keeps ranking as before.
	head, rev := v.Head(), v.Revision(".norn/config.yaml")
	var rej *hooks.Rejection
	if err := write(v.Repo(), ".norn/config.yaml", "search:\n  feedback: {docs: 99, weight: 2}\n  prefix: -1\n", "owner"); !errors.As(err, &rej) {
		t.Fatalf("out-of-range search settings: %v", err)
	}
	if err := m.Round(ctx); err != nil {
		t.Fatal(err)
	}
	if v.Head() != head || v.Revision(".norn/config.yaml") != rev {
		t.Fatal("a refused config write changed the vault")
	}
	if r := find("bloom sketch"); r.Engine != vault.EngineBM25 || len(r.Hits) != 2 || r.IndexCommit != string(head) {
		t.Fatalf("after a refused config write: %+v %+v", r, r.Hits)
	}

	// Other stop words: the index is rebuilt with them.
	if err := write(v.Repo(), ".norn/config.yaml", "search:\n  feedback: {docs: 0}\n  stop_words: [bloom]\n", "owner"); err != nil {
		t.Fatal(err)
	}
	if err := m.Round(ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for find("sketch").Engine != vault.EngineBM25 {
		if time.Now().After(deadline) {
			t.Fatalf("index not back after the stop-word change: %+v", find("sketch"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if r := find("bloom"); len(r.Hits) != 0 {
		t.Fatalf("bloom is a stop word now, yet: %+v", r.Hits)
	}
	if r := find("sketch"); len(r.Hits) != 1 || r.Hits[0].Path != "b.md" {
		t.Fatalf("sketch after the rebuild: %+v", r.Hits)
	}
}

// hashingNotes are three notes about hashing: a.md says bloom, b.md sketch, c.md
// neither, so only feedback (their shared vocabulary) finds c.md for "bloom sketch".
func hashingNotes() map[string]string {
	return map[string]string{
		"a.md": "# Bloom filters\n\nA bloom filter sets bits by hashing each item with several hashing functions.\n",
		"b.md": "# Count-min sketch\n\nA sketch counts items by hashing them into rows of counters; hashing again gives an estimate.\n",
		"c.md": "# Universal families\n\nHashing functions chosen at random from a family keep hashing collisions rare.\n",
	}
}
