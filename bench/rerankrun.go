package bench

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/norn-vault/norn/bench/metric"
	"github.com/norn-vault/norn/rerank"
)

// RerankStats count what a rerank run did.
type RerankStats struct {
	Queries, Gated, Calls, Cached, Failed int
	TokensIn, TokensOut                   int
	Latencies                             []time.Duration // of the calls made
}

// RerankRun passes each query's BM25 ranking through r under mode (all results
// public) and returns the final order of each query (id → paths) and what the
// reranker did.
func RerankRun(ctx context.Context, r *rerank.Reranker, mode rerank.Mode, queries []Query, rankings map[string][]Ranked) (map[string][]string, RerankStats) {
	run := make(map[string][]string, len(queries))
	var st RerankStats
	for _, q := range queries {
		rs := rankings[q.ID]
		cs := make([]rerank.Candidate, len(rs))
		for i, h := range rs {
			cs[i] = rerank.Candidate{ID: h.Path, Path: h.Path, Title: h.Title, Text: h.Text, Revision: h.Revision, Score: h.Score}
		}
		res := r.Rerank(ctx, mode, q.Text, cs)
		st.Queries++
		if res.Gate.Contested {
			st.Gated++
		}
		switch {
		case res.Cached:
			st.Cached++
		case res.Reranked:
			st.Calls++
			st.Latencies = append(st.Latencies, res.Latency)
		case res.Engine != "bm25":
			st.Failed++
			if res.Latency > 0 {
				st.Calls++
				st.Latencies = append(st.Latencies, res.Latency)
			}
		}
		st.TokensIn += res.TokensIn
		st.TokensOut += res.TokensOut
		paths := make([]string, len(res.Candidates))
		for i, c := range res.Candidates {
			paths[i] = c.Path
		}
		run[q.ID] = paths
	}
	return run, st
}

// BM25Run is the rankings as a run (id → paths).
func BM25Run(rankings map[string][]Ranked) map[string][]string {
	run := make(map[string][]string, len(rankings))
	for id, rs := range rankings {
		for _, h := range rs {
			run[id] = append(run[id], h.Path)
		}
	}
	return run
}

// GateFigures say how a gate splits the judged queries of rankings.
type GateFigures struct {
	Judged    int
	Gated     int // queries whose top is contested
	WrongTop1 int // queries whose first result is not judged relevant
	Caught    int // wrong top-1s the gate opened for
	// Fixable: caught wrong top-1s with a relevant result in the top k, which a
	// perfect reranker would put first.
	Fixable int
}

// Gate measures g on the judged queries of rankings, with a shortlist of k.
func Gate(g rerank.Gate, q metric.Qrels, rankings map[string][]Ranked, k int) GateFigures {
	var f GateFigures
	for _, qid := range slices.Sorted(maps.Keys(q)) {
		if len(q[qid]) == 0 {
			continue
		}
		f.Judged++
		rs := rankings[qid]
		scores := make([]float64, 0, 2)
		for _, h := range rs[:min(2, len(rs))] {
			scores = append(scores, h.Score)
		}
		open := g.Decide(scores).Contested
		if open {
			f.Gated++
		}
		if len(rs) > 0 && relevant(q, qid, rs[0].Path) {
			continue
		}
		f.WrongTop1++
		if !open {
			continue
		}
		f.Caught++
		for _, h := range rs[:min(k, len(rs))] {
			if relevant(q, qid, h.Path) {
				f.Fixable++
				break
			}
		}
	}
	return f
}

// relevant says whether path is judged relevant for qid, as metric.Score
// matches results to judgements.
func relevant(q metric.Qrels, qid, path string) bool {
	return metric.Score(metric.Qrels{qid: q[qid]}, map[string][]string{qid: {path}}, 1).Top1 > 0
}

// Worse counts the judged queries whose reciprocal rank or nDCG at k is lower
// in run than in base.
func Worse(q metric.Qrels, base, run map[string][]string, k int) int {
	n := 0
	for qid, rel := range q {
		if len(rel) == 0 {
			continue
		}
		one := metric.Qrels{qid: rel}
		b := metric.Score(one, map[string][]string{qid: base[qid]}, k)
		r := metric.Score(one, map[string][]string{qid: run[qid]}, k)
		if r.MRR < b.MRR || r.NDCG < b.NDCG-1e-9 {
			n++
		}
	}
	return n
}

// RerankReport is what `norn bench search --rerank` measured against the
// configured endpoint: the gate, the quality with and without rerank, and the
// calls' cost.
type RerankReport struct {
	Engine    string  `json:"engine"` // the label of a reranked answer
	Queries   int     `json:"queries"`
	GateRate  float64 `json:"gate_rate"`
	Calls     int     `json:"calls"`
	Cached    int     `json:"cached"`
	Failed    int     `json:"failed"`
	TokensIn  int     `json:"tokens_in"`
	TokensOut int     `json:"tokens_out"`
	P50MS     float64 `json:"p50_ms"`
	P95MS     float64 `json:"p95_ms"`
	// With judgements: the gate's figures and both runs' scores at Limit.
	Gate     *GateFigures   `json:"gate,omitempty"`
	BM25     *metric.Scores `json:"bm25,omitempty"`
	Reranked *metric.Scores `json:"reranked,omitempty"`
}

// EvaluateRerank runs queries' rankings through r in mode and reports it; q may be
// nil (no quality figures).
func EvaluateRerank(ctx context.Context, r *rerank.Reranker, mode rerank.Mode, g rerank.Gate, queries []Query, q metric.Qrels, rankings map[string][]Ranked) RerankReport {
	run, st := RerankRun(ctx, r, mode, queries, rankings)
	rep := RerankReport{Engine: r.Label(""), Queries: st.Queries, Calls: st.Calls, Cached: st.Cached, Failed: st.Failed,
		TokensIn: st.TokensIn, TokensOut: st.TokensOut}
	if st.Queries > 0 {
		rep.GateRate = metric.Round(float64(st.Gated)/float64(st.Queries), 4)
	}
	rep.P50MS, rep.P95MS, _, _ = latencyStats(st.Latencies)
	if q != nil {
		gf := Gate(g, q, rankings, 20)
		b, rr := metric.Score(q, BM25Run(rankings), Limit), metric.Score(q, run, Limit)
		rep.Gate, rep.BM25, rep.Reranked = &gf, &b, &rr
	}
	return rep
}
