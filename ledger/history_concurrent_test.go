package ledger_test

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/norn-vault/norn/ledger"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// TestHistory_ConcurrentWalks: walks of the same and of other notes at once,
// while writes land, each answer what a walk alone answers for its HEAD (the
// repository's walk cache is shared; run with -race).
func TestHistory_ConcurrentWalks(t *testing.T) {
	ctx := context.Background()
	v := newVault(t)
	write := func(p note.Path, i int) {
		t.Helper()
		if _, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "a"}, Op: repo.OpWrite,
			Changes: []repo.Change{{Kind: repo.Put, Path: p, Content: fmt.Appendf(nil, "# N\n\nv%d\n", i), ExpectedRevision: v.Revision(p)}}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 60 {
		write(note.Path(fmt.Sprintf("n%d.md", i%3)), i)
	}
	want := map[note.Path][]ledger.Entry{}
	for i := range 3 {
		p := note.Path(fmt.Sprintf("n%d.md", i))
		h, err := ledger.History(ctx, v, p, ledger.HistoryOptions{Limit: 1000})
		if err != nil || len(h) != 20 {
			t.Fatalf("history of %s: %d entries, %v", p, len(h), err)
		}
		want[p] = h
	}
	var wg sync.WaitGroup
	errs := make(chan error, 12)
	for g := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := note.Path(fmt.Sprintf("n%d.md", g%3))
			for range 5 {
				h, err := ledger.History(ctx, v, p, ledger.HistoryOptions{Limit: 1000})
				if err != nil {
					errs <- err
					return
				}
				// Writes to other.md land meanwhile: p's history does not change.
				if !reflect.DeepEqual(h, want[p]) {
					errs <- fmt.Errorf("history of %s differs under concurrency: %d entries", p, len(h))
					return
				}
			}
		}()
	}
	for i := range 10 {
		write("other.md", i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}
