package repo

import (
	"bytes"
	"slices"
	"testing"
	"time"
)

// FuzzDecodeTree: the tree decoder never panics, treeEntry finds what it decodes,
// and what it decodes encodes back to the same bytes.
func FuzzDecodeTree(f *testing.F) {
	n := &node{mode: modeDir, kids: []*node{
		{name: "a.md", mode: modeFile, id: objectID("blob", []byte("a"))},
		{name: "sub", mode: modeDir, id: objectID("tree", nil)},
	}}
	var buf bytes.Buffer
	f.Add(append([]byte(nil), encodeTree(n, &buf)...))
	f.Add([]byte("100644 x\x00short"))
	f.Add([]byte("notoctal a\x00" + string(make([]byte, 20))))
	f.Fuzz(func(t *testing.T, data []byte) {
		kids, err := decodeTree(data)
		if err != nil {
			treeEntry(data, "a.md", false) // must not panic either
			return
		}
		// treeEntry, which scans without decoding, finds what decodeTree lists: the
		// first entry of each name and kind.
		for i, k := range kids {
			first := slices.IndexFunc(kids, func(o *node) bool { return o.name == k.name && o.isDir() == k.isDir() })
			if id, err := treeEntry(data, k.name, k.isDir()); err != nil || (first == i && id != k.id) {
				t.Fatalf("treeEntry(%q, dir %v) = %v, %v; decodeTree has %v", k.name, k.isDir(), id, err, k.id)
			}
		}
		if id, err := treeEntry(data, "\x00none", false); err != nil || !id.isZero() {
			t.Fatalf("treeEntry of a name no tree holds: %v, %v", id, err)
		}
		var b bytes.Buffer
		if got := encodeTree(&node{mode: modeDir, kids: kids}, &b); !bytes.Equal(got, data) {
			// Modes with leading zeros or names decoded differently do not round-trip;
			// that is fine as long as decoding is stable.
			again, err := decodeTree(got)
			if err != nil || len(again) != len(kids) {
				t.Fatalf("re-decoding an encoded tree: %v (%d vs %d entries)", err, len(again), len(kids))
			}
		}
	})
}

// FuzzDecodeCommit: the commit decoder and the trailer parser never panic, and a
// commit Norn encodes decodes to the same fields.
func FuzzDecodeCommit(f *testing.F) {
	c := &commitObj{tree: objectID("tree", nil), author: Author{Name: "a b", Email: "a@x"}, committer: Author{Name: "norn", Email: "n@x"},
		when: time.Unix(1700000000, 0).UTC(), message: buildMessage("write x.md", [][2]string{{trailerOp, "write"}})}
	f.Add(encodeCommit(c, c.when), "write x.md")
	f.Add([]byte("tree zz\n\nmsg"), "subject")
	f.Add([]byte("tree "+objectID("tree", nil).String()+"\nauthor <> x\n\nm\n\nNorn-Op: a: b\n"), "s")
	f.Fuzz(func(t *testing.T, data []byte, subject string) {
		if got, err := decodeCommit(data); err == nil {
			toCommit(objectID("commit", data), got)
		}
		parseTrailers(string(data))
		a := Author{Name: "agent", Email: "agent@x"}
		if validIdentity(a) != nil {
			t.Fatal("a plain identity is invalid")
		}
		msg := buildMessage(subject, [][2]string{{trailerOp, "write"}})
		enc := encodeCommit(&commitObj{tree: c.tree, author: a, committer: a, when: c.when, message: msg}, c.when)
		got, err := decodeCommit(enc)
		if err != nil {
			t.Fatalf("decode an encoded commit: %v", err)
		}
		if got.message != msg || got.author != a || !got.when.Equal(c.when) {
			t.Fatalf("round trip: %+v", got)
		}
	})
}
