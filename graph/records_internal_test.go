package graph

import (
	"context"
	"errors"
	"testing"

	"github.com/cockroachdb/pebble/v2"
)

// TestUpdate_RowsAtomicWithCommit: rows go into the same pebble batch as the
// notes' records and the commit marker. When the batch fails after the rows are
// in it (a damaged forward list of a note put again), neither the rows nor the
// commit are written, in memory or after a reopen; a batch that succeeds writes
// both, and they come back together.
func TestUpdate_RowsAtomicWithCommit(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ix, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	notes := []rawNote{{"a.md", []byte("# A\nalpha\n")}, {"b.md", []byte("# B\nbeta\n")}}
	recs := []Record{Row{Table: "claims", Key: []byte("old"), Value: []byte("1")}}
	for d := range parsedSeq(notes) {
		recs = append(recs, d)
	}
	if err := ix.Update(ctx, Batch{Commit: "c1", Records: recs}); err != nil {
		t.Fatal(err)
	}
	id := ix.docs.byPath["b.md"]
	if err := ix.db.Set(docKey(prefixFwd, id), []byte{0xff, 0xff, 0xff}, pebble.Sync); err != nil {
		t.Fatal(err)
	}
	var edit []Record
	edit = append(edit, Row{Table: "claims", Key: []byte("new"), Value: []byte("2")},
		Row{Table: "claims", Key: []byte("old"), Delete: true})
	for d := range parsedSeq([]rawNote{{"b.md", []byte("# B\nbeta gamma\n")}}) {
		edit = append(edit, d)
	}
	if err := ix.Update(ctx, Batch{Commit: "c2", Records: edit}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("update over a damaged forward list: %v, want ErrCorrupt", err)
	}
	check := func(ix *Index, when, commit string, want map[string]bool) {
		t.Helper()
		if ix.Commit() != commit {
			t.Errorf("%s: commit %q, want %q", when, ix.Commit(), commit)
		}
		for k, present := range want {
			if _, ok, err := ix.LookupRow("claims", []byte(k)); err != nil || ok != present {
				t.Errorf("%s: row %s present %v (%v), want %v", when, k, ok, err, present)
			}
		}
	}
	check(ix, "failed batch", "c1", map[string]bool{"old": true, "new": false})
	ix.Close()
	if ix, err = Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	check(ix, "reopened after the failed batch", "c1", map[string]bool{"old": true, "new": false})

	// Without the damaged note, the same rows go in with the commit.
	if err := ix.Update(ctx, Batch{Commit: "c2", Records: edit[:2]}); err != nil {
		t.Fatal(err)
	}
	check(ix, "good batch", "c2", map[string]bool{"old": false, "new": true})
	ix.Close()
	if ix, err = Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	check(ix, "reopened after the good batch", "c2", map[string]bool{"old": false, "new": true})
}
