package rerank_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/norn-vault/norn/rerank"
)

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

func TestMerge(t *testing.T) {
	cs := cands() // a b c d e
	cs[1].Private = true
	sent := []int{0, 2, 3, 4}
	tests := []struct {
		name   string
		scores map[string]float64
		want   []string
	}{
		{"unsure model changes nothing", map[string]float64{"a": 0.1, "c": 0.6, "d": 0.69, "e": 0.5}, []string{"a", "b", "c", "d", "e"}},
		{"confident ones lead, by score", map[string]float64{"a": 0.1, "c": 0.8, "d": 0.1, "e": 0.9}, []string{"e", "b", "c", "a", "d"}},
		{"ties keep BM25 order", map[string]float64{"a": 0.9, "c": 0.9, "d": 0.9, "e": 0.9}, []string{"a", "b", "c", "d", "e"}},
	}
	for _, tc := range tests {
		got := rerank.Merge(cs, sent, tc.scores, rerank.DefaultConfident)
		if !slices.Equal(ids(got), tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, ids(got), tc.want)
		}
	}
	if !slices.Equal(ids(cs), []string{"a", "b", "c", "d", "e"}) {
		t.Fatal("Merge changed its argument")
	}
}

func TestGate_Decide(t *testing.T) {
	g := rerank.Gate{Threshold: 0.9}
	for _, tc := range []struct {
		scores []float64
		want   bool
	}{{nil, false}, {[]float64{3}, false}, {[]float64{10, 9}, true}, {[]float64{10, 8.99}, false}, {[]float64{0, 0}, false}, {[]float64{10, 10}, true}} {
		if got := g.Decide(tc.scores); got.Contested != tc.want {
			t.Errorf("%v: %+v", tc.scores, got)
		}
	}
	if !(rerank.Gate{}).Decide([]float64{10, 1}).Contested {
		t.Error("threshold 0 must always be contested")
	}
}
