package graph_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
)

// inboundVault: refund.md never says "money back"; two other notes link to it
// in those words (a wikilink with display text, a typed edge's why), and a
// private note links to it with a word no other note holds.
var inboundVault = map[string]string{
	"billing/refund.md": "---\ntitle: Refund policy\n---\n# Refund policy\n\nA purchase may be returned within thirty days for reimbursement.\n",
	"faq/questions.md":  "---\ntitle: Questions\n---\n# Questions\n\nCan I get my money back? See [[refund|getting your money back]].\n",
	"faq/edges.md":      "---\ntitle: Edges\nedges:\n  - to: \"[[refund]]\"\n    type: supports\n    why: explains how customers obtain a chargeback quickly\n---\n# Edges\n\nNothing else here.\n",
	"private/diary.md":  "---\ntitle: Diary\n---\n# Diary\n\nAsked about the zorblax refund at [[refund]] today.\n",
	"other/noise.md":    "---\ntitle: Noise\n---\n# Noise\n\nThe back of the house has money plants.\n",
}

func inboundDocs(t testing.TB, notes map[string]string) []graph.Doc {
	docs := mkDocs(t, notes)
	for i := range docs {
		docs[i].Private = strings.HasPrefix(string(docs[i].Path), "private/")
	}
	return docs
}

// TestSearch_Inbound: a note is found by the words other notes link to it with
// (a link's line, a typed edge's why), the hit says which line, and a private
// note's line counts only for callers who may see private notes.
func TestSearch_Inbound(t *testing.T) {
	ctx := context.Background()
	build := func(t *testing.T, incremental bool) *graph.Index {
		ix, _ := openIndex(t, inboundOn())
		if incremental {
			// The target first, its linkers after: their lines must reach it.
			first := map[string]string{"billing/refund.md": inboundVault["billing/refund.md"]}
			if err := ix.Update(ctx, graph.DocBatch("c1", inboundDocs(t, first), nil)); err != nil {
				t.Fatal(err)
			}
			rest := map[string]string{}
			for p, s := range inboundVault {
				if _, ok := first[p]; !ok {
					rest[p] = s
				}
			}
			if err := ix.Update(ctx, graph.DocBatch("c2", inboundDocs(t, rest), nil)); err != nil {
				t.Fatal(err)
			}
			return ix
		}
		if err := ix.Rebuild(ctx, "c2", graph.DocRecords(seq(inboundDocs(t, inboundVault))), nil); err != nil {
			t.Fatal(err)
		}
		return ix
	}
	for _, incremental := range []bool{false, true} {
		t.Run(fmt.Sprintf("incremental=%v", incremental), func(t *testing.T) {
			ix := build(t, incremental)
			res := search(t, ix, "money back", graph.SearchOptions{})
			i := slices.Index(paths(res), "billing/refund.md")
			if i < 0 {
				t.Fatalf("money back: %v, want billing/refund.md among them", paths(res))
			}
			in := res.Hits[i].Inbound
			if in == nil || in.From != "faq/questions.md" || !strings.Contains(in.Text, "money back") {
				t.Errorf("money back: inbound %+v, want the line of faq/questions.md", in)
			}
			if res := search(t, ix, "chargeback", graph.SearchOptions{}); !sameSet(paths(res), "billing/refund.md", "faq/edges.md") {
				t.Errorf("chargeback (a typed edge's why): %v", paths(res))
			}
			// Only the private diary's link line holds "zorblax".
			if got := paths(search(t, ix, "zorblax", graph.SearchOptions{HidePrivate: true})); len(got) != 0 {
				t.Errorf("zorblax hiding private notes: %v, want nothing", got)
			}
			if got := paths(search(t, ix, "zorblax", graph.SearchOptions{})); !sameSet(got, "billing/refund.md", "private/diary.md") {
				t.Errorf("zorblax with private notes: %v", got)
			}
			for _, h := range search(t, ix, "refund", graph.SearchOptions{HidePrivate: true}).Hits {
				if h.Inbound != nil && h.Inbound.From == "private/diary.md" {
					t.Errorf("refund hiding private notes: %s shows the private line %+v", h.Path, h.Inbound)
				}
			}
		})
	}
}

// TestSearch_InboundFollowsLinker: when a linking note changes or goes, the
// inbound field of the note it linked to follows (no rebuild).
func TestSearch_InboundFollowsLinker(t *testing.T) {
	ctx := context.Background()
	ix, _ := openIndex(t, inboundOn())
	if err := ix.Update(ctx, graph.DocBatch("c1", inboundDocs(t, inboundVault), nil)); err != nil {
		t.Fatal(err)
	}
	changed := map[string]string{"faq/questions.md": "---\ntitle: Questions\n---\n# Questions\n\nHow do returns work? See [[refund|the quibblequest]].\n"}
	if err := ix.Update(ctx, graph.DocBatch("c2", inboundDocs(t, changed), nil)); err != nil {
		t.Fatal(err)
	}
	if got := paths(search(t, ix, "quibblequest", graph.SearchOptions{})); !sameSet(got, "billing/refund.md", "faq/questions.md") {
		t.Errorf("quibblequest after the linker changed: %v", got)
	}
	if res := search(t, ix, "getting", graph.SearchOptions{}); len(res.Hits) != 0 {
		t.Errorf("getting (only in the old line): %v", paths(res))
	}
	if err := ix.Update(ctx, graph.DocBatch("c3", nil, []note.Path{"faq/questions.md"})); err != nil {
		t.Fatal(err)
	}
	if got := paths(search(t, ix, "quibblequest", graph.SearchOptions{})); len(got) != 0 {
		t.Errorf("quibblequest after the linker went: %v", got)
	}
}

// TestSearch_InboundEditedLinker: catch-up leaves alone the fields of the notes
// an edited note links to when its linking lines stay, and only then: each step
// (a line added after the link, the linker made public and private again with
// the same text, its linking line changed) answers, hiding private notes and
// showing them, as an index rebuilt with the same notes.
func TestSearch_InboundEditedLinker(t *testing.T) {
	ctx := context.Background()
	diary := inboundVault["private/diary.md"]
	questions := inboundVault["faq/questions.md"]
	steps := []struct {
		name    string
		path    string
		text    string
		private bool
	}{
		{"diary: a line added", "private/diary.md", diary + "\nLater: nothing new.\n", true},
		{"diary made public", "private/diary.md", diary + "\nLater: nothing new.\n", false},
		{"diary made private again", "private/diary.md", diary + "\nLater: nothing new.\n", true},
		{"questions: a line added", "faq/questions.md", questions + "\nMore questions soon.\n", false},
		{"questions: the linking line changed", "faq/questions.md", strings.Replace(questions, "getting your money back", "a zorblax refund", 1), false},
	}
	ix, _ := openIndex(t, inboundOn())
	live, private := map[string]string{}, map[string]bool{}
	for p, text := range inboundVault {
		live[p], private[p] = text, strings.HasPrefix(p, "private/")
	}
	docs := func(notes map[string]string) []graph.Doc {
		ds := mkDocs(t, notes)
		for i := range ds {
			ds[i].Private = private[string(ds[i].Path)]
		}
		return ds
	}
	if err := ix.Update(ctx, graph.DocBatch("c0", docs(live), nil)); err != nil {
		t.Fatal(err)
	}
	for c, s := range steps {
		live[s.path], private[s.path] = s.text, s.private
		if err := ix.Update(ctx, graph.DocBatch(fmt.Sprintf("c%d", c+1), docs(map[string]string{s.path: s.text}), nil)); err != nil {
			t.Fatal(err)
		}
		rebuilt, _ := openIndex(t, inboundOn())
		if err := rebuilt.Rebuild(ctx, "r", graph.DocRecords(seq(docs(live))), nil); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{"zorblax", "money back", "refund", "asked today", "getting"} {
			for _, hide := range []bool{false, true} {
				o := graph.SearchOptions{HidePrivate: hide}
				got, want := search(t, ix, q, o), search(t, rebuilt, q, o)
				if got.Total != want.Total || !reflect.DeepEqual(got.Hits, want.Hits) {
					t.Errorf("%s: %q (hiding private notes %v): total %d incremental, %d rebuilt%s", s.name, q, hide, got.Total, want.Total, firstHitDiff(got.Hits, want.Hits))
				}
			}
		}
	}
	// The last step's word reached the target's field.
	if got := paths(search(t, ix, "zorblax", graph.SearchOptions{HidePrivate: true})); !sameSet(got, "billing/refund.md", "faq/questions.md") {
		t.Errorf("zorblax hiding private notes after the last step: %v", got)
	}
}

// sameSet reports whether got holds exactly want, in any order.
func sameSet(got []string, want ...string) bool {
	got, want = slices.Clone(got), slices.Clone(want)
	slices.Sort(got)
	slices.Sort(want)
	return slices.Equal(got, want)
}

// inboundOn returns options with the inbound field scored (weight 1: the
// default is off, docs/search.md).
func inboundOn() graph.Options {
	w := graph.DefaultWeights()
	w.Inbound.Weight = 1
	return graph.Options{Weights: w}
}

// TestSearch_ApostropheWords: a word with an apostrophe second ("O'Reilly",
// whose term is "oreilli") is found in a hit's text and in its linking lines
// like any other: the snippet marks it, and the inbound line is the one that
// holds it.
func TestSearch_ApostropheWords(t *testing.T) {
	ix, _ := openIndex(t, inboundOn())
	notes := map[string]string{
		"books/press.md":  "---\ntitle: Press\n---\n# Press\n\nThe catalogue of a publisher.\n",
		"books/shelf.md":  "---\ntitle: Shelf\n---\n# Shelf\n\nA [[press]] catalogue lists the quarterly titles.\n",
		"books/orders.md": "---\ntitle: Orders\n---\n# Orders\n\nThe O'Reilly catalogue comes from the [[press]].\n",
	}
	if err := ix.Rebuild(context.Background(), "c1", graph.DocRecords(seq(mkDocs(t, notes))), nil); err != nil {
		t.Fatal(err)
	}
	res := search(t, ix, "o'reilly catalogue", graph.SearchOptions{})
	byPath := map[note.Path]graph.Hit{}
	for _, h := range res.Hits {
		byPath[h.Path] = h
	}
	if h := byPath["books/orders.md"]; !strings.Contains(h.Snippet, "«O'Reilly»") {
		t.Errorf("orders.md snippet %q, want «O'Reilly» marked", h.Snippet)
	}
	in := byPath["books/press.md"].Inbound
	if in == nil || in.From != "books/orders.md" {
		t.Errorf("press.md inbound line %+v, want the line of books/orders.md (both of the query's words)", in)
	}
}
