package rerank_test

import (
	"math"
	"testing"

	"github.com/norn-vault/norn/rerank"
)

func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{
		`{"scores":[{"id":"a","score":0.5},{"id":"b","score":1}]}`,
		"```json\n{\"scores\":[{\"id\":\"a\",\"score\":0},{\"id\":\"b\",\"score\":0.2}]}\n```",
		`Sure! {"scores":[{"id":"b","score":0.1},{"id":"a","score":0.3}]} hope that helps`,
		`{"scores":[{"id":"a","score":0.5}`, `{"scores":[{"id":"a","score":-1},{"id":"b","score":2}]}`,
		`{"scores":[{"id":"a","score":0.5},{"id":"a","score":0.5}]}`, `{"scores":null}`, `[]`, ``, `{`, `{"scores":[{"id":"a"}]}`,
		`{"scores":[{"id":"a","score":"0.5"},{"id":"b","score":1e400}]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		ids := []string{"a", "b"}
		got, err := rerank.ParseAnswer(content, ids)
		if err != nil {
			if got != nil {
				t.Fatal("scores with an error")
			}
			return
		}
		if len(got) != len(ids) {
			t.Fatalf("%d scores for %d ids", len(got), len(ids))
		}
		for _, id := range ids {
			s, ok := got[id]
			if !ok || math.IsNaN(s) || s < 0 || s > 1 {
				t.Fatalf("id %q: %v %v", id, s, ok)
			}
		}
	})
}
