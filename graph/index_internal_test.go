package graph

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/cockroachdb/pebble/v2"
)

// TestOpen_FormatVersion writes another FormatVersion into an index and checks
// that Open reports ErrFormat.
func TestOpen_FormatVersion(t *testing.T) {
	dir := t.TempDir()
	ix, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	old := binary.AppendUvarint(nil, FormatVersion+1)
	old = append(old, ix.an.fingerprint()...)
	if err := ix.db.Set([]byte(keyFormat), old, pebble.Sync); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	if _, err := Open(dir, Options{}); !errors.Is(err, ErrFormat) {
		t.Fatalf("open: %v, want ErrFormat", err)
	}
}

// TestOpen_DamagedLinkRecord: the link graph is read when first needed, so a
// damaged node record leaves search working and fails every link query and
// Update (which changes nothing then) with ErrCorrupt; a rebuild repairs it.
func TestOpen_DamagedLinkRecord(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ix, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	notes := []rawNote{{"a.md", []byte("# A\nsee [[b]]\n")}, {"b.md", []byte("# B\nzebra stripes\n")}}
	if err := ix.Rebuild(ctx, "c1", DocRecords(parsedSeq(notes)), nil); err != nil {
		t.Fatal(err)
	}
	if err := ix.db.Set(nodeKey(prefixNode, "a.md"), bytes.Repeat([]byte{0xff}, 11), pebble.Sync); err != nil {
		t.Fatal(err)
	}
	ix.Close()

	ix, err = Open(dir, Options{})
	if err != nil {
		t.Fatalf("open with a damaged link record: %v", err)
	}
	defer ix.Close()
	res, err := ix.Search(ctx, "zebra", SearchOptions{})
	if err != nil || res.Total != 1 || res.Hits[0].Path != "b.md" {
		t.Fatalf("search: %+v, %v", res, err)
	}
	if err := ix.LoadLinks(); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("LoadLinks: %v, want ErrCorrupt", err)
	}
	if _, err := ix.Links("b.md", 10); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Links: %v, want ErrCorrupt", err)
	}
	edit := []rawNote{{"b.md", []byte("# B\nzebra stripes and okapi\n")}}
	var put []Doc
	for d := range parsedSeq(edit) {
		put = append(put, d)
	}
	// Update needs the graph (the inbound fields of the notes a change links to
	// follow it): it refuses with ErrCorrupt, writes nothing, and the caller
	// rebuilds.
	if err := ix.Update(ctx, DocBatch("c2", put, nil)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Update: %v, want ErrCorrupt", err)
	}
	if res, err := ix.Search(ctx, "okapi", SearchOptions{}); err != nil || res.Total != 0 || ix.Commit() != "c1" {
		t.Fatalf("after the refused Update: %+v, %v, commit %s", res, err, ix.Commit())
	}
	if _, err := ix.Links("b.md", 10); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Links after Update: %v, want ErrCorrupt", err)
	}

	if err := ix.Rebuild(ctx, "c1", DocRecords(parsedSeq(notes)), nil); err != nil {
		t.Fatal(err)
	}
	l, err := ix.Links("b.md", 10)
	if err != nil || len(l.Backlinks) != 1 || l.Backlinks[0].From != "a.md" {
		t.Fatalf("links after rebuild: %+v, %v", l, err)
	}
}
