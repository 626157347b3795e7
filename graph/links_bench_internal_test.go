package graph

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/norn-vault/norn/note"
)

// hubIndex is an index rebuilt from obsidian-hub, closed when b ends.
func hubIndex(b *testing.B) *Index {
	root := filepath.Join(corporaDir, "vault-obsidian-hub", "notes")
	needDir(b, root)
	ix, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	if err := ix.Rebuild(context.Background(), "c1", DocRecords(parsedSeq(rawVault(b, root))), nil); err != nil {
		b.Fatal(err)
	}
	return ix
}

// BenchmarkGraph measures the link queries on obsidian-hub (6,571 notes): links
// of a note, its depth-2 neighborhood capped at 200 nodes, and the top hubs; the
// notes are the 100 with the most backlinks, so the figures are for busy notes.
func BenchmarkGraph(b *testing.B) {
	ix := hubIndex(b)
	hubs, err := ix.Hubs(100, 0)
	if err != nil {
		b.Fatal(err)
	}
	var busy []note.Path
	for _, n := range hubs.Nodes {
		busy = append(busy, n.ID)
	}
	slices.Sort(busy)
	b.Run("links", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := ix.Links(busy[i%len(busy)], 50); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("neighborhood-depth2-max200", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := ix.Neighborhood(busy[i%len(busy)], NeighborhoodOptions{Depth: 2, MaxNodes: 200}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("hubs", func(b *testing.B) {
		for b.Loop() {
			if _, err := ix.Hubs(20, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	// As seen by a caller from whom every 20th note (by path) and every 10th hub
	// is hidden: links that named one are resolved again without it.
	notes, err := ix.NotesHiding(nil)
	if err != nil {
		b.Fatal(err)
	}
	hidden := map[note.Path]bool{}
	for i, n := range notes {
		if i%20 == 0 {
			hidden[n.Path] = true
		}
	}
	for i, p := range busy {
		if i%10 == 5 {
			hidden[p] = true
		}
	}
	h := Hidden(func(p note.Path) bool { return hidden[p] })
	b.Run("links-hiding", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if p := busy[i%len(busy)]; !hidden[p] {
				if _, err := ix.LinksHiding(p, 50, h); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("neighborhood-depth2-max200-hiding", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if p := busy[i%len(busy)]; !hidden[p] {
				if _, err := ix.Neighborhood(p, NeighborhoodOptions{Depth: 2, MaxNodes: 200, Hidden: h}); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("hubs-hiding", func(b *testing.B) {
		for b.Loop() {
			if _, err := ix.HubsHiding(20, 0, h); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("stats-hiding", func(b *testing.B) {
		for b.Loop() {
			if _, err := ix.StatsHiding(50, 0, h); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkLoadLinks reads the link graph of obsidian-hub (6,571 notes) from its
// records and resolves it, as the first link query after Open does.
func BenchmarkLoadLinks(b *testing.B) {
	ix := hubIndex(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ix.loadLinks(); err != nil {
			b.Fatal(err)
		}
	}
}
