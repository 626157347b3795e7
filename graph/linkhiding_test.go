package graph_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
)

// hidingVault makes a random vault of notes in a few folders whose links name
// each other by path, stem, title and alias (names shared between notes, so some
// links are ambiguous), and picks some of them to hide.
func hidingVault(seed uint64) (map[string]string, map[note.Path]bool) {
	rng := rand.New(rand.NewPCG(seed, 7))
	folders := []string{"a", "b", "c/d", "p"}
	stems := []string{"alpha", "beta", "gamma", "delta", "nightjar", "bulk7"}
	titles := []string{"Project Nightjar", "Alpha", "Gamma Ray", "Delta"}
	aliases := []string{"xylodiary", "gamma", "beta-alias"}
	notes := map[string]string{}
	hidden := map[note.Path]bool{}
	var names []string
	for _, s := range stems {
		names = append(names, s)
	}
	names = append(names, titles...)
	names = append(names, aliases...)
	names = append(names, "nothing-here")
	for i := range 14 {
		p := fmt.Sprintf("%s/%s.md", folders[rng.IntN(len(folders))], stems[rng.IntN(len(stems))])
		if _, dup := notes[p]; dup {
			p = fmt.Sprintf("%s/n%d.md", folders[rng.IntN(len(folders))], i)
		}
		names = append(names, strings.TrimSuffix(p, ".md"))
		var b strings.Builder
		b.WriteString("---\n")
		if rng.IntN(3) > 0 {
			fmt.Fprintf(&b, "title: %s\n", titles[rng.IntN(len(titles))])
		}
		if rng.IntN(3) == 0 {
			fmt.Fprintf(&b, "aliases: [%s]\n", aliases[rng.IntN(len(aliases))])
		}
		fmt.Fprintf(&b, "tags: [t%d]\n", rng.IntN(3))
		b.WriteString("---\n# Head\n")
		notes[p] = b.String()
		if rng.IntN(3) == 0 {
			hidden[note.Path(p)] = true
		}
	}
	for p := range notes {
		var b strings.Builder
		b.WriteString(notes[p])
		for range 1 + rng.IntN(5) {
			name := names[rng.IntN(len(names))]
			if rng.IntN(4) == 0 {
				name += "#Head"
			}
			fmt.Fprintf(&b, "See [[%s]].\n", name)
		}
		notes[p] = b.String()
	}
	return notes, hidden
}

// TestLinkGraph_HidingIsTheVaultWithout: every hiding link query answers, for
// a random vault, exactly what the plain query answers for the same vault with
// the hidden notes removed: a link that a hidden note answers (by path, stem,
// title or alias) resolves as if that note did not exist, in links, stats,
// hubs, orphans and neighbourhoods alike, in the index and the scan graph.
func TestLinkGraph_HidingIsTheVaultWithout(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(40) {
		notes, hidden := hidingVault(seed)
		docs := linkDocs(t, notes)
		var kept []graph.Doc
		for _, d := range docs {
			if !hidden[d.Path] {
				kept = append(kept, d)
			}
		}
		h := graph.Hidden(func(p note.Path) bool { return hidden[p] })
		full, without := graph.NewScanGraph("c1", docs), graph.NewScanGraph("c1", kept)
		ix, _ := openIndex(t, graph.Options{})
		if err := ix.Rebuild(ctx, "c1", graph.DocRecords(seq(docs)), nil); err != nil {
			t.Fatal(err)
		}
		same := func(what string, a, b any, aerr, berr error) {
			t.Helper()
			if !reflect.DeepEqual(a, b) || (aerr == nil) != (berr == nil) {
				t.Fatalf("seed %d: %s:\nhiding  %+v %v\nwithout %+v %v", seed, what, a, aerr, b, berr)
			}
		}
		for _, src := range []interface {
			LinksHiding(note.Path, int, graph.Hidden) (*graph.NoteLinks, error)
			StatsHiding(int, int, graph.Hidden) (*graph.GraphStats, error)
			HubsHiding(int, int, graph.Hidden) (*graph.NodeList, error)
			OrphansHiding(int, int, graph.Hidden) (*graph.NodeList, error)
			Neighborhood(note.Path, graph.NeighborhoodOptions) (*graph.Neighborhood, error)
		}{full, ix} {
			for _, d := range docs {
				a, aerr := src.LinksHiding(d.Path, 50, h)
				b, berr := without.LinksHiding(d.Path, 50, nil)
				same("links "+string(d.Path), a, b, aerr, berr)
				na, aerr := src.Neighborhood(d.Path, graph.NeighborhoodOptions{Depth: 2, Hidden: h})
				nb, berr := without.Neighborhood(d.Path, graph.NeighborhoodOptions{Depth: 2})
				same("neighborhood "+string(d.Path), na, nb, aerr, berr)
			}
			a, aerr := src.StatsHiding(50, 0, h)
			b, berr := without.StatsHiding(50, 0, nil)
			same("stats", a, b, aerr, berr)
			ha, aerr := src.HubsHiding(100, 0, h)
			hb, berr := without.HubsHiding(100, 0, nil)
			same("hubs", ha, hb, aerr, berr)
			oa, aerr := src.OrphansHiding(100, 0, h)
			ob, berr := without.OrphansHiding(100, 0, nil)
			same("orphans", oa, ob, aerr, berr)
		}
	}
}
