package main

import (
	"context"
	"fmt"
	"os"

	"github.com/norn-vault/norn/bench"
	"github.com/norn-vault/norn/bench/metric"
	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/rerank"
)

// benchReranker is the reranker of `norn bench search --rerank`: the endpoint
// from the environment (a bench has no vault of its own), the default gate, a
// budget that covers every query, no egress file (the corpus is public data).
func benchReranker(e *env, g *globals, queries int) (*rerank.Reranker, error) {
	m := config.DefaultMachine()
	if err := applyMachineEnv(&m, e.getenv); err != nil {
		return nil, err
	}
	o, ok := rerankOptions(m, config.Default(), "", logger(e, g))
	if !ok {
		return nil, usagef("--rerank: set $%s (and $%s, $%s) to the endpoint to measure", envRerankURL, envRerankModel, envRerankAPIKey)
	}
	o.EgressPath = ""
	o.CallsPerDay = max(rerank.DefaultCalls, queries)
	r, err := rerank.New(o)
	if err != nil {
		return nil, usagef("--rerank: %v", err)
	}
	return r, nil
}

// benchRerank builds a second throw-away index of notesDir, takes each query's
// BM25 top K and runs it through r.
func benchRerank(ctx context.Context, e *env, g *globals, r *rerank.Reranker, notesDir string, queries []bench.Query, q metric.Qrels) (*bench.RerankReport, error) {
	dir, err := os.MkdirTemp("", "norn-bench-rerank-")
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	defer os.RemoveAll(dir)
	fmt.Fprintf(e.stderr, "bench: rerank: rebuilding in %s and running %d queries through the reranker\n", dir, len(queries))
	rankings, err := bench.Rankings(ctx, notesDir, dir, queries, rerank.DefaultK, logger(e, g))
	if err != nil {
		return nil, err
	}
	rep := bench.EvaluateRerank(ctx, r, rerank.Auto, rerank.Gate{Threshold: rerank.DefaultThreshold}, queries, q, rankings)
	return &rep, nil
}

func printBenchRerank(e *env, r *bench.RerankReport) {
	w := e.stdout
	fmt.Fprintf(w, "\nrerank   %s, gate %.0f%% of %d queries; %d calls (%d cached, %d failed), tokens %d in / %d out, p50 %.0f ms, p95 %.0f ms\n",
		r.Engine, 100*r.GateRate, r.Queries, r.Calls, r.Cached, r.Failed, r.TokensIn, r.TokensOut, r.P50MS, r.P95MS)
	if r.Gate == nil {
		return
	}
	fmt.Fprintf(w, "gate     caught %d of %d wrong top-1s (%d with a relevant note in the top 20)\n", r.Gate.Caught, r.Gate.WrongTop1, r.Gate.Fixable)
	fmt.Fprintf(w, "quality  bm25 MAP %.4f nDCG@10 %.4f MRR@10 %.4f; with rerank MAP %.4f nDCG@10 %.4f MRR@10 %.4f\n",
		r.BM25.MAP, r.BM25.NDCG, r.BM25.MRR, r.Reranked.MAP, r.Reranked.NDCG, r.Reranked.MRR)
}
