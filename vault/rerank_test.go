package vault_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/norn-vault/norn/internal/testrerank"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/rerank"
	"github.com/norn-vault/norn/vault"
)

func openReranked(t *testing.T, files map[string]string, url string, mod func(*rerank.Options)) *vault.Vault {
	return testrerank.Open(t, files, url, mod)
}

func paths(r *vault.SearchResponse) []note.Path {
	var out []note.Path
	for _, h := range r.Hits {
		out = append(out, h.Path)
	}
	return out
}

func search(t *testing.T, v *vault.Vault, q string, mode rerank.Mode, limit, offset int) *vault.SearchResponse {
	t.Helper()
	r, err := v.Search(context.Background(), vault.SearchRequest{Query: q, Limit: limit, Offset: offset, Literal: true, Rerank: mode})
	if err != nil {
		t.Fatalf("search %q %v: %v", q, mode, err)
	}
	return r
}

// TestVault_SearchRerank_Privacy: over a randomized vault with many private notes
// (a private folder and `private: true`) and queries that hit them, no request
// the endpoint receives holds any private path, title, heading or body line (the
// raw bytes), private hits keep their places, and the public ones are reordered.
func TestVault_SearchRerank_Privacy(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	tv := testrerank.NewVault(seed, 40)
	ep := testrerank.New(t, testrerank.Last)
	v := openReranked(t, tv.Files, ep.URL(), nil)
	reranked, withPrivate := 0, 0
	for _, q := range tv.Queries {
		base := search(t, v, q, rerank.Off, 30, 0)
		for _, mode := range []rerank.Mode{rerank.Force, rerank.Auto} {
			got := search(t, v, q, mode, 30, 0)
			if len(got.Hits) != len(base.Hits) {
				t.Fatalf("%q %v: %d hits, bm25 %d", q, mode, len(got.Hits), len(base.Hits))
			}
			priv := 0
			for i, h := range base.Hits {
				if tv.Private[string(h.Path)] {
					priv++
					if got.Hits[i].Path != h.Path {
						t.Errorf("%q %v: private %s at %d moved (now %s there)", q, mode, h.Path, i, got.Hits[i].Path)
					}
				}
			}
			if strings.HasPrefix(got.Engine, "bm25+rerank:") {
				reranked++
				if priv > 0 {
					withPrivate++
				}
				if got.Rerank == nil || (!got.Rerank.Cached && (got.Rerank.TokensIn != 120 || got.Rerank.TokensOut != 30)) {
					t.Errorf("%q: stats %+v", q, got.Rerank)
				}
			} else if mode == rerank.Force {
				t.Errorf("%q force: engine %q", q, got.Engine)
			}
		}
	}
	if reranked == 0 || withPrivate == 0 {
		t.Fatalf("%d reranked searches, %d with private hits: the test proves nothing", reranked, withPrivate)
	}
	bodies := ep.Bodies()
	if len(bodies) == 0 {
		t.Fatal("no request")
	}
	if leaks := testrerank.Leaks(bodies, tv.Secrets); len(leaks) > 0 {
		t.Fatalf("private text sent (seed %d): %v", seed, leaks[:min(5, len(leaks))])
	}
	if !strings.Contains(string(bodies[0]), `public text`) && !strings.Contains(string(bodies[0]), `About `) {
		t.Errorf("no section text sent: %.300s", bodies[0])
	}
}

// TestVault_SearchRerank_Order: a reranked search moves the model's pick to the
// first public slot; pages past the first are cut from the reranked order; mode
// off and a vault without a reranker answer in BM25 order with engine bm25 and
// make no call; force without an endpoint says so in the engine.
func TestVault_SearchRerank_Order(t *testing.T) {
	files := map[string]string{}
	for i := range 12 {
		files[fmtPath(i)] = "# Bloom filter " + string(rune('a'+i)) + "\n\nBloom filter text.\n"
	}
	ep := testrerank.New(t, testrerank.Last)
	v := openReranked(t, files, ep.URL(), func(o *rerank.Options) { o.K = 8 })
	base := search(t, v, "bloom filter", rerank.Off, 12, 0)
	if base.Engine != vault.EngineBM25 || len(ep.Bodies()) != 0 || base.Rerank != nil {
		t.Fatalf("off: engine %q, %d calls", base.Engine, len(ep.Bodies()))
	}
	got := search(t, v, "bloom filter", rerank.Force, 12, 0)
	if got.Engine != "bm25+rerank:m1" || len(ep.Bodies()) != 1 {
		t.Fatalf("force: engine %q, %d calls", got.Engine, len(ep.Bodies()))
	}
	want := slices.Concat([]note.Path{base.Hits[7].Path}, paths(base)[:7], paths(base)[8:])
	if !slices.Equal(paths(got), want) {
		t.Fatalf("force order\n got %v\nwant %v", paths(got), want)
	}
	page2 := search(t, v, "bloom filter", rerank.Force, 4, 4)
	if !slices.Equal(paths(page2), want[4:8]) || !page2.Rerank.Cached {
		t.Fatalf("page 2 %v, want %v (cached %v)", paths(page2), want[4:8], page2.Rerank)
	}
	none := openReranked(t, files, "", nil)
	if r := search(t, none, "bloom filter", rerank.Auto, 12, 0); r.Engine != vault.EngineBM25 || !slices.Equal(paths(r), paths(base)) {
		t.Fatalf("no reranker, auto: %q %v", r.Engine, paths(r))
	}
	if r := search(t, none, "bloom filter", rerank.Force, 12, 0); r.Engine != rerank.EngineNoEndpoint || !slices.Equal(paths(r), paths(base)) {
		t.Fatalf("no reranker, force: %q", r.Engine)
	}
}

func fmtPath(i int) string { return "n/bloom-" + string(rune('a'+i)) + ".md" }

// TestVault_SearchRerank_Failures: every way the endpoint can fail leaves the BM25
// order standing with an engine that says why; an endpoint slower than the
// timeout does not hold the search.
func TestVault_SearchRerank_Failures(t *testing.T) {
	files := map[string]string{}
	for i := range 6 {
		files[fmtPath(i)] = "# Bloom filter " + string(rune('a'+i)) + "\n\nBloom filter text.\n"
	}
	cases := []struct {
		name   string
		reply  testrerank.Reply
		mod    func(*rerank.Options)
		engine string
	}{
		{"timeout", func(testrerank.Query) (int, string) { return -1, "" },
			func(o *rerank.Options) { o.Timeout = 200 * time.Millisecond }, "bm25 (rerank failed: timeout)"},
		{"http", func(testrerank.Query) (int, string) { return 500, `{"error":"boom"}` },
			func(o *rerank.Options) { o.Retries = -1 }, "bm25 (rerank failed: http 500)"},
		{"malformed", func(testrerank.Query) (int, string) {
			return 200, testrerank.Completion(`{"scores":[{"id":"nope","score":1}]}`)
		},
			nil, "bm25 (rerank failed: malformed answer)"},
		{"partial", func(testrerank.Query) (int, string) { return 200, testrerank.Completion(`{"scores":[{"id":`) },
			nil, "bm25 (rerank failed: malformed answer)"},
		{"refused", func(testrerank.Query) (int, string) {
			return 200, `{"choices":[{"index":0,"message":{"role":"assistant","content":"","refusal":"no"},"finish_reason":"stop"}]}`
		}, nil, "bm25 (rerank failed: refused)"},
		{"budget", testrerank.Last, func(o *rerank.Options) { o.TokensPerDay = 1 }, "bm25 (rerank skipped: budget)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ep := testrerank.New(t, tc.reply)
			v := openReranked(t, files, ep.URL(), tc.mod)
			base := search(t, v, "bloom filter", rerank.Off, 6, 0)
			got := search(t, v, "bloom filter", rerank.Force, 6, 0)
			if got.Engine != tc.engine || !slices.Equal(paths(got), paths(base)) || got.Rerank == nil {
				t.Fatalf("engine %q (want %q), order %v (bm25 %v), stats %v", got.Engine, tc.engine, paths(got), paths(base), got.Rerank)
			}
		})
	}
	t.Run("transport", func(t *testing.T) {
		v := openReranked(t, files, "http://127.0.0.1:1/v1", nil) // nothing listens on port 1
		if got := search(t, v, "bloom filter", rerank.Force, 6, 0); got.Engine != "bm25 (rerank failed: transport)" {
			t.Fatalf("engine %q", got.Engine)
		}
	})
	t.Run("bad mode", func(t *testing.T) {
		_, err := rerank.ParseMode("always")
		if !errors.Is(err, rerank.ErrMode) {
			t.Fatalf("ParseMode: %v", err)
		}
	})
}

// TestVault_SearchRerank_NoSnippets: a reranked search asked for no snippets
// still sends the model each hit's best section (which the snippets locate),
// not the note's first one.
func TestVault_SearchRerank_NoSnippets(t *testing.T) {
	files := map[string]string{}
	for i := range 4 {
		files[fmtPath(i)] = "# Intro " + string(rune('a'+i)) + "\n\nNothing to see.\n\n## Details\n\nBloom filter text.\n"
	}
	ep := testrerank.New(t, testrerank.Last)
	v := openReranked(t, files, ep.URL(), nil)
	r, err := v.Search(context.Background(), vault.SearchRequest{Query: "bloom filter", Limit: 4, Literal: true, NoSnippets: true, Rerank: rerank.Force})
	if err != nil {
		t.Fatal(err)
	}
	bodies := ep.Bodies()
	if r.Engine != "bm25+rerank:m1" || len(bodies) != 1 {
		t.Fatalf("engine %q, %d calls", r.Engine, len(bodies))
	}
	if !strings.Contains(string(bodies[0]), "Bloom filter text") {
		t.Errorf("the best sections were not sent: %.400s", bodies[0])
	}
}
