package rerank_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/norn-vault/norn/rerank"
)

// TestReranker_Rerank_Privacy: over randomized rankings with many private
// candidates, no request body ever holds a byte sequence unique to a private
// candidate (path, title, text), the number sent never depends on them, and
// every private candidate keeps its BM25 slot.
func TestReranker_Rerank_Privacy(t *testing.T) {
	e := newEndpoint(t, func(n int, req chatReq) (int, string) {
		q := req.query(t)
		var ids []string
		for _, c := range q.Candidates {
			ids = append(ids, c.ID)
		}
		last := ""
		if len(ids) > 0 {
			last = ids[len(ids)-1]
		}
		return 200, completion(scoresJSON(ids, func(id string) float64 { // promote the last one sent
			if id == last {
				return 1
			}
			return 0.2
		}), 10, 10)
	})
	r, _, _ := newReranker(t, e.url(), func(o *rerank.Options) { o.K = 8 })
	rng := rand.New(rand.NewPCG(28, 1))
	var secrets []string
	for q := range 200 {
		n := 1 + rng.IntN(30)
		var cs []rerank.Candidate
		public := 0
		for i := range n {
			c := rerank.Candidate{Score: float64(100 - i), Revision: fmt.Sprint(q)}
			if rng.IntN(2) == 0 {
				tag := fmt.Sprintf("zq%dx%d", q, i) // unique to this private note
				c.Private = true
				c.ID = "personal-notes/" + tag + ".md"
				c.Path, c.Title, c.Text = c.ID, "Title "+tag+"T", "Heading "+tag+"H body "+tag+"B"
				secrets = append(secrets, c.Path, "Title "+tag, tag+"H", tag+"B")
			} else {
				public++
				c.ID = fmt.Sprintf("pub/%d-%d.md", q, i)
				c.Path, c.Title, c.Text = c.ID, "public note", "public words"
			}
			cs = append(cs, c)
		}
		before := len(e.requests())
		res := r.Rerank(context.Background(), rerank.Force, fmt.Sprintf("query %d about private notes", q), cs)
		if public == 0 && len(e.requests()) != before {
			t.Fatalf("query %d: a call with no public candidate", q)
		}
		if public > 0 && len(e.requests()) == before+1 {
			sent := len(req(t, e.requests()[before]).Candidates)
			if sent != min(public, 8) {
				t.Fatalf("query %d: sent %d of %d public", q, sent, public)
			}
		}
		if len(res.Candidates) != n {
			t.Fatalf("query %d: %d candidates back of %d", q, len(res.Candidates), n)
		}
		for i, c := range cs {
			if c.Private && res.Candidates[i].ID != c.ID {
				t.Fatalf("query %d: private candidate at %d moved", q, i)
			}
		}
	}
	all := bytes.Join(e.requests(), []byte("\n"))
	if len(e.requests()) < 50 {
		t.Fatalf("only %d requests: the test proves little", len(e.requests()))
	}
	for _, s := range secrets {
		if bytes.Contains(all, []byte(s)) {
			t.Fatalf("a request holds private text %q", s)
		}
	}
	if bytes.Contains(all, []byte("personal-notes")) {
		t.Fatal("a request names the private folder")
	}
}

func req(t *testing.T, body []byte) wireQuery {
	t.Helper()
	var c chatReq
	if err := jsonUnmarshal(body, &c); err != nil {
		t.Fatal(err)
	}
	return c.query(t)
}
