package server_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/server"
)

// TestSearchOptionsFrom_Defaults: the defaults of .norn/config.yaml's search section
// are exactly graph's, so the figures measured with graph.DefaultWeights are what a
// vault without settings gets.
func TestSearchOptionsFrom_Defaults(t *testing.T) {
	got := server.SearchOptionsFrom(config.Default(), nil).Weights
	if want := graph.DefaultWeights(); got != want {
		t.Fatalf("search defaults of config.yaml:\n%+v\ngraph's defaults:\n%+v", got, want)
	}
}

// TestSearchSettings_FeedbackAndPrefix: search.feedback and search.prefix from a
// config.yaml reach the ranking. Feedback brings in a note that has none of the query
// words (it shares the best notes' vocabulary) and docs: 0 leaves it out; a word's
// prefix matches, and prefix: 0 turns them off.
func TestSearchSettings_FeedbackAndPrefix(t *testing.T) {
	ctx := context.Background()
	v := openServed(t, map[string]string{
		"a.md": "# Bloom filters\n\nA bloom filter sets bits by hashing each item with several hashing functions.\n",
		"b.md": "# Count-min sketch\n\nA sketch counts items by hashing them into rows of counters; hashing again gives an estimate.\n",
		"c.md": "# Universal families\n\nHashing functions chosen at random from a family keep hashing collisions rare.\n",
		"d.md": "# Gardening\n\nTomatoes want sun and water.\n",
	})
	if err := v.Index.Close(); err != nil {
		t.Fatal(err)
	}
	search := func(yaml, query string) []string {
		t.Helper()
		cfg, err := config.Parse([]byte(yaml))
		if err != nil {
			t.Fatal(err)
		}
		x := server.OpenIndexer(ctx, v.Vault, server.SearchOptionsFrom(cfg, nil), nil)
		defer x.Close()
		r, err := x.Search(ctx, server.SearchRequest{Query: query, Limit: 10, WaitForPendingWrites: true})
		if err != nil || r.Engine != server.EngineBM25 {
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
