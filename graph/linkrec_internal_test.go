package graph

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"testing"
	"unsafe"

	"github.com/cockroachdb/pebble/v2"

	"github.com/norn-vault/norn/note"
)

// TestGlink_Compact: a link the graph holds is 32 bytes, and one with nothing
// but a kind, a target and a line keeps nothing beside them; every field of a
// record comes back as written (unknown kinds too) and re-encodes to the same
// bytes.
func TestGlink_Compact(t *testing.T) {
	if s := unsafe.Sizeof(glink{}); s != 32 {
		t.Errorf("glink is %d bytes, want 32", s)
	}
	type want struct{ kind, target, heading, block, etype, why string }
	links := []want{
		{kind: "wikilink", target: "Plain"},
		{kind: "embed", target: "img.png"},
		{kind: "markdown", target: "../b.md", heading: "Part two"},
		{kind: "wikilink", target: "C", block: "^x1"},
		{kind: EdgeKindTyped, target: "D", heading: "H", etype: "supports", why: "because it holds up the other claim"},
		{kind: "future-kind", target: "E"},
		{kind: "", target: "F"},
	}
	r := nodeRec{names: nodeNames{path: "a.md", title: "A"}}
	for i, w := range links {
		l, ok := newGlink(w.kind, w.target, w.heading, w.block, uint64(i+1), w.etype, w.why)
		if !ok {
			t.Fatalf("link %d refused", i)
		}
		r.links = append(r.links, l)
	}
	enc := r.encode(nil)
	got, err := decodeNodeRec("a.md", enc, map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	if again := got.encode(nil); !bytes.Equal(again, enc) {
		t.Error("decoded record encodes differently")
	}
	for i, w := range links {
		l := &got.links[i]
		m := l.extra()
		have := want{kind: l.kindName(), target: l.target, heading: m.heading, block: m.block, etype: m.etype, why: m.why}
		if have != w || int(l.line) != i+1 {
			t.Errorf("link %d = %+v line %d, want %+v line %d", i, have, l.line, w, i+1)
		}
		if plain := (w.kind == "wikilink" || w.kind == "embed") && w.heading == "" && w.block == ""; plain != (l.more == nil) {
			t.Errorf("link %d: more = %v, want it only for links with more than a kind, target and line", i, l.more)
		}
		if l.typed() != (w.kind == EdgeKindTyped) {
			t.Errorf("link %d: typed = %v", i, l.typed())
		}
	}
	if k := got.links[4].asLink().Kind; k != note.LinkWiki {
		t.Errorf("a typed edge resolves as %q, want a wikilink", k)
	}
}

// TestDecodeNodeRec_LineTooLong: a record whose link line does not fit in 31
// bits is refused (errBadRecord), not cut; loading the graph then reports
// ErrCorrupt.
func TestDecodeNodeRec_LineTooLong(t *testing.T) {
	l, _ := newGlink("wikilink", "B", "", "", 7, "", "")
	r := nodeRec{names: nodeNames{path: "a.md", title: "A"}, links: []glink{l}}
	enc := r.encode(nil)
	// The link's line is the uvarint 7 after kind, target, heading and block.
	at := bytes.LastIndex(enc, []byte{0, 0, 7})
	if at < 0 {
		t.Fatal("line not found in the record")
	}
	bad := append(append(bytes.Clone(enc[:at+2]), binary.AppendUvarint(nil, 1<<31)...), enc[at+3:]...)
	if _, err := decodeNodeRec("a.md", bad, nil); !errors.Is(err, errBadRecord) {
		t.Fatalf("decode: %v, want errBadRecord", err)
	}
	ok := append(append(bytes.Clone(enc[:at+2]), binary.AppendUvarint(nil, 1<<31-1)...), enc[at+3:]...)
	if got, err := decodeNodeRec("a.md", ok, nil); err != nil || got.links[0].line != 1<<31-1 {
		t.Fatalf("decode of the largest line: %v", err)
	}

	dir := t.TempDir()
	ix, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	notes := []rawNote{{"a.md", []byte("# A\nsee [[B]]\n")}, {"b.md", []byte("# B\nzebra\n")}}
	if err := ix.Rebuild(context.Background(), "c1", DocRecords(parsedSeq(notes)), nil); err != nil {
		t.Fatal(err)
	}
	if err := ix.db.Set(nodeKey(prefixNode, "a.md"), bad, pebble.Sync); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	if ix, err = Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if err := ix.LoadLinks(); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("LoadLinks: %v, want ErrCorrupt", err)
	}
}
