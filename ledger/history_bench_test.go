package ledger_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/norn-vault/norn/internal/testvault"
	"github.com/norn-vault/norn/ledger"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// BenchmarkHistory measures the history of one note with 1,000 revisions in a
// vault of 10,000 notes: one commit imports the notes, then 2,000 commits alternate
// an edit of the note (moved to another folder every 100 revisions, so the walk
// follows 9 moves) with an edit of another note. History walks all 2,001
// commits and returns the note's 1,000 newest entries.
func BenchmarkHistory(b *testing.B) {
	const notes, revisions = 10000, 1000
	ctx := context.Background()
	v := newVault(b)
	author := repo.Author{Name: "bench", Email: "bench@example.com"}
	var changes []repo.Change
	for i := range notes {
		changes = append(changes, repo.Change{Kind: repo.Put, Path: note.Path(fmt.Sprintf("f%02d/n%05d.md", i%100, i)),
			Content: fmt.Appendf(nil, "# Note %d\n\nbody %d\n", i, i)})
	}
	if _, err := v.Apply(ctx, repo.Tx{Author: author, Op: repo.OpImport, Changes: changes}); err != nil {
		b.Fatal(err)
	}
	p := note.Path("f00/n00000.md")
	for i := 1; i < revisions; i++ {
		ch := repo.Change{Kind: repo.Put, Path: p, Content: fmt.Appendf(nil, "# Note 0\n\nrevision %d\n", i), ExpectedRevision: v.Revision(p)}
		op := repo.OpEdit
		if i%100 == 0 {
			np := note.Path(fmt.Sprintf("moved%d/n00000.md", i/100))
			ch = repo.Change{Kind: repo.Move, From: p, Path: np, Content: ch.Content, ExpectedRevision: ch.ExpectedRevision}
			op, p = repo.OpMove, np
		}
		if _, err := v.Apply(ctx, repo.Tx{Author: author, Op: op, Changes: []repo.Change{ch}}); err != nil {
			b.Fatal(err)
		}
		other := note.Path(fmt.Sprintf("f%02d/n%05d.md", i%100, 100+i))
		if _, err := v.Apply(ctx, repo.Tx{Author: author, Op: repo.OpEdit, Changes: []repo.Change{{Kind: repo.Put, Path: other,
			Content: fmt.Appendf(nil, "# Other\n\nedit %d\n", i), ExpectedRevision: v.Revision(other)}}}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := v.GC(ctx, repo.GCOptions{}); err != nil {
		b.Fatal(err)
	}
	b.Run(fmt.Sprintf("notes=%d/revisions=%d", notes, revisions), func(b *testing.B) {
		b.ReportAllocs()
		cpu0, _ := testvault.ProcessCPU()
		for b.Loop() {
			h, err := ledger.History(ctx, v, p, ledger.HistoryOptions{Limit: revisions})
			if err != nil || len(h) != revisions {
				b.Fatalf("History: %d entries, %v", len(h), err)
			}
		}
		reportCPU(b, cpu0)
	})
	b.Run(fmt.Sprintf("notes=%d/revisions=%d/first-page", notes, revisions), func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			h, err := ledger.History(ctx, v, p, ledger.HistoryOptions{Limit: 20})
			if err != nil || len(h) != 20 {
				b.Fatalf("History: %d entries, %v", len(h), err)
			}
		}
	})
}

// reportCPU reports the process's CPU time per op since cpu0 (cpu-ms/op): on a
// loaded machine wall time per op says more about the other processes.
func reportCPU(b *testing.B, cpu0 time.Duration) {
	if cpu1, ok := testvault.ProcessCPU(); ok && b.N > 0 {
		b.ReportMetric(float64(cpu1-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	}
}
