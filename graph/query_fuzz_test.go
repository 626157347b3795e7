package graph_test

import (
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/norn-vault/norn/graph"
)

// FuzzParseQuery: any input either parses into clauses with positions inside the
// query, or fails with a *QueryError (ErrQuery) whose position is inside it.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{
		"bloom filter", `"count min" -sketch`, "tag:a/b folder:x k:v", `k:"a b" OR "c"`,
		"a OR b OR c", "+must -not", `"unterminated`, "OR", "-", "tag:", "\xff", "Note: std::x",
		`""`, "a\u00a0b", "-\"x y\"", "x:y:z", "::", "+-a", "slow - even +", `"a b", "c d"? e`, `"a"b`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := graph.ParseQuery(s)
		if err != nil {
			var qe *graph.QueryError
			if !errors.Is(err, graph.ErrQuery) || !errors.As(err, &qe) {
				t.Fatalf("ParseQuery(%q): error %v does not match ErrQuery", s, err)
			}
			if qe.Pos < 0 || qe.Pos > len(s) {
				t.Fatalf("ParseQuery(%q): position %d outside the query", s, qe.Pos)
			}
			return
		}
		if len(q.Clauses) == 0 {
			t.Fatalf("ParseQuery(%q): no clauses and no error", s)
		}
		positive := false
		for _, c := range q.Clauses {
			if c.Pos < 0 || c.Pos >= len(s) {
				t.Fatalf("ParseQuery(%q): clause %+v position outside the query", s, c)
			}
			if c.Value == "" || !utf8.ValidString(c.Value) {
				t.Fatalf("ParseQuery(%q): clause %+v has a bad value", s, c)
			}
			positive = positive || !c.Negated
		}
		if !positive {
			t.Fatalf("ParseQuery(%q): only negated clauses", s)
		}
	})
}
