package graph

import (
	"context"
	"errors"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/norn-vault/norn/note"
)

// TestUpdate_InboundSkipsUnchangedTargets: editing a note without touching its
// linking line leaves its target's inbound field alone — catch-up does not even
// read the target's other linkers' context records (one is made unreadable here,
// so reading it fails the Update) — and changing the linking line works the
// field out again (and so meets the unreadable record).
func TestUpdate_InboundSkipsUnchangedTargets(t *testing.T) {
	ctx := context.Background()
	doc := func(p note.Path, text string) Doc {
		n, err := note.Parse(p, []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		return Doc{Path: p, Revision: "r-" + text, Note: n}
	}
	hub := "# Hub\n\n- [[target]] the hub's line\n"
	ix, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	docs := []Doc{doc("target.md", "# Target\n\nIts own words.\n"), doc("other.md", "# Other\n\nAbout [[target]] in other words.\n"), doc("hub.md", hub)}
	if err := ix.Update(ctx, DocBatch("c1", docs, nil)); err != nil {
		t.Fatal(err)
	}
	if err := ix.db.Set(nodeKey(prefixContext, "other.md"), []byte{0xff, 0xff, 0xff}, pebble.Sync); err != nil {
		t.Fatal(err)
	}
	if err := ix.Update(ctx, DocBatch("c2", []Doc{doc("hub.md", hub+"\nA line after the links.\n")}, nil)); err != nil {
		t.Fatalf("an edit that keeps the linking line: %v (the target's field was worked out again)", err)
	}
	changed := "# Hub\n\n- [[target]] the hub's new line\n"
	if err := ix.Update(ctx, DocBatch("c3", []Doc{doc("hub.md", changed)}, nil)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("an edit that changes the linking line: %v, want ErrCorrupt from the unreadable record it must read", err)
	}
}
