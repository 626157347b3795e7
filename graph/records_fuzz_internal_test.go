package graph

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/norn-vault/norn/note"
)

// The index's records are read back from pebble, where a damaged file or a bug
// can leave any bytes. Decoding them must never panic, only fail with an error the
// searcher turns into ErrCorrupt (and so into the labelled fallback and a rebuild);
// what decodes must encode back to the same bytes where the format has one
// encoding.

// fuzzNote is a note with every kind of thing a record carries.
const fuzzNote = "---\ntitle: Fuzz\naliases: [fz, \"f z\"]\ntags: [a, b/c]\ntype: concept\nedges:\n  - to: \"[[Other#Part]]\"\n    type: supports\n    why: it carries the same idea further along\n---\n# Fuzz\n\nSee [[other|the other]] and ![[pic.png]] and [x](sub/x.md#h).\n\n## Part ^blk\n\ntext #tag\n"

func fuzzParsedNote(t testing.TB) *note.Note {
	n, err := note.Parse("f/fuzz.md", []byte(fuzzNote))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// FuzzDecodeDocRecord: any bytes decode without panic; a record that decodes
// re-encodes to the same bytes.
func FuzzDecodeDocRecord(f *testing.F) {
	r := docRecord{path: "f/fuzz.md", revision: "0123456789abcdef0123456789abcdef01234567", title: "Fuzz"}
	for i := range r.lens {
		r.lens[i] = uint32(i * 300)
	}
	f.Add(r.encode())
	r.private = true
	f.Add(r.encode())
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := decodeDocRecord(b)
		if err != nil {
			return
		}
		if again, err := decodeDocRecord(got.encode()); err != nil || again != got {
			t.Fatalf("re-encoded %+v: %+v, %v", got, again, err)
		}
	})
}

// FuzzDecodeStats: as FuzzDecodeDocRecord, for the collection statistics.
func FuzzDecodeStats(f *testing.F) {
	s := stats{next: 70, docs: 65}
	s.total[0] = 1 << 40
	f.Add(s.encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := decodeStats(b)
		if err != nil {
			return
		}
		if again, err := decodeStats(got.encode()); err != nil || again != got {
			t.Fatalf("re-encoded %+v: %+v, %v", got, again, err)
		}
	})
}

// FuzzDecodeStoredText: any bytes decode without panic; what decodes re-encodes
// to a record that decodes to the same text.
func FuzzDecodeStoredText(f *testing.F) {
	n := fuzzParsedNote(f)
	f.Add(storedTextOf(n, []uint32{0, 3, 9, 12}).encode(nil))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		var got, again storedText
		if err := decodeStoredText(b, &got); err != nil {
			return
		}
		err := decodeStoredText(got.encode(nil), &again)
		if err != nil || !reflect.DeepEqual(normText(again), normText(got)) {
			t.Fatalf("re-encoded %+v: %+v, %v", got, again, err)
		}
	})
}

// normText makes empty and nil slices compare equal.
func normText(t storedText) storedText {
	if len(t.lineWords) == 0 {
		t.lineWords = nil
	}
	if len(t.headings) == 0 {
		t.headings = nil
	}
	if len(t.raw) == 0 {
		t.raw = nil
	}
	return t
}

// FuzzDecodeNodeRec: a link-graph record decodes without panic, with and without
// interning; what decodes re-encodes to the same record.
func FuzzDecodeNodeRec(f *testing.F) {
	r := nodeRecOf(fuzzParsedNote(f), false)
	f.Add(r.encode(nil))
	r.unparsed = true
	f.Add(r.encode(nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := decodeNodeRec("f/fuzz.md", b, nil)
		interned, ierr := decodeNodeRec("f/fuzz.md", b, map[string]string{})
		if (err == nil) != (ierr == nil) {
			t.Fatalf("interning changed the verdict: %v / %v", err, ierr)
		}
		if err != nil {
			return
		}
		enc := got.encode(nil)
		if !bytes.Equal(enc, interned.encode(nil)) {
			t.Fatal("interned record encodes differently")
		}
		again, err := decodeNodeRec("f/fuzz.md", enc, nil)
		if err != nil || !bytes.Equal(again.encode(nil), enc) {
			t.Fatalf("re-encoded record: %v", err)
		}
	})
}

// FuzzDecodeForward: a forward list decodes without panic or fails.
func FuzzDecodeForward(f *testing.F) {
	b := appendString(nil, "term")
	b = append(b, 1, 2, 3, 4)
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		ts, err := decodeForward(b)
		if err == nil && len(ts) > len(b)/5 {
			t.Fatalf("%d terms from %d bytes", len(ts), len(b))
		}
	})
}

// FuzzDecodeBlock: a posting block decodes without panic; one that decodes
// encodes back to the same bytes, and its entries' positions read without panic.
func FuzzDecodeBlock(f *testing.F) {
	var w blockWriter
	var perField [numFields][]uint32
	perField[fieldTitle] = []uint32{0}
	perField[fieldBody] = []uint32{2, 7, 30}
	head, pos := encodeEntry(nil, nil, &perField)
	w.add(3, head, pos)
	w.add(9, head, pos)
	w.add(1000, head, pos)
	f.Add(w.value(nil))
	f.Add([]byte{5, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		es, err := decodeBlock(b)
		if err != nil {
			return
		}
		var w blockWriter
		for i, e := range es {
			if i > 0 && e.doc <= es[i-1].doc {
				return // the writer needs ascending docs; such a block cannot be rewritten as it is
			}
			w.add(e.doc, e.head, e.pos)
		}
		if again, err := decodeBlock(w.value(nil)); err != nil || len(again) != len(es) {
			t.Fatalf("re-encoded block: %d of %d entries, %v", len(again), len(es), err)
		}
	})
}

// FuzzRowKey: a Row that passes its checks gets a key under its own table's
// prefix, which no other valid table's keys share, and Rows' split of that key
// gives the row's key back.
func FuzzRowKey(f *testing.F) {
	f.Add("claims", []byte("subject/property"), "claims.x", []byte{0})
	f.Add("a", []byte{0xff, 0xff}, "a-b", []byte("k"))
	f.Add("", []byte{}, "t\x00u", []byte("k"))
	f.Fuzz(func(t *testing.T, table string, key []byte, other string, okey []byte) {
		r := Row{Table: table, Key: key}
		if r.check() != nil {
			return
		}
		k := rowKey(nil, table, key)
		lo := rowKey(nil, table, nil)
		if !bytes.HasPrefix(k, lo) || !bytes.Equal(k[len(lo):], key) {
			t.Fatalf("key %q of %s/%q", k, table, key)
		}
		if hi := upperBound(lo); bytes.Compare(k, hi) >= 0 {
			t.Fatalf("key %q at or past its table's bound %q", k, hi)
		}
		o := Row{Table: other, Key: okey}
		if o.check() != nil || other == table {
			return
		}
		if bytes.HasPrefix(rowKey(nil, other, okey), lo) {
			t.Fatalf("a row of %q under table %q's prefix", other, table)
		}
	})
}
