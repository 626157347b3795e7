package graph_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/norn-vault/norn/graph"
)

func TestScan(t *testing.T) {
	docs := mkDocs(t, vault)
	ctx := context.Background()
	tests := []struct {
		q    string
		want []string // in order when order is asserted by top
		top  string
	}{
		{q: "bloom filters", top: "tech/bloom-filters.md"},
		{q: "aeroskobing", want: []string{"life/cafe.md"}},
		{q: "Ærøskøbing", want: []string{"life/cafe.md"}},
		{q: `"quick brown"`, want: []string{"tech/phrases.md"}},
		{q: `"quick brown" fox`, want: []string{"tech/phrases.md", "tech/reversed.md"}},
		{q: `+"quick brown" fox`, want: []string{"tech/phrases.md"}},
		{q: "fox - brown", want: []string{"tech/phrases.md", "tech/reversed.md"}},
		{q: "bloom -probabilistic", want: []string{}},
		{q: "tag:hashing", want: []string{"tech/bloom-filters.md", "tech/hashing/consistent-hashing.md"}},
		{q: "status:archived", want: []string{"archive/old-bloom.md"}},
		{q: "bloom folder:archive", want: []string{"archive/old-bloom.md"}},
		{q: "configur", want: []string{"inbox/config.md"}}, // a substring
	}
	for _, tt := range tests {
		res, err := graph.Scan(ctx, tt.q, seq(docs), graph.SearchOptions{Limit: 50})
		if err != nil {
			t.Fatalf("%q: %v", tt.q, err)
		}
		got := paths(res)
		if tt.top != "" && (len(got) == 0 || got[0] != tt.top) {
			t.Errorf("%q: top %v, want %s", tt.q, got, tt.top)
		}
		if tt.want != nil {
			a, b := slices.Clone(got), slices.Clone(tt.want)
			slices.Sort(a)
			slices.Sort(b)
			if !slices.Equal(a, b) {
				t.Errorf("%q: %v, want %v", tt.q, got, tt.want)
			}
		}
		if res.Engine != "scan" || res.ScannedDocs != len(docs) || res.Truncated || res.Total != len(got) {
			t.Errorf("%q: engine %q scanned %d truncated %v total %d", tt.q, res.Engine, res.ScannedDocs, res.Truncated, res.Total)
		}
	}
	res, err := graph.Scan(ctx, "false positive", seq(docs), graph.SearchOptions{})
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("scan: %v %v", res, err)
	}
	h := res.Hits[0]
	if h.Path != "tech/bloom-filters.md" || h.Line != 13 || h.Section != "False positives" || !strings.Contains(h.Snippet, "«false» «positive»") {
		t.Errorf("hit %+v", h)
	}
}

func TestScan_Bounds(t *testing.T) {
	docs := mkDocs(t, vault)
	ctx := context.Background()
	res, err := graph.Scan(ctx, "bloom", seq(docs), graph.SearchOptions{MaxScanDocs: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.ScannedDocs != 3 || !res.Truncated {
		t.Errorf("doc bound: scanned %d truncated %v", res.ScannedDocs, res.Truncated)
	}
	res, err = graph.Scan(ctx, "bloom", seq(docs), graph.SearchOptions{MaxScanBytes: 200})
	if err != nil {
		t.Fatal(err)
	}
	if res.ScannedBytes > 200 || !res.Truncated || res.ScannedDocs >= len(docs) {
		t.Errorf("byte bound: scanned %d docs %d bytes truncated %v", res.ScannedDocs, res.ScannedBytes, res.Truncated)
	}
	boom := errors.New("boom")
	failing := func(yield func(graph.Doc, error) bool) { yield(graph.Doc{}, boom) }
	if _, err := graph.Scan(ctx, "bloom", failing, graph.SearchOptions{}); !errors.Is(err, boom) {
		t.Errorf("iterator error: %v", err)
	}
	if _, err := graph.Scan(ctx, `"open`, seq(docs), graph.SearchOptions{}); !errors.Is(err, graph.ErrQuery) {
		t.Errorf("bad query: %v", err)
	}
}
