package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestCLI_BenchRerank: --rerank runs the queries through the endpoint in the
// environment and reports gate, calls, tokens and both runs' quality.
func TestCLI_BenchRerank(t *testing.T) {
	dir := t.TempDir()
	notes, _, qrels := writeBenchCorpus(t, dir)
	// Words every note holds: the tops are contested, so the gate opens.
	queries := filepath.Join(dir, "generic.jsonl")
	var q strings.Builder
	for i, text := range []string{"field guide habitat", "creature lives eats", "young raises", "where habitat", "guide describes"} {
		fmt.Fprintf(&q, "{\"id\": \"k%d\", \"text\": %q}\n", i+1, text)
	}
	if err := os.WriteFile(queries, []byte(q.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req struct{ Messages []struct{ Content string } }
		var in struct{ Candidates []struct{ ID string } }
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &req)
		json.Unmarshal([]byte(req.Messages[len(req.Messages)-1].Content), &in)
		var sc []string
		for _, c := range in.Candidates {
			sc = append(sc, fmt.Sprintf(`{"id":%q,"score":0.5}`, c.ID))
		}
		content, _ := json.Marshal(`{"scores":[` + strings.Join(sc, ",") + `]}`)
		fmt.Fprintf(w, `{"model":"m","choices":[{"message":{"role":"assistant","content":%s}}],"usage":{"prompt_tokens":10,"completion_tokens":3}}`, content)
	}))
	defer srv.Close()
	vars := map[string]string{envRerankEndpoint: srv.URL + "/v1", envRerankModel: "tiny"}
	out, errs, code := benchCLI(t, vars, "bench", "search", notes, queries, qrels, "--no-fts5", "--rerank", "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	var rep struct {
		Rerank *struct {
			Engine         string
			Queries, Calls int
			TokensIn       int     `json:"tokens_in"`
			GateRate       float64 `json:"gate_rate"`
			BM25, Reranked *struct{ MRR float64 }
			Gate           *struct{ Judged int }
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Rerank == nil {
		t.Fatalf("no rerank report: %v\n%s", err, out)
	}
	r := rep.Rerank
	if r.Engine != "bm25+rerank:tiny" || r.Queries != 5 || int64(r.Calls) != calls.Load() || r.TokensIn != 10*r.Calls || r.Gate == nil || r.Gate.Judged != 5 || r.BM25 == nil || r.Reranked == nil {
		t.Fatalf("rerank report %+v (endpoint saw %d calls)", r, calls.Load())
	}
	if r.Calls == 0 {
		t.Fatal("no call made: the test proves little")
	}
	// Scores of 0.5 are unsure: the order, so the quality, stays BM25's.
	if r.Reranked.MRR != r.BM25.MRR {
		t.Fatalf("an unsure endpoint changed MRR: %v → %v", r.BM25.MRR, r.Reranked.MRR)
	}
	human, errs, code := benchCLI(t, vars, "bench", "search", notes, queries, qrels, "--no-fts5", "--rerank")
	if code != 0 || !strings.Contains(human, "rerank   bm25+rerank:tiny") || !strings.Contains(human, "quality  bm25 MAP") {
		t.Fatalf("exit %d\n%s%s", code, human, errs)
	}
	if _, errs, code := benchCLI(t, nil, "bench", "search", notes, queries, "--no-fts5", "--rerank"); code != exitUsage || !strings.Contains(errs, envRerankURL) {
		t.Fatalf("--rerank without an endpoint: exit %d %s", code, errs)
	}
}
