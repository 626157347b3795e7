package graph

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/norn-vault/norn/note"
)

// TestTermWriter_Split puts notes one Update at a time until a term's postings
// outgrow one block, then removes some, and checks the blocks stay within
// bounds, in order, and hold every posting exactly once.
func TestTermWriter_Split(t *testing.T) {
	ix, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ctx := context.Background()
	const n = 3*blockMax + 17
	for i := range n {
		p := note.Path(fmt.Sprintf("n%04d.md", i))
		nt, err := note.Parse(p, []byte("common words here\n"))
		if err != nil {
			t.Fatal(err)
		}
		if err := ix.Update(ctx, DocBatch("c", []Doc{{Path: p, Note: nt}}, nil)); err != nil {
			t.Fatal(err)
		}
	}
	var rm []note.Path
	for i := 0; i < n; i += 3 {
		rm = append(rm, note.Path(fmt.Sprintf("n%04d.md", i)))
	}
	if err := ix.Update(ctx, DocBatch("c2", nil, rm)); err != nil {
		t.Fatal(err)
	}
	lo, hi := termRange("common", false)
	it, _ := ix.db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	defer it.Close()
	blocks, total, last := 0, 0, int64(-1)
	for ok := it.First(); ok; ok = it.Next() {
		_, key, _ := parseTermKey(it.Key())
		es, err := decodeBlock(it.Value())
		if err != nil {
			t.Fatal(err)
		}
		if len(es) == 0 || len(es) > blockMax || es[len(es)-1].doc > key || int64(es[0].doc) <= last {
			t.Fatalf("block keyed %d: %d postings from %d to %d after %d", key, len(es), es[0].doc, es[len(es)-1].doc, last)
		}
		for _, e := range es {
			if int64(e.doc) <= last {
				t.Fatalf("doc %d after %d", e.doc, last)
			}
			last = int64(e.doc)
		}
		blocks++
		total += len(es)
	}
	if want := n - len(rm); total != want || blocks < 3 {
		t.Errorf("%d postings in %d blocks, want %d in ≥ 3", total, blocks, want)
	}
	if res, _ := ix.Search(ctx, "common", SearchOptions{}); res.Total != n-len(rm) {
		t.Errorf("search total %d", res.Total)
	}
}

func TestBlock_RoundTrip(t *testing.T) {
	var pf [numFields][]uint32
	pf[fieldTitle] = []uint32{0}
	pf[fieldBody] = []uint32{3, 9, 200}
	pf[fieldMeta] = []uint32{1 << 20}
	head, pos := encodeEntry(nil, nil, &pf)
	var w blockWriter
	w.add(7, head, pos)
	w.add(300, head, pos)
	var r blockReader
	if err := r.init(w.value(nil)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []uint32{7, 300} {
		if !r.next() || r.cur.doc != want || r.cur.tf[fieldBody] != 3 || r.cur.tf[fieldTitle] != 1 {
			t.Fatalf("posting %+v, want doc %d", r.cur, want)
		}
		ps, err := r.positions(nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := fieldPositions(ps, &r.cur.tf, fieldBody); fmt.Sprint(got) != "[3 9 200]" {
			t.Errorf("body positions %v", got)
		}
		if got := fieldPositions(ps, &r.cur.tf, fieldMeta); fmt.Sprint(got) != "[1048576]" {
			t.Errorf("meta positions %v", got)
		}
	}
	if r.next() || r.err != nil {
		t.Errorf("after the end: %v", r.err)
	}
	// Truncated values are reported, never panic.
	v := w.value(nil)
	for i := range len(v) {
		var r blockReader
		if r.init(v[:i]) != nil {
			continue
		}
		for r.next() {
		}
	}
}

// TestTermWriter_Splice: splicing changes into a block gives, byte for byte,
// the block that decoding, merging and re-encoding gives, for random blocks and
// random puts, replacements and removals; it declines when the block would come
// out empty or too large to keep whole.
func TestTermWriter_Splice(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	posting := func() (head, pos []byte) {
		var pf [numFields][]uint32
		for f := range numFields {
			if rng.IntN(3) == 0 {
				continue
			}
			p := uint32(rng.IntN(50))
			for range 1 + rng.IntN(4) {
				p += uint32(1 + rng.IntN(300))
				pf[f] = append(pf[f], p)
			}
		}
		if len(pf[fieldBody]) == 0 {
			pf[fieldBody] = []uint32{uint32(rng.IntN(1 << 20))}
		}
		return encodeEntry(nil, nil, &pf)
	}
	var w, slow termWriter
	declined := 0
	for round := range 3000 {
		size := []int{1, 2, 5, blockFill, blockMax - 1, blockMax}[rng.IntN(6)]
		var bw blockWriter
		doc := uint32(rng.IntN(1000))
		docs := map[uint32]bool{}
		for range size {
			doc += uint32(1 + rng.IntN(1+rng.IntN(3000)))
			h, p := posting()
			bw.add(doc, h, p)
			docs[doc] = true
		}
		v := bw.value(nil)
		var chs []change
		seen := map[uint32]bool{}
		for range rng.IntN(6) {
			d := uint32(rng.IntN(int(doc) + 50))
			if rng.IntN(2) == 0 && len(docs) > 0 { // an existing doc
				for k := range docs {
					d = k
					break
				}
			}
			if seen[d] {
				continue
			}
			seen[d] = true
			c := change{doc: d, put: rng.IntN(3) > 0}
			if c.put {
				c.head, c.pos = posting()
			}
			chs = append(chs, c)
		}
		slices.SortFunc(chs, func(a, b change) int { return cmp.Compare(a.doc, b.doc) })
		old, err := decodeBlock(v)
		if err != nil {
			t.Fatal(err)
		}
		merged := mergeEntries(nil, old, chs)
		got, ok, err := w.splice(v, chs)
		if err != nil {
			t.Fatal(err)
		}
		if len(merged) == 0 || len(merged) > blockMax {
			if ok {
				t.Fatalf("round %d: spliced a block of %d postings", round, len(merged))
			}
			declined++
			continue
		}
		if !ok {
			t.Fatalf("round %d: declined a block of %d postings", round, len(merged))
		}
		slow.bw.reset()
		for _, e := range merged {
			slow.bw.add(e.doc, e.head, e.pos)
		}
		if want := slow.bw.value(nil); !bytes.Equal(got, want) {
			t.Fatalf("round %d (%d postings, %d changes): spliced block differs", round, size, len(chs))
		}
	}
	if declined == 0 {
		t.Error("never declined")
	}
	// A damaged block is an error.
	if _, _, err := w.splice([]byte{5, 1, 200}, nil); err == nil {
		t.Error("spliced a damaged block")
	}
}
