package graph_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
)

// linkVault is a small vault whose links cover each way a change to one note
// re-points links in others.
var linkVault = map[string]string{
	"Home.md":          "# Home\nSee [[Alpha]], [[Beta#Usage]], [[Gamma]] and [b](b/Beta.md).\n![[pic.png]]\n",
	"a/Alpha.md":       "---\ntags: [core]\naliases: [First]\n---\n# Alpha\nBack to [[Home]]. Also [[Shared]].\n",
	"b/Beta.md":        "---\ntags: [core, extra]\ntype: concept\nedges:\n  - to: \"[[Alpha]]\"\n    type: refines\n    why: Beta narrows the general idea of Alpha to one case.\n---\n# Beta\n## Usage\nUses [[First]].\n",
	"x/Shared.md":      "# Shared x\n",
	"y/Shared.md":      "# Shared y\n[[Shared]] here is y's own.\n",
	"lonely/Orphan.md": "# Orphan\nNo links at all.\n",
}

func linkDocs(t testing.TB, notes map[string]string) []graph.Doc {
	docs := mkDocs(t, notes)
	return append(docs, graph.Doc{Path: "pic.png", Revision: "rev-pic"})
}

func linksOf(t testing.TB, ix *graph.Index, p note.Path) *graph.NoteLinks {
	t.Helper()
	l, err := ix.Links(p, 50)
	if err != nil {
		t.Fatalf("links %s: %v", p, err)
	}
	return l
}

func status(refs []graph.LinkRef) []string {
	out := []string{}
	for _, r := range refs {
		out = append(out, fmt.Sprintf("%s:%d %s->%s %s", r.From, r.Line, r.Target, r.To, r.Status))
	}
	return out
}

func TestLinks_Queries(t *testing.T) {
	ctx := context.Background()
	ix, _ := openIndex(t, graph.Options{})
	if err := ix.Rebuild(ctx, "c1", graph.DocRecords(seq(linkDocs(t, linkVault))), nil); err != nil {
		t.Fatal(err)
	}
	home := linksOf(t, ix, "Home.md")
	want := []string{
		"Home.md:2 Alpha->a/Alpha.md resolved",
		"Home.md:2 Beta->b/Beta.md resolved",
		"Home.md:2 Gamma-> broken",
		"Home.md:2 b/Beta.md->b/Beta.md resolved",
		"Home.md:3 pic.png->pic.png resolved",
	}
	if got := status(home.Outgoing); !reflect.DeepEqual(got, want) {
		t.Errorf("outgoing of Home:\n got %q\nwant %q", got, want)
	}
	if home.Outgoing[1].HeadingMissing {
		t.Error("[[Beta#Usage]]: heading reported missing")
	}
	alpha := linksOf(t, ix, "a/Alpha.md")
	want = []string{
		"Home.md:2 Alpha->a/Alpha.md resolved",
		"b/Beta.md:11 First->a/Alpha.md resolved",
		"b/Beta.md:5 Alpha->a/Alpha.md resolved",
	}
	if got := status(alpha.Backlinks); !reflect.DeepEqual(got, want) {
		t.Errorf("backlinks of Alpha:\n got %q\nwant %q", got, want)
	}
	for _, b := range alpha.Backlinks {
		if b.Context == "" {
			t.Errorf("backlink %+v has no context", b)
		}
		if b.Kind == graph.EdgeKindTyped && (b.Type != "refines" || b.Context != b.Why) {
			t.Errorf("typed edge backlink %+v", b)
		}
	}
	if alpha.Backlinks[0].Context != "See [[Alpha]], [[Beta#Usage]], [[Gamma]] and [b](b/Beta.md)." {
		t.Errorf("context %q", alpha.Backlinks[0].Context)
	}
	if !slices.Equal(alpha.SameTags, []note.Path{"b/Beta.md"}) {
		t.Errorf("same tags %v", alpha.SameTags)
	}
	// [[Shared]] from Alpha is ambiguous; from y/ it is y's own.
	if o := linksOf(t, ix, "a/Alpha.md").Outgoing[1]; o.Status != graph.LinkAmbiguous || len(o.Candidates) != 2 {
		t.Errorf("[[Shared]] from a/: %+v", o)
	}
	if o := linksOf(t, ix, "y/Shared.md").Outgoing[0]; o.Status != graph.LinkResolved || o.To != "y/Shared.md" {
		t.Errorf("[[Shared]] from y/: %+v", o)
	}
	if _, err := ix.Links("nope.md", 10); !errors.Is(err, graph.ErrUnknownNote) {
		t.Errorf("unknown note: %v", err)
	}

	nb, err := ix.Neighborhood("Home.md", graph.NeighborhoodOptions{Depth: 2, MaxNodes: 10})
	if err != nil {
		t.Fatal(err)
	}
	var ids []note.Path
	for _, n := range nb.Nodes {
		ids = append(ids, n.ID)
	}
	if !slices.Equal(ids, []note.Path{"Home.md", "a/Alpha.md", "b/Beta.md"}) || nb.Truncated {
		t.Errorf("neighborhood nodes %v truncated %v", ids, nb.Truncated)
	}
	if nb.Nodes[2].Type != "concept" || nb.Nodes[1].Backlinks != 2 {
		t.Errorf("node details %+v", nb.Nodes)
	}
	wantEdges := []graph.Edge{
		{From: "Home.md", To: "a/Alpha.md", Type: "link"}, {From: "Home.md", To: "b/Beta.md", Type: "link"},
		{From: "a/Alpha.md", To: "Home.md", Type: "link"},
		{From: "b/Beta.md", To: "a/Alpha.md", Type: "link"}, {From: "b/Beta.md", To: "a/Alpha.md", Type: "refines"},
	}
	if !reflect.DeepEqual(nb.Edges, wantEdges) {
		t.Errorf("edges\n got %+v\nwant %+v", nb.Edges, wantEdges)
	}
	nb, _ = ix.Neighborhood("Home.md", graph.NeighborhoodOptions{Depth: 2, MaxNodes: 2})
	if len(nb.Nodes) != 2 || !nb.Truncated {
		t.Errorf("capped neighborhood: %d nodes, truncated %v", len(nb.Nodes), nb.Truncated)
	}
	nb, _ = ix.Neighborhood("b/Beta.md", graph.NeighborhoodOptions{Depth: 1, Types: []string{"refines"}})
	if len(nb.Nodes) != 2 || len(nb.Edges) != 1 || nb.Edges[0].Type != "refines" {
		t.Errorf("typed neighborhood %+v", nb)
	}
	if _, err := ix.Neighborhood("Home.md", graph.NeighborhoodOptions{Depth: 9}); !errors.Is(err, graph.ErrArg) {
		t.Errorf("depth 9: %v", err)
	}

	hubs, err := ix.Hubs(2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(hubs.Nodes) != 2 || hubs.Nodes[0].ID != "a/Alpha.md" || hubs.NextOffset != 2 {
		t.Errorf("hubs %+v", hubs)
	}
	orphans, _ := ix.Orphans(10, 0)
	// y/Shared.md links only to itself: an orphan too.
	if len(orphans.Nodes) != 3 || orphans.Nodes[0].ID != "lonely/Orphan.md" || orphans.Nodes[2].ID != "y/Shared.md" {
		t.Errorf("orphans %+v", orphans.Nodes)
	}
	path, err := ix.ShortestPath("b/Beta.md", "Home.md", 0)
	if err != nil || !path.Found || len(path.Nodes) != 2 {
		t.Errorf("path Beta→Home: %+v %v", path, err)
	}
	path, _ = ix.ShortestPath("lonely/Orphan.md", "Home.md", 0)
	if path.Found {
		t.Errorf("path from an orphan found: %+v", path)
	}
	st, err := ix.Stats(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if st.Notes != 6 || st.Files != 7 || st.Links.Total != 9 || st.Links.Broken != 1 || st.Links.Ambiguous != 1 ||
		st.Edges.Total != 1 || len(st.Folders) != 1 || st.FoldersTotal != 6 || !st.Truncated || st.Orphans != 3 {
		t.Errorf("stats %+v", st)
	}
}

// TestLinks_ChangesRepointOtherNotes checks that a change to one note re-resolves
// the links of others: a new note fixes a broken link, a removed one breaks it, a
// new title or alias captures links, a second same-named note makes links
// ambiguous, and headings are re-checked.
func TestLinks_ChangesRepointOtherNotes(t *testing.T) {
	ctx := context.Background()
	ix, _ := openIndex(t, graph.Options{})
	if err := ix.Update(ctx, graph.DocBatch("c1", linkDocs(t, linkVault), nil)); err != nil {
		t.Fatal(err)
	}
	out := func(p note.Path, i int) graph.LinkRef { return linksOf(t, ix, p).Outgoing[i] }
	put := func(commit string, notes map[string]string, rm ...note.Path) {
		t.Helper()
		if err := ix.Update(ctx, graph.DocBatch(commit, mkDocs(t, notes), rm)); err != nil {
			t.Fatal(err)
		}
	}
	put("c2", map[string]string{"g/Gamma.md": "# Gamma\n"})
	if o := out("Home.md", 2); o.Status != graph.LinkResolved || o.To != "g/Gamma.md" {
		t.Errorf("after creating Gamma: %+v", o)
	}
	put("c3", map[string]string{"h/Gamma.md": "# Gamma 2\n"})
	if o := out("Home.md", 2); o.Status != graph.LinkAmbiguous {
		t.Errorf("after a second Gamma: %+v", o)
	}
	put("c4", nil, "g/Gamma.md", "h/Gamma.md")
	if o := out("Home.md", 2); o.Status != graph.LinkBroken {
		t.Errorf("after removing both: %+v", o)
	}
	// A title captures a broken link; an alias moves away.
	put("c5", map[string]string{"lonely/Orphan.md": "---\ntitle: Gamma\n---\nnow titled\n", "a/Alpha.md": "# Alpha\nno alias now [[Home]]\n"})
	if o := out("Home.md", 2); o.To != "lonely/Orphan.md" {
		t.Errorf("title capture: %+v", o)
	}
	if o := out("b/Beta.md", 0); o.Status != graph.LinkBroken || o.Target != "First" {
		t.Errorf("[[First]] after the alias went: %+v", o)
	}
	// The heading [[Beta#Usage]] names goes away.
	put("c6", map[string]string{"b/Beta.md": "# Beta\n## Other\n"})
	if o := out("Home.md", 1); !o.HeadingMissing {
		t.Errorf("heading gone: %+v", o)
	}
	if l := linksOf(t, ix, "a/Alpha.md"); l.BacklinksTotal != 1 {
		t.Errorf("Alpha backlinks after Beta lost its links: %+v", l.Backlinks)
	}
	// Removing the attachment breaks the embed.
	put("c7", nil, "pic.png")
	if o := out("Home.md", 4); o.Status != graph.LinkBroken {
		t.Errorf("embed after the image went: %+v", o)
	}
}

// TestLinks_IncrementalEqualsRebuild applies random commits and compares every
// query on the incrementally updated index with one rebuilt from scratch and with
// one reopened from disk.
func TestLinks_IncrementalEqualsRebuild(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 11))
	names := []string{"Alpha", "Beta", "Gamma", "Delta", "Eps", "Zeta"}
	folders := []string{"", "a/", "b/", "a/c/"}
	randomNote := func() string {
		s := ""
		if rng.IntN(3) == 0 {
			s = fmt.Sprintf("---\ntitle: %s\naliases: [%s]\ntags: [t%d]\n---\n", names[rng.IntN(6)], names[rng.IntN(6)]+"x", rng.IntN(3))
		}
		s += fmt.Sprintf("# %s\n", names[rng.IntN(6)])
		for range rng.IntN(5) {
			switch rng.IntN(4) {
			case 0:
				s += fmt.Sprintf("see [[%s]]\n", names[rng.IntN(6)])
			case 1:
				s += fmt.Sprintf("see [[%s#%s]]\n", names[rng.IntN(6)], names[rng.IntN(6)])
			case 2:
				s += fmt.Sprintf("see [x](%s%s.md)\n", folders[rng.IntN(4)], names[rng.IntN(6)])
			default:
				s += fmt.Sprintf("## %s\nsee [[%sx]]\n", names[rng.IntN(6)], names[rng.IntN(6)])
			}
		}
		return s
	}
	live := map[string]string{}
	inc, dir := openIndex(t, graph.Options{})
	// lazy gets the same Updates but is reopened every tenth commit, so most of its
	// Updates find the link graph not read yet and leave it to be read from the
	// records they wrote.
	lazy, lazyDir := openIndex(t, graph.Options{})
	t.Cleanup(func() { lazy.Close() })
	for c := range 60 {
		if c%10 == 5 {
			lazy.Close()
			var err error
			if lazy, err = graph.Open(lazyDir, graph.Options{}); err != nil {
				t.Fatal(err)
			}
		}
		put := map[string]string{}
		var rm []note.Path
		for range 1 + rng.IntN(4) {
			p := folders[rng.IntN(4)] + names[rng.IntN(6)] + ".md"
			if _, ok := live[p]; ok && rng.IntN(3) == 0 && put[p] == "" {
				if !slices.Contains(rm, note.Path(p)) {
					rm = append(rm, note.Path(p))
				}
				continue
			}
			if !slices.Contains(rm, note.Path(p)) {
				put[p] = randomNote()
			}
		}
		for _, ix := range []*graph.Index{inc, lazy} {
			if err := ix.Update(ctx, graph.DocBatch(fmt.Sprint("c", c), mkDocs(t, put), rm)); err != nil {
				t.Fatal(err)
			}
		}
		for _, p := range rm {
			delete(live, string(p))
		}
		for p, s := range put {
			live[p] = s
		}
	}
	full, _ := openIndex(t, graph.Options{})
	if err := full.Rebuild(ctx, "c59", graph.DocRecords(seq(mkDocs(t, live))), nil); err != nil {
		t.Fatal(err)
	}
	var livePaths []string
	for p := range live {
		livePaths = append(livePaths, p)
	}
	slices.Sort(livePaths)
	snapshot := func(ix *graph.Index) string {
		s := ""
		for _, p := range livePaths {
			l, err := ix.Links(note.Path(p), 100)
			if err != nil {
				t.Fatal(err)
			}
			nb, err := ix.Neighborhood(note.Path(p), graph.NeighborhoodOptions{Depth: 2})
			if err != nil {
				t.Fatal(err)
			}
			s += fmt.Sprintf("%s %+v %+v %+v %+v\n", p, l.Outgoing, l.Backlinks, l.SameTags, nb)
		}
		st, _ := ix.Stats(100, 0)
		hubs, _ := ix.Hubs(100, 0)
		return s + fmt.Sprintf("%+v %+v", st, hubs)
	}
	got, want := snapshot(inc), snapshot(full)
	if got != want {
		t.Errorf("incremental differs from rebuilt: %s", firstDiff(got, want))
	}
	if got := snapshot(lazy); got != want {
		t.Errorf("incremental, graph read after the last reopen, differs from rebuilt: %s", firstDiff(got, want))
	}
	inc.Close()
	re, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer re.Close()
	if got := snapshot(re); got != want {
		t.Errorf("reopened differs from rebuilt: %s", firstDiff(got, want))
	}
}

// firstDiff returns the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n got %s\nwant %s", i, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}

// TestLinks_PctComments: a link inside an Obsidian %% comment is no edge of the
// graph, inline or in a block (FormatVersion 5).
func TestLinks_PctComments(t *testing.T) {
	ctx := context.Background()
	ix, _ := openIndex(t, graph.Options{})
	notes := map[string]string{
		"Home.md":  "# Home\n[[Alpha]] %% [[Beta]] %%\n%%\n[[Gamma]]\n\n![[Beta]]\n%%\nAfter [[Beta#Usage]].\n",
		"Alpha.md": "# Alpha\n",
		"Beta.md":  "# Beta\n## Usage\n",
	}
	if err := ix.Rebuild(ctx, "c1", graph.DocRecords(seq(linkDocs(t, notes))), nil); err != nil {
		t.Fatal(err)
	}
	want := []string{"Home.md:2 Alpha->Alpha.md resolved", "Home.md:8 Beta->Beta.md resolved"}
	if got := status(linksOf(t, ix, "Home.md").Outgoing); !reflect.DeepEqual(got, want) {
		t.Errorf("outgoing of Home:\n got %q\nwant %q", got, want)
	}
	if got := status(linksOf(t, ix, "Beta.md").Backlinks); !reflect.DeepEqual(got, want[1:]) {
		t.Errorf("backlinks of Beta:\n got %q\nwant %q", got, want[1:])
	}
}
