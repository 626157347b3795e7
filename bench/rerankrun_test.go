package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/norn-vault/norn/bench/metric"
	"github.com/norn-vault/norn/rerank"
)

// oracle is a chat-completions endpoint that scores candidates from the qrels:
// a judged note gets 0.7 + 0.3·grade/maxGrade, any other 0. Noisy, it is sure of
// a query only 70% of the time (seeded by the query); otherwise it is unsure and
// scores every candidate at random below 0.7, the right ones included.
func oracle(t *testing.T, q metric.Qrels, queries []Query, noisy bool) string {
	t.Helper()
	byText := map[string]map[string]int{} // queries asked twice: both judgements
	for _, x := range queries {
		if byText[x.Text] == nil {
			byText[x.Text] = map[string]int{}
		}
		maps.Copy(byText[x.Text], q[x.ID])
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Messages []struct{ Content string } }
		var in struct {
			Query      string
			Candidates []struct{ ID, Path string }
		}
		b, _ := io.ReadAll(r.Body)
		if json.Unmarshal(b, &req) != nil || json.Unmarshal([]byte(req.Messages[len(req.Messages)-1].Content), &in) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		rel := byText[in.Query]
		top := 1
		for _, g := range rel {
			top = max(top, g)
		}
		h := fnv.New64a()
		io.WriteString(h, in.Query)
		rng := rand.New(rand.NewPCG(h.Sum64(), 7))
		sure := !noisy || rng.Float64() < 0.7
		type score struct {
			ID    string  `json:"id"`
			Score float64 `json:"score"`
		}
		var out struct {
			Scores []score `json:"scores"`
		}
		for _, c := range in.Candidates {
			s := 0.0
			g, ok := rel[strings.TrimLeft(c.Path, "./")]
			if !ok {
				g, ok = rel[metric.Stem(c.Path)]
			}
			switch {
			case !sure:
				s = rng.Float64() * 0.69
			case ok:
				s = 0.7 + 0.3*float64(g)/float64(top)
			}
			out.Scores = append(out.Scores, score{c.ID, s})
		}
		content, _ := json.Marshal(out)
		msg, _ := json.Marshal(string(content))
		fmt.Fprintf(w, `{"model":"oracle","choices":[{"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`, msg)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

func oracleReranker(t *testing.T, url string, k int) *rerank.Reranker {
	t.Helper()
	r, err := rerank.New(rerank.Options{Endpoint: url, Model: "oracle", K: k, Gate: rerank.Gate{Threshold: rerank.DefaultThreshold},
		CallsPerDay: 1 << 30, TokensPerDay: 1 << 30, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRerankStudy runs the shared collections through the reranker with an
// oracle endpoint: the ceiling of the plumbing at K = 10, 20, 30, the gate's
// figures, and a noisy oracle that must never make a query worse than BM25
// under the merge rule. The figures are logged (go test -v) as the rows of
// docs/search-quality.md's rerank tables. Skipped without ../shared.
func TestRerankStudy(t *testing.T) {
	if testing.Short() {
		t.Skip("the rerank study is skipped in -short")
	}
	if raceEnabled {
		t.Skip("the big corpora under -race take minutes: run without -race")
	}
	ctx := context.Background()
	for _, s := range studySets(t) {
		t.Run(s.name, func(t *testing.T) {
			queries, err := LoadQueries(s.queries)
			if err != nil {
				t.Fatal(err)
			}
			q := s.judgements(t)
			rankings := s.rankings(t, 30)
			bm25 := BM25Run(rankings)
			base := metric.Score(q, bm25, Limit)
			g := Gate(rerank.Gate{Threshold: rerank.DefaultThreshold}, q, rankings, 20)
			t.Logf("gate | %s | %d | %.1f%% | %d | %d (%.1f%%) | %d", s.name, g.Judged, pct(g.Gated, g.Judged),
				g.WrongTop1, g.Caught, pct(g.Caught, g.WrongTop1), g.Fixable)
			row := fmt.Sprintf("ceiling | %s | %.3f / %.3f", s.name, base.MRR, base.NDCG)
			perfect := oracle(t, q, queries, false)
			for _, k := range []int{10, 20, 30} {
				run, _ := RerankRun(ctx, oracleReranker(t, perfect, k), rerank.Force, queries, rankings)
				sc := metric.Score(q, run, Limit)
				if sc.MRR < base.MRR || sc.NDCG < base.NDCG {
					t.Errorf("K=%d: a perfect reranker scored below BM25: %+v vs %+v", k, sc, base)
				}
				row += fmt.Sprintf(" | %.3f / %.3f", sc.MRR, sc.NDCG)
			}
			run, st := RerankRun(ctx, oracleReranker(t, perfect, 20), rerank.Auto, queries, rankings)
			sc := metric.Score(q, run, Limit)
			row += fmt.Sprintf(" | %.3f / %.3f (%d calls)", sc.MRR, sc.NDCG, st.Calls)

			noisy := oracle(t, q, queries, true)
			run, st = RerankRun(ctx, oracleReranker(t, noisy, 20), rerank.Force, queries, rankings)
			sc = metric.Score(q, run, Limit)
			if w := Worse(q, bm25, run, Limit); w != 0 {
				t.Errorf("the noisy oracle made %d queries worse than BM25", w)
			}
			if asked := answered(queries, rankings); st.Failed != 0 || st.Calls+st.Cached != asked {
				t.Errorf("noisy run: %d calls, %d cached, %d failed for %d queries with results", st.Calls, st.Cached, st.Failed, asked)
			}
			t.Logf("%s | %.3f / %.3f", row, sc.MRR, sc.NDCG)
		})
	}
}

// answered counts the queries with at least one result.
func answered(queries []Query, rankings map[string][]Ranked) int {
	n := 0
	for _, q := range queries {
		if len(rankings[q.ID]) > 0 {
			n++
		}
	}
	return n
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// TestWorse: Worse sees a query pushed down, and nothing when a run equals its
// base.
func TestWorse(t *testing.T) {
	q := metric.Qrels{"1": {"a": 1}, "2": {"b": 1}}
	base := map[string][]string{"1": {"docs/a.md", "docs/x.md"}, "2": {"docs/x.md", "docs/b.md"}}
	if n := Worse(q, base, base, 10); n != 0 {
		t.Fatalf("equal runs: %d worse", n)
	}
	run := map[string][]string{"1": {"docs/x.md", "docs/a.md"}, "2": {"docs/b.md", "docs/x.md"}}
	if n := Worse(q, base, run, 10); n != 1 {
		t.Fatalf("one query pushed down: %d worse", n)
	}
}
