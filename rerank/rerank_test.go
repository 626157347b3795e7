package rerank_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/norn-vault/norn/rerank"
)

const testKey = "sk-test-SECRET-0123456789abcdef"

// cands are five public candidates with a contested top (ratio 0.95).
func cands() []rerank.Candidate {
	scores := []float64{10, 9.5, 9, 5, 4}
	var out []rerank.Candidate
	for i, s := range scores {
		id := string(rune('a' + i))
		out = append(out, rerank.Candidate{ID: id, Path: "notes/" + id + ".md", Title: "Note " + id,
			Text: "text of " + id, Revision: "rev-" + id, Score: s})
	}
	return out
}

func ids(cs []rerank.Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

func newReranker(t *testing.T, url string, mod func(*rerank.Options)) (*rerank.Reranker, *bytes.Buffer, string) {
	t.Helper()
	var logs bytes.Buffer
	egress := filepath.Join(t.TempDir(), "egress.jsonl")
	o := rerank.Options{Endpoint: url, Model: "m1", APIKey: testKey, Gate: rerank.Gate{Threshold: 0.9},
		Timeout: 2 * time.Second, EgressPath: egress,
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	if mod != nil {
		mod(&o)
	}
	r, err := rerank.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return r, &logs, egress
}

func TestReranker_Rerank_Contract(t *testing.T) {
	e := newEndpoint(t, favour(t, "d"))
	r, _, egress := newReranker(t, e.url(), nil)
	res := r.Rerank(context.Background(), rerank.Auto, "which note", cands())
	if res.Engine != "bm25+rerank:m1" || !res.Reranked || res.Cached {
		t.Fatalf("engine %q reranked %v cached %v", res.Engine, res.Reranked, res.Cached)
	}
	if got := ids(res.Candidates); !slices.Equal(got, []string{"d", "a", "b", "c", "e"}) {
		t.Fatalf("order %v", got)
	}
	if res.TokensIn != 100 || res.TokensOut != 20 {
		t.Fatalf("tokens %d/%d", res.TokensIn, res.TokensOut)
	}
	reqs := e.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	raw := string(reqs[0])
	if !strings.Contains(raw, `"temperature":0`) {
		t.Errorf("temperature 0 not sent: %s", raw)
	}
	if !strings.Contains(raw, `"type":"json_schema"`) {
		t.Errorf("no structured response format: %s", raw)
	}
	if e.auth[0] != "Bearer "+testKey {
		t.Errorf("authorization %q", e.auth[0])
	}
	b, err := os.ReadFile(egress)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := rerank.ReadEgress(bytes.NewReader(b), time.Time{})
	if err != nil || len(recs) != 1 {
		t.Fatalf("egress %v %v", recs, err)
	}
	g := recs[0]
	if g.Outcome != "ok" || g.Model != "m1" || !strings.HasPrefix(e.url(), "http://"+g.Host) || len(g.QueryHash) != 64 ||
		!slices.Equal(g.Paths, []string{"notes/a.md", "notes/b.md", "notes/c.md", "notes/d.md", "notes/e.md"}) || g.TokensIn != 100 || g.Estimated {
		t.Fatalf("egress record %+v", g)
	}
	if bytes.Contains(b, []byte("which note")) || bytes.Contains(b, []byte("text of")) {
		t.Fatalf("egress holds the query or a text: %s", b)
	}
}

func TestReranker_Rerank_WireContent(t *testing.T) {
	var got wireQuery
	e := newEndpoint(t, func(n int, req chatReq) (int, string) {
		got = req.query(t)
		return favour(t)(n, req)
	})
	r, _, _ := newReranker(t, e.url(), func(o *rerank.Options) { o.K = 3 })
	r.Rerank(context.Background(), rerank.Auto, "q words", cands())
	if got.Query != "q words" || len(got.Candidates) != 3 {
		t.Fatalf("sent %+v", got)
	}
	c := got.Candidates[1]
	if c.ID != "b" || c.Title != "Note b" || c.Path != "notes/b.md" || c.Text != "text of b" {
		t.Fatalf("candidate %+v", c)
	}
}

func TestReranker_Rerank_Gate(t *testing.T) {
	e := newEndpoint(t, favour(t, "e"))
	r, _, _ := newReranker(t, e.url(), nil)
	clear := cands()
	clear[1].Score = 5 // ratio 0.5: the top is not contested
	res := r.Rerank(context.Background(), rerank.Auto, "q", clear)
	if res.Engine != "bm25" || res.Reranked || res.Gate.Contested || !slices.Equal(ids(res.Candidates), ids(clear)) {
		t.Fatalf("gate closed: %+v", res)
	}
	if res = r.Rerank(context.Background(), rerank.Off, "q", cands()); res.Engine != "bm25" {
		t.Fatalf("off: %q", res.Engine)
	}
	if n := len(e.requests()); n != 0 {
		t.Fatalf("gate closed or off, yet %d requests", n)
	}
	if res = r.Rerank(context.Background(), rerank.Force, "q", clear); !res.Reranked || res.Candidates[0].ID != "e" {
		t.Fatalf("force: %+v", res)
	}
}

func TestReranker_Rerank_Cache(t *testing.T) {
	e := newEndpoint(t, favour(t, "c"))
	r, _, _ := newReranker(t, e.url(), nil)
	first := r.Rerank(context.Background(), rerank.Auto, "q", cands())
	again := r.Rerank(context.Background(), rerank.Auto, "q", cands())
	if !again.Cached || again.Engine != first.Engine || !slices.Equal(ids(again.Candidates), ids(first.Candidates)) {
		t.Fatalf("repeat: %+v", again)
	}
	if n := len(e.requests()); n != 1 {
		t.Fatalf("a repeated query made %d calls", n)
	}
	changed := cands()
	changed[2].Revision = "rev-c2"
	if res := r.Rerank(context.Background(), rerank.Auto, "q", changed); res.Cached {
		t.Fatal("a changed revision was answered from the cache")
	}
	if n := len(e.requests()); n != 2 {
		t.Fatalf("%d calls after a revision changed", n)
	}
}

// TestReranker_Rerank_Failures: every failure leaves the BM25 order and says why.
func TestReranker_Rerank_Failures(t *testing.T) {
	tests := []struct {
		name   string
		reply  func(n int, req chatReq) (int, string)
		mod    func(*rerank.Options)
		engine string
		calls  int
	}{
		{"slower than the timeout", func(int, chatReq) (int, string) { return -1, "" },
			func(o *rerank.Options) { o.Timeout = 150 * time.Millisecond }, "bm25 (rerank failed: timeout)", 1},
		{"http 500 after retries", func(int, chatReq) (int, string) { return 500, "oops" }, nil, "bm25 (rerank failed: http 500)", 3},
		{"http 401 not retried", func(int, chatReq) (int, string) { return 401, `{"error":"bad key"}` }, nil, "bm25 (rerank failed: http 401)", 1},
		{"not a completion", func(int, chatReq) (int, string) { return 200, `<html>` }, nil, "bm25 (rerank failed: malformed answer)", 1},
		{"partial JSON", func(int, chatReq) (int, string) { return 200, completion(`{"scores":[{"id":"a","score":0.9},`, 1, 1) }, nil, "bm25 (rerank failed: malformed answer)", 1},
		{"unknown id", func(int, chatReq) (int, string) {
			return 200, completion(scoresJSON([]string{"a", "b", "c", "d", "zz"}, func(string) float64 { return 0.9 }), 1, 1)
		}, nil, "bm25 (rerank failed: malformed answer)", 1},
		{"missing id", func(int, chatReq) (int, string) {
			return 200, completion(scoresJSON([]string{"a", "b", "c", "d"}, func(string) float64 { return 0.9 }), 1, 1)
		}, nil, "bm25 (rerank failed: malformed answer)", 1},
		{"score out of range", func(int, chatReq) (int, string) {
			return 200, completion(scoresJSON([]string{"a", "b", "c", "d", "e"}, func(id string) float64 { return map[string]float64{"e": 7}[id] }), 1, 1)
		}, nil, "bm25 (rerank failed: malformed answer)", 1},
		{"refusal", func(int, chatReq) (int, string) {
			return 200, `{"model":"m","choices":[{"message":{"role":"assistant","content":null,"refusal":"no"},"finish_reason":"stop"}]}`
		}, nil, "bm25 (rerank failed: refused)", 1},
		{"unreachable", nil, nil, "bm25 (rerank failed: transport)", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			url := "http://127.0.0.1:1/v1" // nothing listens on port 1
			var e *endpoint
			if tc.reply != nil {
				e = newEndpoint(t, tc.reply)
				url = e.url()
			}
			r, logs, egress := newReranker(t, url, tc.mod)
			res := r.Rerank(context.Background(), rerank.Auto, "q", cands())
			if res.Engine != tc.engine || res.Reranked || !slices.Equal(ids(res.Candidates), ids(cands())) {
				t.Fatalf("engine %q reranked %v order %v", res.Engine, res.Reranked, ids(res.Candidates))
			}
			if e != nil && len(e.requests()) != tc.calls {
				t.Fatalf("%d requests, want %d", len(e.requests()), tc.calls)
			}
			b, _ := os.ReadFile(egress)
			if !strings.Contains(string(b), strings.TrimSuffix(strings.TrimPrefix(tc.engine, "bm25 (rerank failed: "), ")")) {
				t.Fatalf("egress does not record the outcome: %s", b)
			}
			recs, err := rerank.ReadEgress(bytes.NewReader(b), time.Time{})
			if err != nil || len(recs) != 1 {
				t.Fatalf("egress %v %v", recs, err)
			}
			if tc.reply != nil {
				if _, body := tc.reply(1, chatReq{}); strings.Contains(body, `"usage"`) {
					if g := recs[0]; g.TokensIn != 1 || g.Estimated || res.TokensEstimated {
						t.Fatalf("egress tokens in %d estimated %v: the endpoint's usage was 1", g.TokensIn, g.Estimated)
					}
					return
				}
			}
			// No usage came back: the record holds the prompt's estimate, marked so.
			if g := recs[0]; g.TokensIn <= 0 || !g.Estimated || g.TokensIn != res.TokensIn || !res.TokensEstimated {
				t.Fatalf("egress tokens in %d estimated %v (result %d %v), want the prompt's estimate, marked", g.TokensIn, g.Estimated, res.TokensIn, res.TokensEstimated)
			}
			if e != nil && len(e.requests()) > 0 {
				var req chatReq
				if err := json.Unmarshal(e.requests()[0], &req); err != nil {
					t.Fatal(err)
				}
				sent := 0
				for _, m := range req.Messages {
					sent += len(m.Content)
				}
				if got, want := recs[0].TokensIn, (sent+3)/4; got < want {
					t.Fatalf("estimated %d tokens in for %d bytes of messages, want at least %d", got, sent, want)
				}
			}
			if strings.Contains(logs.String()+string(b)+res.Engine, testKey) {
				t.Fatal("the API key leaked into a log line, the egress file or the engine label")
			}
		})
	}
}

func TestReranker_Rerank_Retries(t *testing.T) {
	e := newEndpoint(t, func(n int, req chatReq) (int, string) {
		if n == 1 {
			return 429, `{"error":"slow down"}`
		}
		if n == 2 {
			return 503, "busy"
		}
		return favour(t, "c")(n, req)
	})
	r, _, _ := newReranker(t, e.url(), nil)
	res := r.Rerank(context.Background(), rerank.Auto, "q", cands())
	if !res.Reranked || res.Candidates[0].ID != "c" || len(e.requests()) != 3 {
		t.Fatalf("after 429 and 503: %q, %d requests", res.Engine, len(e.requests()))
	}
}

// TestReranker_Rerank_PlainJSON: an endpoint without structured output refuses
// the response format (400) and answers in a fence; the answer is still read.
func TestReranker_Rerank_PlainJSON(t *testing.T) {
	e := newEndpoint(t, func(n int, req chatReq) (int, string) {
		if req.ResponseFormat != nil {
			return 400, `{"error":"response_format not supported"}`
		}
		content := "Here you are:\n```json\n" + scoresJSON([]string{"a", "b", "c", "d", "e"}, func(id string) float64 {
			if id == "b" {
				return 1
			}
			return 0
		}) + "\n```"
		return 200, completion(content, 5, 5)
	})
	r, _, _ := newReranker(t, e.url(), nil)
	res := r.Rerank(context.Background(), rerank.Auto, "q", cands())
	if !res.Reranked || !slices.Equal(ids(res.Candidates), []string{"b", "a", "c", "d", "e"}) {
		t.Fatalf("%q %v", res.Engine, ids(res.Candidates))
	}
	if reqs := e.requests(); len(reqs) != 2 || bytes.Contains(reqs[1], []byte("response_format")) {
		t.Fatalf("fallback requests: %d", len(reqs))
	}
}

func TestReranker_Rerank_Budget(t *testing.T) {
	e := newEndpoint(t, favour(t, "c"))
	now := time.Date(2026, 12, 7, 23, 0, 0, 0, time.UTC)
	r, _, egress := newReranker(t, e.url(), func(o *rerank.Options) {
		o.CallsPerDay = 1
		o.Now = func() time.Time { return now }
	})
	if res := r.Rerank(context.Background(), rerank.Auto, "one", cands()); !res.Reranked {
		t.Fatalf("first call: %q", res.Engine)
	}
	res := r.Rerank(context.Background(), rerank.Force, "two", cands())
	if res.Engine != "bm25 (rerank skipped: budget)" || !slices.Equal(ids(res.Candidates), ids(cands())) {
		t.Fatalf("budget spent: %q %v", res.Engine, ids(res.Candidates))
	}
	if res := r.Rerank(context.Background(), rerank.Auto, "one", cands()); !res.Cached {
		t.Fatal("a cached answer costs no budget, yet was refused")
	}
	if n := len(e.requests()); n != 1 {
		t.Fatalf("%d calls with a budget of 1", n)
	}
	now = now.Add(2 * time.Hour) // the next UTC day
	if res := r.Rerank(context.Background(), rerank.Auto, "two", cands()); !res.Reranked {
		t.Fatalf("next day: %q", res.Engine)
	}
	b, _ := os.ReadFile(egress)
	if n := bytes.Count(b, []byte("\n")); n != 2 {
		t.Fatalf("%d egress records for 2 calls", n)
	}

	tok, _, _ := newReranker(t, e.url(), func(o *rerank.Options) { o.TokensPerDay = 10 })
	if res := tok.Rerank(context.Background(), rerank.Auto, "q", cands()); res.Engine != "bm25 (rerank skipped: budget)" {
		t.Fatalf("token budget: %q", res.Engine)
	}
}

func TestNew_BadOptions(t *testing.T) {
	for _, o := range []rerank.Options{
		{Endpoint: ""}, {Endpoint: "ftp://x/v1"}, {Endpoint: "http://user:" + testKey + "@h/v1"},
		{Endpoint: "http://h/v1", K: 51}, {Endpoint: "http://h/v1", Gate: rerank.Gate{Threshold: 2}},
		{Endpoint: "http://h/v1", TokensPerDay: -1},
	} {
		_, err := rerank.New(o)
		if !errors.Is(err, rerank.ErrConfig) {
			t.Errorf("%+v: %v", o.K, err)
		}
		if err != nil && strings.Contains(err.Error(), testKey) {
			t.Error("the error quotes the key")
		}
	}
}

func TestReadEgress(t *testing.T) {
	in := `{"time":"2026-12-01T10:00:00Z","host":"h","model":"m","query_sha256":"x","paths":["a.md"],"tokens_in":1,"tokens_out":2,"latency_ms":3,"outcome":"ok"}

{"time":"2026-12-03T10:00:00Z","host":"h","model":"m","query_sha256":"y","paths":[],"tokens_in":1,"tokens_out":2,"latency_ms":3,"outcome":"timeout"}
`
	recs, err := rerank.ReadEgress(strings.NewReader(in), time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC))
	if err != nil || len(recs) != 1 || recs[0].Outcome != "timeout" {
		t.Fatalf("%+v %v", recs, err)
	}
	for _, bad := range []string{"not json\n", `{"time":"2026-12-01T10:00:00Z","extra":1}` + "\n", `{"host":"h"}` + "\n"} {
		if _, err := rerank.ReadEgress(strings.NewReader(bad), time.Time{}); !errors.Is(err, rerank.ErrEgress) || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestReranker_Rerank_PromptBound: long texts are capped and cut so that the
// whole prompt stays within MaxTokens (4 bytes a token); titles and paths stay.
func TestReranker_Rerank_PromptBound(t *testing.T) {
	e := newEndpoint(t, favour(t))
	r, _, _ := newReranker(t, e.url(), func(o *rerank.Options) { o.K = 50; o.MaxTokens = 2000 })
	var cs []rerank.Candidate
	for i := range 50 {
		cs = append(cs, rerank.Candidate{ID: fmt.Sprint(i), Path: fmt.Sprintf("p/%d.md", i), Title: fmt.Sprintf("Title %d", i),
			Text: strings.Repeat("wörd \"quoted\" \x01 ", 400), Score: 10})
	}
	if res := r.Rerank(context.Background(), rerank.Auto, "q", cs); !res.Reranked {
		t.Fatalf("engine %q", res.Engine)
	}
	var req chatReq
	if err := json.Unmarshal(e.requests()[0], &req); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range req.Messages {
		n += len(m.Content)
	}
	if n > 2000*4 {
		t.Fatalf("prompt of %d bytes, bound %d", n, 2000*4)
	}
	q := req.query(t)
	if len(q.Candidates) != 50 || q.Candidates[49].Title != "Title 49" || q.Candidates[0].Text == "" {
		t.Fatalf("candidates cut wrongly: %d, %+v", len(q.Candidates), q.Candidates[49])
	}
	for _, c := range q.Candidates {
		if !utf8.ValidString(c.Text) {
			t.Fatal("a text was cut inside a character")
		}
	}
}

// TestReranker_Rerank_Concurrent: one Reranker serves many searches at once
// (run under -race).
func TestReranker_Rerank_Concurrent(t *testing.T) {
	e := newEndpoint(t, favour(t, "b"))
	r, _, egress := newReranker(t, e.url(), nil)
	var wg sync.WaitGroup
	bad := make(chan string, 16)
	for i := range 16 {
		wg.Go(func() {
			res := r.Rerank(context.Background(), rerank.Auto, fmt.Sprint("q", i%8), cands())
			if !res.Reranked || res.Candidates[0].ID != "b" {
				bad <- res.Engine
			}
		})
	}
	wg.Wait()
	close(bad)
	for b := range bad {
		t.Errorf("a concurrent rerank: %q", b)
	}
	b, _ := os.ReadFile(egress)
	if n := bytes.Count(b, []byte("\n")); n != len(e.requests()) || n < 8 {
		t.Fatalf("%d egress lines for %d calls", n, len(e.requests()))
	}
	if bytes.Contains(b, []byte(testKey)) {
		t.Fatal("the key is in the egress file")
	}
}

// TestReranker_Rerank_BudgetAcrossProcesses: a new Reranker (a new norn
// command) counts today's calls and tokens from the egress file.
func TestReranker_Rerank_BudgetAcrossProcesses(t *testing.T) {
	e := newEndpoint(t, favour(t, "c"))
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	egress := filepath.Join(t.TempDir(), "egress.jsonl")
	lines := `{"time":"2026-12-06T23:59:00Z","host":"h","model":"m","query_sha256":"x","paths":[],"tokens_in":900000,"tokens_out":0,"latency_ms":1,"outcome":"ok"}
{"time":"2026-12-07T01:00:00Z","host":"h","model":"m","query_sha256":"x","paths":[],"tokens_in":10,"tokens_out":0,"latency_ms":1,"outcome":"ok"}
damaged line
{"time":"2026-12-07T02:00:00Z","host":"h","model":"m","query_sha256":"y","paths":[],"tokens_in":10,"tokens_out":0,"latency_ms":1,"outcome":"timeout"}
`
	if err := os.WriteFile(egress, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	open := func(calls, tokens int) *rerank.Reranker {
		r, _, _ := newReranker(t, e.url(), func(o *rerank.Options) {
			o.EgressPath, o.CallsPerDay, o.TokensPerDay = egress, calls, tokens
			o.Now = func() time.Time { return now }
		})
		return r
	}
	if res := open(3, 1<<20).Rerank(context.Background(), rerank.Auto, "q1", cands()); !res.Reranked {
		t.Fatalf("2 of 3 calls spent: %q", res.Engine)
	}
	if res := open(3, 1<<20).Rerank(context.Background(), rerank.Auto, "q2", cands()); res.Engine != "bm25 (rerank skipped: budget)" {
		t.Fatalf("3 of 3 calls spent: %q", res.Engine)
	}
	// Today's tokens so far: 10 + 10 + 120 (the call above). A budget of 1,000,140
	// tokens has room for the estimate of one call now, none once 999,900 more are
	// recorded.
	if res := open(100, 1_000_140).Rerank(context.Background(), rerank.Auto, "q3", cands()); !res.Reranked {
		t.Fatalf("tokens left: %q", res.Engine)
	}
	f, err := os.OpenFile(egress, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"time":"2026-12-07T03:00:00Z","host":"h","model":"m","query_sha256":"z","paths":[],"tokens_in":999900,"tokens_out":0,"latency_ms":1,"outcome":"ok"}` + "\n")
	f.Close()
	if res := open(100, 1_000_140).Rerank(context.Background(), rerank.Auto, "q4", cands()); res.Engine != "bm25 (rerank skipped: budget)" {
		t.Fatalf("today's tokens leave no room: %q", res.Engine)
	}
}
