package graph

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"slices"
)

// field is one of the fields a note is indexed in.
type field uint8

const (
	fieldTitle field = iota
	fieldAliases
	fieldTags
	fieldHeadings
	fieldBody
	fieldPath
	fieldFrontmatter
	// fieldMeta holds the filter terms ("#tag", "key=term"): matched, never scored.
	fieldMeta
	numFields
	// fieldInbound is the inbound field (inbound.go): its postings are other
	// terms' (<term>\x01, <term>\x02), its tf in fieldBody's slot; searcher
	// keeps its parameters in fieldMeta's slot.
	fieldInbound = fieldMeta
)

var errBadBlock = errors.New("bad posting block")

// A posting block holds the postings of one term for a run of documents in docID
// order. Its key is termKey(term, last docID), except the term's last block,
// keyed lastBlock, so the block that holds (or would hold) a doc is always the
// first at or after termKey(term, doc) — a forward seek. Its value is
//
//	uvarint count, uvarint first docID, uvarint len(docs), docs, positions
//
// where docs holds, per posting, uvarint(doc - previous doc) (0 for the first),
// one byte of field mask, a uvarint term frequency per field in the mask, and
// uvarint len(this posting's positions); and positions holds, per posting and per
// field in the mask, tf uvarint position deltas (the first one absolute). Scoring
// reads only the docs part; phrases skip into positions with the lengths.
//
// Rebuild fills blocks to blockFill postings; Update splits a block that grows
// past blockMax and deletes one that empties.
const (
	blockFill = 128
	blockMax  = 256
	// lastBlock keys a term's last block.
	lastBlock = ^uint32(0)
)

// posting is one document's postings for a term, decoded.
type posting struct {
	doc  uint32
	mask uint8
	tf   [numFields]uint32
}

// entry is one posting in encoded form: the docs-part bytes after the doc delta
// (mask, tfs; the positions length is added on encoding) and its positions bytes.
type entry struct {
	doc  uint32
	head []byte // mask byte + tf uvarints
	pos  []byte // encoded position deltas
}

// blockWriter encodes postings into one block value.
type blockWriter struct {
	count int
	first uint32
	last  uint32
	docs  []byte
	pos   []byte
}

func (w *blockWriter) reset() {
	w.count, w.first, w.last = 0, 0, 0
	w.docs, w.pos = w.docs[:0], w.pos[:0]
}

// add appends an encoded posting; docs must come in increasing order.
func (w *blockWriter) add(doc uint32, head, pos []byte) {
	delta := uint32(0)
	if w.count > 0 {
		delta = doc - w.last
	} else {
		w.first = doc
	}
	w.docs = binary.AppendUvarint(w.docs, uint64(delta))
	w.docs = append(w.docs, head...)
	w.docs = binary.AppendUvarint(w.docs, uint64(len(pos)))
	w.pos = append(w.pos, pos...)
	w.last = doc
	w.count++
}

// value returns the block's encoded value, appended to dst.
func (w *blockWriter) value(dst []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(w.count))
	dst = binary.AppendUvarint(dst, uint64(w.first))
	dst = binary.AppendUvarint(dst, uint64(len(w.docs)))
	dst = append(dst, w.docs...)
	return append(dst, w.pos...)
}

// encodeEntry builds head and pos for a posting from its per-field positions.
func encodeEntry(head, pos []byte, perField *[numFields][]uint32) ([]byte, []byte) {
	var mask uint8
	for f := range numFields {
		if len(perField[f]) > 0 {
			mask |= 1 << f
		}
	}
	head = append(head, mask)
	for f := range numFields {
		ps := perField[f]
		if len(ps) == 0 {
			continue
		}
		head = binary.AppendUvarint(head, uint64(len(ps)))
		prev := uint32(0)
		for _, p := range ps {
			pos = binary.AppendUvarint(pos, uint64(p-prev))
			prev = p
		}
	}
	return head, pos
}

// blockReader walks the postings of one block value.
type blockReader struct {
	first    uint32
	docs     []byte // remaining docs part
	pos      []byte // whole positions part
	posOff   int    // offset in pos of the current posting's positions
	posLen   int
	count    int
	n        int // postings read so far
	cur      posting
	headFrom int // offset in the docs part where the current head starts
	docsAll  []byte
	err      error
}

func (r *blockReader) init(v []byte) error {
	count, n := binary.Uvarint(v)
	if n <= 0 {
		return errBadBlock
	}
	v = v[n:]
	first, n := binary.Uvarint(v)
	if n <= 0 || first > uint64(lastBlock) {
		return errBadBlock
	}
	v = v[n:]
	dl, n := binary.Uvarint(v)
	if n <= 0 || uint64(len(v)-n) < dl {
		return errBadBlock
	}
	v = v[n:]
	*r = blockReader{first: uint32(first), docs: v[:dl], docsAll: v[:dl], pos: v[dl:], count: int(count)}
	return nil
}

// next decodes the next posting's doc, mask and tfs into r.cur (positions not
// decoded); it returns false at the end or on damage (r.err set).
func (r *blockReader) next() bool {
	if r.n >= r.count {
		if len(r.docs) != 0 {
			r.err = errBadBlock
		}
		return false
	}
	d := r.docs
	delta, n := uvarint(d)
	if n <= 0 || len(d) <= n {
		r.err = errBadBlock
		return false
	}
	r.headFrom = len(r.docsAll) - len(d) + n
	d = d[n:]
	if r.n == 0 {
		r.cur.doc = r.first + uint32(delta)
	} else {
		r.cur.doc += uint32(delta)
	}
	mask := d[0]
	d = d[1:]
	r.cur.mask = mask
	r.cur.tf = [numFields]uint32{}
	for m := mask; m != 0; m &= m - 1 {
		f := bits.TrailingZeros8(m)
		tf, n := uvarint(d)
		if n <= 0 {
			r.err = errBadBlock
			return false
		}
		r.cur.tf[f] = uint32(tf)
		d = d[n:]
	}
	pl, n := uvarint(d)
	if n <= 0 {
		r.err = errBadBlock
		return false
	}
	d = d[n:]
	r.posOff += r.posLen
	if pl > uint64(len(r.pos)-r.posOff) { // compared unsigned: a huge length is no negative int
		r.err = errBadBlock
		return false
	}
	r.posLen = int(pl)
	r.docs = d
	r.n++
	return true
}

// uvarint is binary.Uvarint with the one-byte case inlined.
func uvarint(b []byte) (uint64, int) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1
	}
	return binary.Uvarint(b)
}

// head returns the current posting's encoded head (mask and tfs).
func (r *blockReader) head() []byte {
	end := len(r.docsAll) - len(r.docs)
	// The head is followed by the positions-length uvarint: strip it.
	h := r.docsAll[r.headFrom:end]
	return h[:len(h)-uvarintLen(uint64(r.posLen))]
}

// rawPos returns the current posting's encoded positions.
func (r *blockReader) rawPos() []byte { return r.pos[r.posOff : r.posOff+r.posLen] }

// positions decodes the current posting's positions, appended to dst, in field
// order of the mask, r.cur.tf[f] of them per field.
func (r *blockReader) positions(dst []uint32) ([]uint32, error) {
	p := r.rawPos()
	for f := range numFields {
		prev := uint32(0)
		for range r.cur.tf[f] {
			d, n := binary.Uvarint(p)
			if n <= 0 {
				return dst, errBadBlock
			}
			p = p[n:]
			prev += uint32(d)
			dst = append(dst, prev)
		}
	}
	if len(p) != 0 {
		return dst, errBadBlock
	}
	return dst, nil
}

// fieldPositions returns the positions of field f from ps, the output of positions.
func fieldPositions(ps []uint32, tf *[numFields]uint32, f field) []uint32 {
	off := uint32(0)
	for g := range f {
		off += tf[g]
	}
	return ps[off : off+tf[f]]
}

func uvarintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

// decodeBlock returns all entries of a block (for rewriting it).
func decodeBlock(v []byte) ([]entry, error) {
	return appendBlock(nil, v)
}

// appendBlock appends all entries of a block to out.
func appendBlock(out []entry, v []byte) ([]entry, error) {
	var r blockReader
	if err := r.init(v); err != nil {
		return nil, err
	}
	n0 := len(out)
	out = slices.Grow(out, min(r.count, len(v)))
	for r.next() {
		out = append(out, entry{doc: r.cur.doc, head: r.head(), pos: r.rawPos()})
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(out)-n0 != r.count {
		return nil, fmt.Errorf("%w: %d of %d postings", errBadBlock, len(out)-n0, r.count)
	}
	return out, nil
}
