package graph

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"testing"
)

// TestIndex_Rebuild_InboundFails cancels a rebuild once every note is analysed,
// so that its inbound pass fails while the link graph's table is being written
// beside it: the rebuild returns the pass's error, and the index holds exactly
// the keys it held before, with no file of the rebuild left.
func TestIndex_Rebuild_InboundFails(t *testing.T) {
	docs := runsNotes(t, 700)
	notes := 0
	for _, d := range docs {
		if d.Note != nil {
			notes++
		}
	}
	if notes%256 == 0 {
		t.Fatalf("%d notes: the last progress call would not be the only one at the end", notes)
	}
	dir := t.TempDir()
	ix, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if err := ix.Rebuild(context.Background(), "c1", DocRecords(sliceSeq(docs[:300])), nil); err != nil {
		t.Fatal(err)
	}
	before := searchKeys(t, ix)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	analysed := false
	err = ix.Rebuild(ctx, "c2", DocRecords(sliceSeq(docs)), func(done int) {
		if done == notes { // every note analysed: what follows is the inbound pass
			analysed = true
			cancel()
		}
	})
	if !analysed {
		t.Fatal("the rebuild never reported every note analysed")
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("rebuild cancelled before its inbound pass: %v, want context.Canceled", err)
	}
	if ix.Commit() != "c1" {
		t.Errorf("commit %q after a failed rebuild, want c1", ix.Commit())
	}
	after := searchKeys(t, ix)
	if len(after) != len(before) {
		t.Fatalf("%d keys after a failed rebuild, %d before", len(after), len(before))
	}
	for i := range after {
		if !bytes.Equal(after[i][0], before[i][0]) || !bytes.Equal(after[i][1], before[i][1]) {
			t.Fatalf("key %d changed by a failed rebuild: %q", i, after[i][0])
		}
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, rebuildTemp+"*")); len(tmp) > 0 {
		t.Errorf("the failed rebuild left %v", tmp)
	}
}
