package graph_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
)

// hide returns a Hidden hiding exactly paths.
func hide(paths ...note.Path) graph.Hidden {
	return func(p note.Path) bool { return slices.Contains(paths, p) }
}

// TestScanGraph_EqualsIndex: the in-memory graph of the same notes answers every
// link query exactly as the index does, hidden notes or not.
func TestScanGraph_EqualsIndex(t *testing.T) {
	ctx := context.Background()
	docs := linkDocs(t, linkVault)
	ix, _ := openIndex(t, graph.Options{})
	if err := ix.Rebuild(ctx, "c1", graph.DocRecords(seq(docs)), nil); err != nil {
		t.Fatal(err)
	}
	sg := graph.NewScanGraph("c1", docs)
	for _, h := range []graph.Hidden{nil, hide("a/Alpha.md", "x/Shared.md"), hide("pic.png")} {
		for _, d := range docs {
			a, aerr := ix.LinksHiding(d.Path, 2, h)
			b, berr := sg.LinksHiding(d.Path, 2, h)
			if !reflect.DeepEqual(a, b) || (aerr == nil) != (berr == nil) {
				t.Errorf("links %s:\nindex %+v %v\nscan  %+v %v", d.Path, a, aerr, b, berr)
			}
			ai, aerr := ix.Inbound(d.Path)
			bi, berr := sg.Inbound(d.Path)
			if !reflect.DeepEqual(ai, bi) || (aerr == nil) != (berr == nil) {
				t.Errorf("inbound %s:\nindex %+v %v\nscan  %+v %v", d.Path, ai, aerr, bi, berr)
			}
		}
		for _, off := range []int{0, 1, 5} {
			a, _ := ix.StatsHiding(2, off, h)
			b, _ := sg.StatsHiding(2, off, h)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("stats offset %d:\nindex %+v\nscan  %+v", off, a, b)
			}
		}
	}
	if sg.Commit() != "c1" {
		t.Errorf("commit %q", sg.Commit())
	}
}

// TestIndex_LinksHiding: a hidden note is unknown, its backlinks and tag
// neighbours are gone from the lists and the totals, and a link to it is broken.
func TestIndex_LinksHiding(t *testing.T) {
	ix, _ := openIndex(t, graph.Options{})
	if err := ix.Rebuild(context.Background(), "c1", graph.DocRecords(seq(linkDocs(t, linkVault))), nil); err != nil {
		t.Fatal(err)
	}
	h := hide("a/Alpha.md", "x/Shared.md", "pic.png")
	if _, err := ix.LinksHiding("a/Alpha.md", 10, h); !errors.Is(err, graph.ErrUnknownNote) {
		t.Fatalf("a hidden note: %v", err)
	}
	home, err := ix.LinksHiding("Home.md", 10, h)
	if err != nil {
		t.Fatal(err)
	}
	if o := home.Outgoing[0]; o.Status != graph.LinkBroken || o.To != "" || home.OutgoingTotal != 5 {
		t.Errorf("link to a hidden note: %+v", home.Outgoing)
	}
	if o := home.Outgoing[4]; o.Status != graph.LinkBroken || o.To != "" {
		t.Errorf("embed of a hidden attachment: %+v", o)
	}
	if home.BacklinksTotal != 0 || len(home.Backlinks) != 0 {
		t.Errorf("backlinks from a hidden note: %+v", home.Backlinks)
	}
	beta, err := ix.LinksHiding("b/Beta.md", 10, h)
	if err != nil {
		t.Fatal(err)
	}
	if beta.SameTagsTotal != 0 || len(beta.SameTags) != 0 {
		t.Errorf("a hidden note sharing a tag: %+v", beta.SameTags)
	}
	all, _ := ix.Links("b/Beta.md", 10)
	if all.SameTagsTotal != 1 {
		t.Errorf("unhidden same tags: %+v", all.SameTags)
	}
	y, err := ix.LinksHiding("y/Shared.md", 10, hide("a/Alpha.md"))
	if err != nil || y.Outgoing[0].Status != graph.LinkResolved {
		t.Fatalf("y: %+v %v", y, err)
	}
	// [[Shared]] from a/Alpha.md is ambiguous between x/ and y/: without x/ it
	// resolves to y/, as it would in the vault without x/.
	alpha, err := ix.LinksHiding("a/Alpha.md", 10, hide("x/Shared.md"))
	if err != nil {
		t.Fatal(err)
	}
	if o := alpha.Outgoing[1]; o.Status != graph.LinkResolved || o.To != "y/Shared.md" || len(o.Candidates) != 0 {
		t.Errorf("an ambiguity with a hidden candidate: %+v", o)
	}
}

// TestIndex_StatsHiding pages the tables and leaves hidden notes uncounted.
func TestIndex_StatsHiding(t *testing.T) {
	ix, _ := openIndex(t, graph.Options{})
	if err := ix.Rebuild(context.Background(), "c1", graph.DocRecords(seq(linkDocs(t, linkVault))), nil); err != nil {
		t.Fatal(err)
	}
	p1, err := ix.Stats(4, 0)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := ix.Stats(4, 4)
	if err != nil {
		t.Fatal(err)
	}
	if p1.FoldersTotal != 6 || len(p1.Folders) != 4 || p1.FoldersNextOffset != 4 || !p1.Truncated ||
		len(p2.Folders) != 2 || p2.FoldersNextOffset != 0 || p2.Truncated {
		t.Errorf("folder pages: %+v / %+v", p1, p2)
	}
	if p1.TagsTotal != 2 || p1.TagsNextOffset != 0 || len(p2.Tags) != 0 || p2.TagsTotal != 2 {
		t.Errorf("tag pages: %+v / %+v", p1.Tags, p2.Tags)
	}
	seen := map[string]bool{}
	for _, c := range append(p1.Folders, p2.Folders...) {
		if seen[c.Name] {
			t.Errorf("folder %s on both pages", c.Name)
		}
		seen[c.Name] = true
	}
	if _, err := ix.Stats(4, -1); !errors.Is(err, graph.ErrArg) {
		t.Errorf("negative offset: %v", err)
	}
	h, err := ix.StatsHiding(50, 0, hide("a/Alpha.md", "pic.png"))
	if err != nil {
		t.Fatal(err)
	}
	// Alpha's two links go; Home's [[Alpha]] and Beta's edge still count, by where they resolve.
	if h.Notes != 5 || h.Files != 5 || h.Links.Total != 7 || h.Edges.Total != 1 || h.TagsTotal != 2 || h.Tags[0] != (graph.Count{Name: "core", Notes: 1}) {
		t.Errorf("hidden stats: %+v", h)
	}
}

// TestResolver_With: a what-if resolver sees the change, the resolver it came
// from and the index do not; a copy taken from the index does not follow later
// updates.
func TestResolver_With(t *testing.T) {
	ctx := context.Background()
	ix, _ := openIndex(t, graph.Options{})
	docs := linkDocs(t, linkVault)
	if err := ix.Rebuild(ctx, "c1", graph.DocRecords(seq(docs)), nil); err != nil {
		t.Fatal(err)
	}
	r, commit, err := ix.Resolver()
	if err != nil || commit != "c1" {
		t.Fatalf("resolver: %v %q", err, commit)
	}
	alpha := note.Link{Kind: note.LinkWiki, Target: "Alpha"}
	gamma := note.Link{Kind: note.LinkWiki, Target: "Gamma"}
	shared := note.Link{Kind: note.LinkWiki, Target: "Shared"}
	gn, err := note.Parse("g/Gamma.md", []byte("# Gamma\n"))
	if err != nil {
		t.Fatal(err)
	}
	w := r.With([]note.Path{"a/Alpha.md", "x/Shared.md"}, []*note.Note{gn})
	if res := w.Resolve("Home.md", alpha); res.Status != graph.LinkBroken {
		t.Errorf("removed note still resolves: %+v", res)
	}
	if res := w.Resolve("Home.md", gamma); res.Target != "g/Gamma.md" {
		t.Errorf("added note: %+v", res)
	}
	if res := w.Resolve("Home.md", shared); res.Target != "y/Shared.md" {
		t.Errorf("one Shared left: %+v", res)
	}
	if res := r.Resolve("Home.md", alpha); res.Target != "a/Alpha.md" {
		t.Errorf("the base changed: %+v", res)
	}
	if res := r.Resolve("Home.md", shared); res.Status != graph.LinkAmbiguous {
		t.Errorf("the base changed: %+v", res)
	}
	// Change the index: the copy keeps the state it was taken at.
	if err := ix.Update(ctx, graph.DocBatch("c2", nil, []note.Path{"x/Shared.md", "a/Alpha.md"})); err != nil {
		t.Fatal(err)
	}
	if res := r.Resolve("Home.md", shared); res.Status != graph.LinkAmbiguous || len(res.Candidates) != 2 {
		t.Errorf("the copy followed the index: %+v", res)
	}
	if res, _ := ix.Resolve("Home.md", shared); res.Target != "y/Shared.md" {
		t.Errorf("index: %+v", res)
	}
}

// TestIndex_Referrers names the notes whose links meet a note's names.
func TestIndex_Referrers(t *testing.T) {
	ix, _ := openIndex(t, graph.Options{})
	if err := ix.Rebuild(context.Background(), "c1", graph.DocRecords(seq(linkDocs(t, linkVault))), nil); err != nil {
		t.Fatal(err)
	}
	docs := map[note.Path]*note.Note{}
	for _, d := range linkDocs(t, linkVault) {
		docs[d.Path] = d.Note
	}
	got, err := ix.Referrers([]*note.Note{docs["a/Alpha.md"]})
	// Home's [[Alpha]], Beta's [[First]] (an alias) and its edge to Alpha.
	if err != nil || !slices.Equal(got, []note.Path{"Home.md", "b/Beta.md"}) {
		t.Errorf("referrers of Alpha: %v %v", got, err)
	}
	gn, _ := note.Parse("g/Gamma.md", []byte("# Gamma\n"))
	if got, _ := ix.Referrers([]*note.Note{gn}); !slices.Equal(got, []note.Path{"Home.md"}) {
		t.Errorf("referrers of a new Gamma: %v", got)
	}
	if got, _ := ix.Referrers([]*note.Note{docs["lonely/Orphan.md"]}); len(got) != 0 {
		t.Errorf("referrers of an orphan: %v", got)
	}
}
