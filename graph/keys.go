package graph

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/norn-vault/norn/note"
)

// FormatVersion is the version of the search tables' on-disk layout. Open refuses an
// index written with another version (ErrFormat); the caller rebuilds it.
//
// Changelog:
//
//	1  first layout: s/m/{format,commit,stats}, s/d/<doc> records, s/f/<doc> forward
//	   term lists (with posting hashes), s/x/<doc> stored text (with a line table),
//	   s/t/<term>\x00<last doc> posting blocks (the term's last keyed 0xffffffff).
//	2  the link graph: g/n/<path> node records, g/a/<path> attachments.
//	3  a flags uvarint (bit 0: private) ends the s/d/<doc> record; s/m/format also
//	   records the private folders the indexer judged Doc.Private under.
//	4  derived tables: r/<table>\x00<key> rows (Row records), written in the batch
//	   that records their commit and rebuilt with the rest.
//	5  links, tags and headings inside Obsidian's %% comments are no longer recorded
//	   (note.Parse skips them): an index of version 4 holds them, so it is rebuilt.
//	6  the inbound field: s/i/<doc> inbound records (the lines that link to the
//	   doc, with their sources, and the field's terms with their postings'
//	   hashes); postings of inbound terms <term>\x01 (lines from public notes)
//	   and <term>\x02 (from private notes); the s/d/ record and s/m/stats carry
//	   the two inbound lengths.
//	7  the ledger's derived tables (r/<table> rows): the archive catalog (r/archive,
//	   one row per note archived and not back at HEAD), registered summaries
//	   (r/synthesis…) and claims (r/claims.key, claims.source, claims.id); files
//	   under .norn/ are no longer held as attachments. An index of version 6 lacks
//	   them.
//
// The format record's privacy part also names the private tags when there are
// any (";privatetags=…" after the folders): an index without private tags keeps
// its record, one judged under other tags is rebuilt (no version change).
const FormatVersion = 7

// Key layout. Everything the search index writes lives under "s/" so the link graph
// ("g/", linkrec.go) and the derived tables ("r/", records.go) can share the
// database; a Rebuild replaces every key from "g/" to the end of "s/".
//
//	s/m/format            uvarint FormatVersion, analyzer fingerprint, private folders (and tags)
//	s/m/commit            the commit the index reflects
//	s/m/stats             uvarint next doc id, live docs, then per field the total length
//	s/d/<doc BE32>        doc record: path, revision, title, per-field lengths, flags
//	s/f/<doc BE32>        forward list: the doc's terms, sorted, with their postings' hashes
//	s/i/<doc BE32>        inbound record: the lines linking to the doc, its inbound terms (inbound.go)
//	s/x/<doc BE32>        stored text: headings, body start, raw note bytes
//	s/t/<term>\x00<doc>   posting block of term ending at doc (see postings.go)
const (
	prefixSearch = "s/"
	keyFormat    = "s/m/format"
	keyCommit    = "s/m/commit"
	keyStats     = "s/m/stats"
	prefixDoc    = "s/d/"
	prefixFwd    = "s/f/"
	prefixIn     = "s/i/"
	prefixText   = "s/x/"
	prefixTerm   = "s/t/"
)

var errBadRecord = errors.New("bad record")

// searchEnd is the first key after every search key.
var searchEnd = []byte("s0")

func docKey(prefix string, doc uint32) []byte {
	k := make([]byte, len(prefix)+4)
	copy(k, prefix)
	binary.BigEndian.PutUint32(k[len(prefix):], doc)
	return k
}

func termKey(dst []byte, term string, first uint32) []byte {
	dst = append(dst, prefixTerm...)
	dst = append(dst, term...)
	dst = append(dst, 0)
	return binary.BigEndian.AppendUint32(dst, first)
}

// parseTermKey splits a posting block key into its term and key doc (the block's
// last doc, or lastBlock).
func parseTermKey(k []byte) (term []byte, first uint32, ok bool) {
	if len(k) < len(prefixTerm)+5 || k[len(k)-5] != 0 {
		return nil, 0, false
	}
	return k[len(prefixTerm) : len(k)-5], binary.BigEndian.Uint32(k[len(k)-4:]), true
}

// termRange returns the key bounds of term's blocks; with prefix, of the blocks of
// every term starting with term.
func termRange(term string, prefix bool) (lo, hi []byte) {
	lo = append([]byte(prefixTerm), term...)
	if !prefix {
		lo = append(lo, 0)
		hi = append(append([]byte(nil), lo[:len(lo)-1]...), 1)
		return lo, hi
	}
	hi = append([]byte(nil), lo...)
	// Terms are ASCII or UTF-8 without 0xff bytes: incrementing the last byte
	// bounds the range.
	hi[len(hi)-1]++
	return lo, hi
}

// docRecord is a doc's entry in s/d/.
type docRecord struct {
	path     note.Path
	revision string
	title    string
	lens     [numFields]uint32
	// in are the inbound field's lengths: of the lines from public notes, and
	// of those from private notes (see inbound.go).
	in      [2]uint32
	private bool // Doc.Private
}

// Doc record flags.
const flagPrivate = 1

func (r *docRecord) encode() []byte {
	b := make([]byte, 0, 16+len(r.path)+len(r.revision)+len(r.title)+4*int(numFields))
	b = appendString(b, string(r.path))
	b = appendString(b, r.revision)
	b = appendString(b, r.title)
	for _, l := range r.lens {
		b = binary.AppendUvarint(b, uint64(l))
	}
	for _, l := range r.in {
		b = binary.AppendUvarint(b, uint64(l))
	}
	flags := uint64(0)
	if r.private {
		flags |= flagPrivate
	}
	return binary.AppendUvarint(b, flags)
}

func decodeDocRecord(b []byte) (docRecord, error) {
	var r docRecord
	d := decoder{b: b}
	r.path = note.Path(d.string())
	r.revision = d.string()
	r.title = d.string()
	for f := range r.lens {
		r.lens[f] = uint32(d.uvarint())
	}
	for k := range r.in {
		r.in[k] = uint32(d.uvarint())
	}
	flags := d.uvarint()
	r.private = flags&flagPrivate != 0
	if d.err != nil || len(d.b) != 0 || flags&^flagPrivate != 0 {
		return r, fmt.Errorf("doc record: %w", errBadRecord)
	}
	return r, nil
}

// stats are the collection statistics in s/m/stats.
type stats struct {
	next  uint32 // next doc id
	docs  uint32 // live docs
	total [numFields]uint64
	in    [2]uint64 // inbound lengths, public and private lines
}

func (s *stats) encode() []byte {
	b := binary.AppendUvarint(nil, uint64(s.next))
	b = binary.AppendUvarint(b, uint64(s.docs))
	for _, t := range s.total {
		b = binary.AppendUvarint(b, t)
	}
	for _, t := range s.in {
		b = binary.AppendUvarint(b, t)
	}
	return b
}

func decodeStats(b []byte) (stats, error) {
	var s stats
	d := decoder{b: b}
	s.next = uint32(d.uvarint())
	s.docs = uint32(d.uvarint())
	for f := range s.total {
		s.total[f] = d.uvarint()
	}
	for k := range s.in {
		s.in[k] = d.uvarint()
	}
	if d.err != nil || len(d.b) != 0 {
		return s, fmt.Errorf("stats: %w", errBadRecord)
	}
	return s, nil
}

// storedText is a doc's entry in s/x/: what snippets and sections need.
type storedText struct {
	bodyStart int
	// bodyLine is the 1-based line of raw where the body starts; lineWords holds,
	// per body line, the body position of its first word, so a posting's
	// position maps to its line without tokenizing the note again.
	bodyLine  int
	lineWords []uint32
	headings  []storedHeading
	raw       []byte
}

// storedHeading is one heading of a stored text. Its text is a string where
// the record is built (update) and bytes in the record's buffer where it is
// decoded (textb: no copy per heading for a search that shows one).
type storedHeading struct {
	level, line, start int
	text               string
	textb              []byte
}

func (t *storedText) encode(dst []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(t.bodyStart))
	dst = binary.AppendUvarint(dst, uint64(t.bodyLine))
	dst = binary.AppendUvarint(dst, uint64(len(t.lineWords)))
	prev := uint32(0)
	for _, w := range t.lineWords {
		dst = binary.AppendUvarint(dst, uint64(w-prev))
		prev = w
	}
	dst = binary.AppendUvarint(dst, uint64(len(t.headings)))
	for _, h := range t.headings {
		dst = binary.AppendUvarint(dst, uint64(h.level))
		dst = binary.AppendUvarint(dst, uint64(h.line))
		dst = binary.AppendUvarint(dst, uint64(h.start))
		if h.textb != nil {
			dst = binary.AppendUvarint(dst, uint64(len(h.textb)))
			dst = append(dst, h.textb...)
		} else {
			dst = appendString(dst, h.text)
		}
	}
	return append(dst, t.raw...)
}

// decodeStoredText decodes a stored text record into t, reusing t's slices;
// t's raw and heading texts point into b.
func decodeStoredText(b []byte, t *storedText) error {
	d := decoder{b: b}
	t.bodyStart = int(d.uvarint())
	t.bodyLine = int(d.uvarint())
	nl := d.uvarint()
	if nl > uint64(len(b)) {
		return fmt.Errorf("stored text: %w", errBadRecord)
	}
	t.lineWords = slices.Grow(t.lineWords[:0], int(nl))
	prev := uint32(0)
	for range nl {
		prev += uint32(d.uvarint())
		t.lineWords = append(t.lineWords, prev)
	}
	n := d.uvarint()
	if n > uint64(len(b)) {
		return fmt.Errorf("stored text: %w", errBadRecord)
	}
	t.headings = slices.Grow(t.headings[:0], int(n))
	for range n {
		var h storedHeading
		h.level = int(d.uvarint())
		h.line = int(d.uvarint())
		h.start = int(d.uvarint())
		h.textb = d.bytes()
		t.headings = append(t.headings, h)
	}
	if d.err != nil || t.bodyStart > len(d.b) {
		return fmt.Errorf("stored text: %w", errBadRecord)
	}
	t.raw = d.b
	return nil
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// decoder reads uvarints and strings, remembering the first error.
type decoder struct {
	b      []byte
	err    error
	intern map[string]string // for shared; nil: no interning
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errBadRecord
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) string() string {
	n := d.uvarint()
	if d.err != nil {
		return ""
	}
	if n > uint64(len(d.b)) {
		d.err = errBadRecord
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}
