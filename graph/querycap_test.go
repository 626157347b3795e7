package graph_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/norn-vault/norn/graph"
)

// TestSearch_QueryCaps: a query over a cap (bytes, clauses, phrases) is an
// ErrQuery naming the cap and the size given, for Search and Scan, parsed or
// literal; a query at each cap runs.
func TestSearch_QueryCaps(t *testing.T) {
	ix, _ := openIndex(t, graph.Options{})
	docs := mkDocs(t, map[string]string{"a.md": "# Alpha\nalpha beta gamma\n"})
	if err := ix.Rebuild(context.Background(), "c1", graph.DocRecords(seq(docs)), nil); err != nil {
		t.Fatal(err)
	}
	words := func(n int) string { return strings.TrimSpace(strings.Repeat("alpha ", n)) }
	phrases := func(n int) string { return strings.TrimSpace(strings.Repeat(`"alpha beta" `, n)) }
	over := []struct {
		name, q string
		literal bool
		want    string
	}{
		{"bytes", strings.Repeat("x", graph.MaxQueryBytes+1), false, fmt.Sprintf("%d bytes, over the limit of %d", graph.MaxQueryBytes+1, graph.MaxQueryBytes)},
		{"bytes literal", strings.Repeat("x", graph.MaxQueryBytes+1), true, fmt.Sprintf("over the limit of %d", graph.MaxQueryBytes)},
		{"3 MB", strings.Repeat("alpha ", 3<<20/6), false, fmt.Sprintf("over the limit of %d", graph.MaxQueryBytes)},
		{"clauses", words(graph.MaxQueryClauses + 1), false, fmt.Sprintf("has %d words, phrases and filters, over the limit of %d", graph.MaxQueryClauses+1, graph.MaxQueryClauses)},
		{"clauses literal", words(graph.MaxQueryClauses + 1), true, fmt.Sprintf("over the limit of %d", graph.MaxQueryClauses)},
		{"phrases", phrases(graph.MaxQueryPhrases + 1), false, fmt.Sprintf("more than %d phrases", graph.MaxQueryPhrases)},
	}
	for _, c := range over {
		o := graph.SearchOptions{Literal: c.literal}
		_, err := ix.Search(context.Background(), c.q, o)
		var qe *graph.QueryError
		if !errors.Is(err, graph.ErrQuery) || !errors.As(err, &qe) || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: Search: %v, want an ErrQuery saying %q", c.name, err, c.want)
		}
		if len(err.Error()) > 400 {
			t.Fatalf("%s: the error is %d bytes: it must not echo the query", c.name, len(err.Error()))
		}
		if _, err := graph.Scan(context.Background(), c.q, seq(docs), o); !errors.Is(err, graph.ErrQuery) {
			t.Fatalf("%s: Scan: %v", c.name, err)
		}
	}
	for name, q := range map[string]string{
		"clauses": words(graph.MaxQueryClauses),
		"phrases": phrases(graph.MaxQueryPhrases),
		"bytes":   "alpha " + strings.Repeat("x", graph.MaxQueryBytes-6),
	} {
		if len(q) > graph.MaxQueryBytes {
			t.Fatalf("%s: test query too long", name)
		}
		if res := search(t, ix, q, graph.SearchOptions{}); len(res.Hits) != 1 {
			t.Fatalf("%s at the cap: %d hits", name, len(res.Hits))
		}
	}
}
