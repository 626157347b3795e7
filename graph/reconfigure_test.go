package graph_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/norn-vault/norn/graph"
)

// TestIndex_Reconfigure: an index reconfigured with other query-time settings ranks
// exactly as one opened with them, and the change is real (the rankings differ from
// the defaults'); other stop words are refused, a closed index too.
func TestIndex_Reconfigure(t *testing.T) {
	w := graph.DefaultWeights()
	w.Title.Weight, w.Body.B, w.Prefix, w.Proximity, w.FeedbackDocs = 0.5, 0.2, 0, 2, 0
	other := graph.Options{
		Weights:       w,
		FolderFactors: map[string]float64{"tech": 0.1},
		DiversityCap:  1,
		ChunksPerFile: 2,
	}
	queries := []string{"bloom", "filter hashing", "config", "notes about links", "tomatoes sun"}
	all := func(ix *graph.Index) [][]graph.Hit {
		var out [][]graph.Hit
		for _, q := range queries {
			out = append(out, search(t, ix, q, graph.SearchOptions{Limit: 20}).Hits)
		}
		return out
	}

	ix := fixtureIndex(t, graph.Options{})
	before := all(ix)
	if err := ix.Reconfigure(other); err != nil {
		t.Fatal(err)
	}
	got := all(ix)
	want := all(fixtureIndex(t, other))
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("reconfigured index ranks\n%v\nan index opened with the same settings ranks\n%v", got, want)
	}
	if reflect.DeepEqual(got, before) {
		t.Fatal("the new settings changed no ranking: the test shows nothing")
	}
	// And back: the defaults rank as before.
	if err := ix.Reconfigure(graph.Options{}); err != nil {
		t.Fatal(err)
	}
	if back := all(ix); !reflect.DeepEqual(back, before) {
		t.Fatalf("back to the defaults:\n%v\nwant\n%v", back, before)
	}

	if err := ix.Reconfigure(graph.Options{StopWords: []string{"bloom"}}); !errors.Is(err, graph.ErrFormat) {
		t.Fatalf("other stop words: %v, want ErrFormat", err)
	}
	if back := all(ix); !reflect.DeepEqual(back, before) {
		t.Fatal("a refused Reconfigure changed the ranking")
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ix.Reconfigure(other); !errors.Is(err, graph.ErrClosed) {
		t.Fatalf("closed: %v, want ErrClosed", err)
	}
}

// TestIndex_ReconfigureConcurrent: Reconfigure alongside searches and updates (run
// with -race): every search answers, and the index ends with the last settings.
func TestIndex_ReconfigureConcurrent(t *testing.T) {
	ctx := context.Background()
	ix := fixtureIndex(t, graph.Options{})
	other := graph.Options{FolderFactors: map[string]float64{"tech": 0.1}, DiversityCap: 1}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := ix.Search(ctx, "bloom filter hashing", graph.SearchOptions{Limit: 10}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		docs := mkDocs(t, map[string]string{"tech/extra.md": "# Extra\n\nMore about bloom filters.\n"})
		for i := range 20 {
			if err := ix.Update(ctx, graph.DocBatch(fmt.Sprint("u", i), docs, nil)); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for i := range 50 {
		o := graph.Options{}
		if i%2 == 0 {
			o = other
		}
		if err := ix.Reconfigure(o); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Reconfigure(other); err != nil {
		t.Fatal(err)
	}
	close(stop)
	wg.Wait()
	got := search(t, ix, "bloom", graph.SearchOptions{Limit: 20}).Hits
	fresh := fixtureIndex(t, other)
	if err := fresh.Update(ctx, graph.DocBatch("u", mkDocs(t, map[string]string{"tech/extra.md": "# Extra\n\nMore about bloom filters.\n"}), nil)); err != nil {
		t.Fatal(err)
	}
	if want := search(t, fresh, "bloom", graph.SearchOptions{Limit: 20}).Hits; !reflect.DeepEqual(got, want) {
		t.Fatalf("after concurrent reconfiguring:\n%v\nwant\n%v", got, want)
	}
}
