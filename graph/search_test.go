package graph_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/norn-vault/norn/graph"
)

func fixtureIndex(t *testing.T, opts graph.Options) *graph.Index {
	t.Helper()
	ix, _ := openIndex(t, opts)
	if err := ix.Rebuild(context.Background(), "c1", graph.DocRecords(seq(mkDocs(t, vault))), nil); err != nil {
		t.Fatal(err)
	}
	return ix
}

func TestIndex_Search(t *testing.T) {
	ix := fixtureIndex(t, graph.Options{})
	tests := []struct {
		q     string
		top   string   // expected first hit ("" for none)
		want  []string // every expected hit, any order (nil: not checked)
		never []string // paths that must not appear
	}{
		{q: "bloom", top: "tech/bloom-filters.md"},
		{q: "filter", top: "tech/bloom-filters.md"},                                                             // stemming
		{q: "aeroskobing", top: "life/cafe.md", want: []string{"life/cafe.md"}},                                 // ASCII finds ø/æ
		{q: "Ærøskøbing", top: "life/cafe.md", want: []string{"life/cafe.md"}},                                  // and back
		{q: "zürich", top: "life/zurich.md", want: []string{"life/zurich.md"}},                                  // ü → u
		{q: "CAFE", top: "life/cafe.md"},                                                                        // case, é
		{q: "config", top: "inbox/config-exact.md", want: []string{"inbox/config-exact.md", "inbox/config.md"}}, // prefix ranks below exact
		{q: `"quick brown"`, want: []string{"tech/phrases.md"}},                                                 // order matters
		{q: `"brown quick"`, want: []string{"tech/reversed.md"}},
		{q: `"quick brown" fox`, top: "tech/phrases.md", want: []string{"tech/phrases.md", "tech/reversed.md"}}, // with words, a phrase ranks, it does not filter
		{q: `+"quick brown" fox`, want: []string{"tech/phrases.md"}},                                            // unless required
		{q: `"quick brown", fox.`, top: "tech/phrases.md", want: []string{"tech/phrases.md", "tech/reversed.md"}},
		{q: "fox - brown", want: []string{"tech/phrases.md", "tech/reversed.md"}}, // a dash between words is punctuation
		{q: "bloom -probabilistic", never: []string{"archive/old-bloom.md", "tech/bloom-filters.md"}},
		{q: "bloom -prob", never: []string{"archive/old-bloom.md", "tech/bloom-filters.md"}}, // an exclusion matches as the word does: prefixes too
		{q: "+prob", want: []string{"archive/old-bloom.md", "tech/bloom-filters.md"}},        // and so does a required word
		{q: `+"prob"`, want: []string{}},                                                     // a phrase is exact
		{q: "tag:data-structures", want: []string{"tech/bloom-filters.md", "tech/count-min-sketch.md", "archive/old-bloom.md"}},
		{q: "tag:#Hashing", want: []string{"tech/bloom-filters.md", "tech/hashing/consistent-hashing.md"}}, // nested tags match their parent
		{q: "tag:hashing/distributed", want: []string{"tech/hashing/consistent-hashing.md"}},
		{q: "bloom folder:tech", want: []string{"tech/bloom-filters.md"}},
		{q: "status:active", want: []string{"tech/bloom-filters.md", "tech/count-min-sketch.md"}},
		{q: "bloom status:archived", want: []string{"archive/old-bloom.md"}},
		{q: `"heavy hitters" OR "false positive"`, want: []string{"tech/count-min-sketch.md", "tech/bloom-filters.md"}},
		{q: "+sketch hashes", want: []string{"tech/count-min-sketch.md"}},
		{q: "bloom -tag:data-structures", want: []string{}},
		{q: "the of and", want: []string{}}, // only stop words
		{q: "git native", top: "projects/norn.md"},
		{q: `"git-native knowledge"`, want: []string{"projects/norn.md"}},
		{q: "-tag:travel folder:life", want: []string{"life/zurich.md"}},
		{q: "roadmap", want: []string{"projects/dated.md"}},            // an alias
		{q: "hopper", want: []string{"projects/dated.md"}},             // a frontmatter value
		{q: "updated:2026-11-30", want: []string{"projects/dated.md"}}, // a date field
		{q: "updated:2026-11-29", want: []string{}},
		{q: `owner:"ada lovelace"`, want: []string{"projects/dated.md"}},
		{q: `owner:"lovelace ada"`, want: []string{}},                // a phrase
		{q: "reviewers:turing", want: []string{"projects/dated.md"}}, // a list element
		{q: "title:quarterly", want: []string{"projects/dated.md"}},  // a frontmatter key like any other

	}
	for _, tt := range tests {
		res := search(t, ix, tt.q, graph.SearchOptions{Limit: 50})
		got := paths(res)
		if tt.top != "" && (len(got) == 0 || got[0] != tt.top) {
			t.Errorf("%q: top = %v, want %s", tt.q, got, tt.top)
		}
		if tt.want != nil {
			a, b := slices.Clone(got), slices.Clone(tt.want)
			slices.Sort(a)
			slices.Sort(b)
			if !slices.Equal(a, b) {
				t.Errorf("%q: hits %v, want %v", tt.q, got, tt.want)
			}
		}
		for _, n := range tt.never {
			if slices.Contains(got, n) {
				t.Errorf("%q: %s must not match (hits %v)", tt.q, n, got)
			}
		}
		if res.Total != len(got) {
			t.Errorf("%q: Total %d, hits %d", tt.q, res.Total, len(got))
		}
		if res.Engine != "bm25f" {
			t.Errorf("%q: engine %q", tt.q, res.Engine)
		}
	}
}

func TestIndex_Search_Hit(t *testing.T) {
	ix := fixtureIndex(t, graph.Options{ChunksPerFile: 2})
	res := search(t, ix, "false positive hash array", graph.SearchOptions{})
	if len(res.Hits) == 0 {
		t.Fatal("no hits")
	}
	h := res.Hits[0]
	if h.Path != "tech/bloom-filters.md" || h.Title != "Bloom filters" || h.Revision != "rev-tech/bloom-filters.md" {
		t.Fatalf("hit %+v", h)
	}
	if h.Section != "False positives" || h.Line != 13 {
		t.Errorf("section %q line %d, want False positives at 13", h.Section, h.Line)
	}
	if want := "A lookup may say yes for an item never added: a «false» «positive»."; h.Snippet != want {
		t.Errorf("snippet %q, want %q", h.Snippet, want)
	}
	if !slices.Equal(h.Matched, []string{"false", "positive", "hash", "array"}) {
		t.Errorf("matched %v", h.Matched)
	}
	if len(h.Chunks) != 2 || h.Chunks[0].Section != h.Section || h.Chunks[1].Section != "Sizing" || h.Chunks[0].Score < h.Chunks[1].Score {
		t.Errorf("chunks %+v", h.Chunks)
	}
	if h.Score <= 0 {
		t.Errorf("score %v", h.Score)
	}
	// A hit on the title only gets the first body line as its snippet.
	res = search(t, ix, "tag:travel", graph.SearchOptions{})
	if len(res.Hits) != 1 || res.Hits[0].Line != 5 || !strings.HasPrefix(res.Hits[0].Snippet, "We visited") {
		t.Errorf("filter-only hit: %+v", res.Hits)
	}
}

func TestIndex_Search_Paging(t *testing.T) {
	ix := fixtureIndex(t, graph.Options{})
	all := paths(search(t, ix, "bloom hash data", graph.SearchOptions{Limit: 100}))
	if len(all) < 4 {
		t.Fatalf("want ≥ 4 hits, got %v", all)
	}
	p1 := search(t, ix, "bloom hash data", graph.SearchOptions{Limit: 2})
	p2 := search(t, ix, "bloom hash data", graph.SearchOptions{Limit: 2, Offset: 2})
	if got := append(paths(p1), paths(p2)...); !slices.Equal(got, all[:4]) {
		t.Errorf("pages %v, want %v", got, all[:4])
	}
	if p1.Total != len(all) || p2.Total != len(all) {
		t.Errorf("totals %d %d, want %d", p1.Total, p2.Total, len(all))
	}
	if p := search(t, ix, "bloom", graph.SearchOptions{Offset: 1000}); len(p.Hits) != 0 || p.Total == 0 {
		t.Errorf("past the end: %+v", p)
	}
	if got := paths(search(t, ix, "bloom", graph.SearchOptions{Folder: "/archive/"})); !slices.Equal(got, []string{"archive/old-bloom.md"}) {
		t.Errorf("folder option: %v", got)
	}
}

func TestIndex_Search_FolderFactors(t *testing.T) {
	base := paths(search(t, fixtureIndex(t, graph.Options{}), "probabilistic", graph.SearchOptions{}))
	if len(base) != 2 || base[0] != "archive/old-bloom.md" {
		t.Fatalf("without factors %v: the short archive note should lead", base)
	}
	down := paths(search(t, fixtureIndex(t, graph.Options{FolderFactors: map[string]float64{"Archive/": 0.1}}), "probabilistic", graph.SearchOptions{}))
	if !slices.Equal(down, []string{"tech/bloom-filters.md", "archive/old-bloom.md"}) {
		t.Errorf("with archive ×0.1: %v", down)
	}
}

func TestIndex_Search_DiversityCap(t *testing.T) {
	q := "bloom sketch hashing data structures"
	free := paths(search(t, fixtureIndex(t, graph.Options{}), q, graph.SearchOptions{}))
	capped := paths(search(t, fixtureIndex(t, graph.Options{DiversityCap: 1}), q, graph.SearchOptions{}))
	if len(free) != len(capped) {
		t.Fatalf("cap changed the hit count: %v vs %v", free, capped)
	}
	folder := func(p string) string { return p[:strings.LastIndexByte(p, '/')] }
	// With a cap of 1, each folder's best hit comes first, in the uncapped order,
	// then the others, in the uncapped order.
	var firsts, rest []string
	seen := map[string]bool{}
	for _, p := range free {
		if seen[folder(p)] {
			rest = append(rest, p)
		} else {
			seen[folder(p)] = true
			firsts = append(firsts, p)
		}
	}
	want := append(firsts, rest...)
	if slices.Equal(want, free) {
		t.Fatalf("uncapped order %v: no folder's second hit is above another folder's first, so the cap has nothing to do", free)
	}
	if !slices.Equal(capped, want) {
		t.Errorf("capped order %v, want %v (uncapped %v)", capped, want, free)
	}
}

func TestIndex_Search_Errors(t *testing.T) {
	ix := fixtureIndex(t, graph.Options{})
	for _, q := range []string{`"open`, "-only", "tag:", "status:---"} {
		if _, err := ix.Search(context.Background(), q, graph.SearchOptions{}); !errors.Is(err, graph.ErrQuery) {
			t.Errorf("%q: %v, want ErrQuery", q, err)
		}
	}
	// Literal takes the same text as plain words.
	if res := search(t, ix, `"open -only tag:`, graph.SearchOptions{Literal: true}); res.Total != 0 {
		t.Errorf("literal: %v", paths(res))
	}
	if got := paths(search(t, ix, `"Bloom -filters`, graph.SearchOptions{Literal: true})); len(got) == 0 || got[0] != "tech/bloom-filters.md" {
		t.Errorf("literal: %v", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ix.Search(ctx, "bloom", graph.SearchOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestSearch_ExactOutranksRarePrefix: a word found in almost every note still
// ranks its exact matches above a note that only has a rare extension of it (the
// extension's own rarity must not lift the prefix match over the word).
func TestSearch_ExactOutranksRarePrefix(t *testing.T) {
	notes := map[string]string{
		"widget.md": "# Widget\n\nThe widget is here. widget widget.\n",
		"other.md":  "# Other\n\nwidgetry happens.\n",
	}
	for i := range 20 {
		notes[fmt.Sprintf("n%02d.md", i)] = fmt.Sprintf("# Note %d\n\nabout widget %d\n", i, i)
	}
	ix, _ := openIndex(t, graph.Options{})
	if err := ix.Rebuild(context.Background(), "c1", graph.DocRecords(seq(mkDocs(t, notes))), nil); err != nil {
		t.Fatal(err)
	}
	got := paths(search(t, ix, "widget", graph.SearchOptions{Limit: 50}))
	if len(got) != 22 || got[0] != "widget.md" || got[21] != "other.md" {
		t.Fatalf("widget: %v, want widget.md first and other.md (prefix only) last", got)
	}
}

// TestSearch_FeedbackNeedsTwoNotes: feedback expands a query with a word two of
// the best notes share (yak), never with one only one of them has (zebra).
func TestSearch_FeedbackNeedsTwoNotes(t *testing.T) {
	notes := map[string]string{
		"a.md": "alpha zebra\n",
		"b.md": "alpha yak\n",
		"c.md": "beta yak\n",
		"d.md": "zebra quartz\n",
		"e.md": "yak ember\n",
	}
	for i := range 10 {
		notes[fmt.Sprintf("n%02d.md", i)] = fmt.Sprintf("filler words %d\n", i)
	}
	ix, _ := openIndex(t, graph.Options{})
	if err := ix.Rebuild(context.Background(), "c1", graph.DocRecords(seq(mkDocs(t, notes))), nil); err != nil {
		t.Fatal(err)
	}
	got := paths(search(t, ix, "alpha beta", graph.SearchOptions{Limit: 50}))
	slices.Sort(got)
	if want := []string{"a.md", "b.md", "c.md", "e.md"}; !slices.Equal(got, want) {
		t.Fatalf("alpha beta: %v, want %v (e.md through yak, not d.md through zebra)", got, want)
	}
}

// TestSearch_OneWordPhraseIsExact: a quoted word matches, scores and is marked
// exactly; the bare word also matches and marks the words it begins.
func TestSearch_OneWordPhraseIsExact(t *testing.T) {
	ix := fixtureIndex(t, graph.Options{})
	snippets := func(q string) map[string]string {
		out := map[string]string{}
		for _, h := range search(t, ix, q, graph.SearchOptions{Limit: 10}).Hits {
			out[string(h.Path)] = h.Snippet
		}
		return out
	}
	exact := snippets(`"config"`)
	if s, ok := exact["inbox/config.md"]; !ok || strings.Contains(s, "«") {
		t.Errorf(`"config" marks a longer word, or misses the note whose path has it: %q`, exact)
	}
	if s := snippets("config")["inbox/config.md"]; !strings.Contains(s, "«configuration»") {
		t.Errorf("config does not mark configuration: %q", s)
	}
}

// TestSearch_SnippetsHaveNoControlCharacters: lone carriage returns (old Mac
// line ends) and escape sequences in a note reach no snippet, by index or scan.
func TestSearch_SnippetsHaveNoControlCharacters(t *testing.T) {
	notes := map[string]string{"cr.md": "one\rtwo\rthree jackal\r\x1b[2Jgone\x7f \u009b31m\u0085\n"}
	ix, _ := openIndex(t, graph.Options{})
	docs := mkDocs(t, notes)
	if err := ix.Rebuild(context.Background(), "c1", graph.DocRecords(seq(docs)), nil); err != nil {
		t.Fatal(err)
	}
	scan, err := graph.Scan(context.Background(), "jackal", seq(docs), graph.SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range []*graph.Results{search(t, ix, "jackal", graph.SearchOptions{}), scan} {
		if len(res.Hits) != 1 {
			t.Fatalf("hits: %+v", res.Hits)
		}
		s := res.Hits[0].Snippet
		if strings.ContainsFunc(s, unicode.IsControl) || !strings.Contains(s, "«jackal»") {
			t.Errorf("%s snippet %q", res.Engine, s)
		}
	}
}

// TestSearch_NoSnippets: without snippets a search returns the same hits, in
// the same order, with the same scores, totals and matched words; only what is
// read from the stored text (line, snippet, section, chunks, inbound line) is
// left out.
func TestSearch_NoSnippets(t *testing.T) {
	for _, set := range []struct {
		name    string
		ix      *graph.Index
		queries []string
	}{
		{"fixture", fixtureIndex(t, graph.Options{ChunksPerFile: 2}),
			[]string{"bloom", "config", `"quick brown" fox`, "bloom folder:tech", "git native", "hopper", "status:active", "prob"}},
		{"inbound", inboundIndex(t), []string{"money back", "chargeback", "refund", "zorblax"}},
	} {
		for _, q := range set.queries {
			for _, hide := range []bool{false, true} {
				o := graph.SearchOptions{Limit: 50, HidePrivate: hide}
				want := search(t, set.ix, q, o)
				o.NoSnippets = true
				got := search(t, set.ix, q, o)
				if got.Total != want.Total || len(got.Hits) != len(want.Hits) {
					t.Fatalf("%s %q hide=%v: %d hits of %d, want %d of %d", set.name, q, hide, len(got.Hits), got.Total, len(want.Hits), want.Total)
				}
				snippets := false
				for i, h := range got.Hits {
					w := want.Hits[i]
					snippets = snippets || w.Snippet != "" || w.Inbound != nil
					if h.Line != 0 || h.Snippet != "" || h.Section != "" || h.Chunks != nil || h.Inbound != nil {
						t.Errorf("%s %q hit %d: %+v, want no snippet", set.name, q, i, h)
					}
					w.Line, w.Snippet, w.Section, w.Chunks, w.Inbound = 0, "", "", nil, nil
					if fmt.Sprint(h) != fmt.Sprint(w) {
						t.Errorf("%s %q hit %d:\n got %+v\nwant %+v", set.name, q, i, h, w)
					}
				}
				if len(want.Hits) > 0 && !snippets {
					t.Errorf("%s %q: the search with snippets has none: the comparison says nothing", set.name, q)
				}
			}
		}
	}
}

// inboundIndex is inboundVault rebuilt with the inbound field on.
func inboundIndex(t *testing.T) *graph.Index {
	t.Helper()
	ix, _ := openIndex(t, inboundOn())
	if err := ix.Rebuild(context.Background(), "c1", graph.DocRecords(seq(inboundDocs(t, inboundVault))), nil); err != nil {
		t.Fatal(err)
	}
	return ix
}
