package graph

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"unicode"

	"github.com/cockroachdb/pebble/v2"

	"github.com/norn-vault/norn/note"
)

// The inbound field: what other notes say where they link to a note. For every
// resolved link to a note from another note — wikilink, embed, Markdown link —
// the line around the link (its display text included; note.LineAt, at most 300
// bytes), and for every typed edge to it the edge's why. It is a BM25F field like
// the others (Weights.Inbound), but its text belongs to the linking notes, so it
// is kept apart from the note's own postings:
//
//   - its postings are those of the inbound terms <term>\x01 (the public lines:
//     links from public notes as they resolve without the private notes, the
//     rule of linkview.go) and <term>\x02 (the lines only a caller who sees
//     private notes sees: links from private notes, and public links that
//     resolve to the note only with the private notes shown), keyed and blocked
//     like any term's, so catching up rewrites only the blocks whose postings
//     change;
//   - s/i/<doc> holds the lines kept (with their sources) and the inbound terms
//     with their postings' hashes (as a forward list does);
//   - the doc record and the stats carry the field's two lengths.
//
// A search that hides private notes reads only the \x01 postings and ranks with
// the public lengths, so it answers as an index without the private notes would
// (a private note's name cannot move a public line); a full search reads both
// and adds the lengths.
//
// A note keeps at most maxInboundLines distinct lines from public notes and as
// many from private notes: the lines that add the most words not yet kept.
const (
	inboundPublic  = '\x01'
	inboundPrivate = '\x02'
	// maxInboundLines caps the lines of each class (public, private) a note's
	// inbound field keeps.
	maxInboundLines = 32
	// maxInboundStems bounds the words a pooled search scratch's stemmer keeps
	// for inboundLine between searches.
	maxInboundStems = 1 << 14
	// hubLinks is how many links make a note's context record worth keeping
	// decoded during a rebuild.
	hubLinks = 16
)

// inboundTerm returns the inbound term of a word, for a line from a private note
// or a public one.
func inboundTerm(term string, private bool) string {
	if private {
		return term + string(rune(inboundPrivate))
	}
	return term + string(rune(inboundPublic))
}

// splitTerm returns the word of an indexed term and its class: 0 for the note's
// own postings, inboundPublic or inboundPrivate for an inbound term.
func splitTerm(t []byte) ([]byte, byte) {
	if n := len(t); n > 0 && (t[n-1] == inboundPublic || t[n-1] == inboundPrivate) {
		return t[:n-1], t[n-1]
	}
	return t, 0
}

// inLine is one line that links to a note.
type inLine struct {
	from    note.Path
	text    string
	private bool // seen only by a caller who sees private notes
}

// inboundLines returns the lines of the field of node t, chosen by selectLines:
// the text (refText) of every link inboundRefs names. line(id, i) returns link
// i's context line of node id.
func (g *linkGraph) inboundLines(t int32, pub *view, line func(id int32, i int) (string, error)) ([]inLine, error) {
	var out []inLine
	err := g.inboundRefs(t, pub, func(b backref, private bool) error {
		text, err := g.refText(b, line)
		if err != nil {
			return err
		}
		if strings.TrimSpace(text) != "" {
			out = append(out, inLine{from: g.nodes[b.from].rec.names.path, text: text, private: private})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return selectLines(out), nil
}

// inboundRefs calls fn for every link that enters the field of node t: every
// resolved link to t from another note. pub is the graph as seen without the
// private notes (linkview's rule): the links that resolve to t there give the
// public lines, so that the public view equals an index that never held the
// private notes; the links that resolve to t only with the private notes shown
// (theirs, and public ones their names pull to t) give the private lines. A
// public link a private name makes ambiguous counts, to a caller who sees
// private notes, where it resolves without them.
func (g *linkGraph) inboundRefs(t int32, pub *view, fn func(b backref, private bool) error) error {
	visit := func(b backref, private bool) error {
		if n := g.nodes[b.from]; b.from == t || n == nil || n.attachment {
			return nil
		}
		return fn(b, private)
	}
	hidden := pub.hidden != nil && pub.hides(t)
	if !hidden {
		for _, b := range pub.in(t) {
			if err := visit(b, false); err != nil {
				return err
			}
		}
	}
	if pub.hidden != nil {
		for _, b := range g.in[t] {
			if !hidden && !pub.hides(b.from) && pub.out(b.from, int(b.link)).to == t {
				continue // a public line
			}
			if err := visit(b, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// refText returns the text link b gives its target's field: a typed edge's why,
// else its context line (line).
func (g *linkGraph) refText(b backref, line func(id int32, i int) (string, error)) (string, error) {
	n := g.nodes[b.from]
	if l := &n.rec.links[b.link]; l.typed() {
		return l.why(), nil
	}
	text, err := line(b.from, int(b.link))
	if err != nil {
		return "", fmt.Errorf("context record %s: %w", n.rec.names.path, err)
	}
	return text, nil
}

// markPublicTargets adds to marked the notes that links meeting keys (and the
// links of the notes at paths) resolve to in pub where that differs from where
// they resolve in the graph: the notes whose public lines may change when the
// notes holding keys change, beyond those the graph's own changes mark (see
// linkGraph.apply). Called before and after apply, it covers the public
// resolutions before and after.
func (g *linkGraph) markPublicTargets(pub *view, keys []string, paths []note.Path, marked map[note.Path]bool) {
	if pub.hidden == nil {
		return
	}
	seen := map[int32]bool{}
	visit := func(src int32) {
		if seen[src] || pub.hides(src) {
			return
		}
		seen[src] = true
		for i, r := range g.nodes[src].out {
			if !pub.touchesHidden(r) {
				continue
			}
			if o := pub.out(src, i); o.to >= 0 {
				marked[g.nodes[o.to].rec.names.path] = true
			}
		}
	}
	for _, k := range keys {
		for src := range g.byKey.ids(k) {
			visit(src)
		}
	}
	for _, p := range paths {
		if id, n, ok := g.node(p); ok && !n.attachment {
			visit(id)
		}
	}
}

// decodeContexts decodes a context record (nodeRec.encodeContexts).
func decodeContexts(b []byte) ([]string, error) {
	d := decoder{b: b}
	n := d.count()
	out := make([]string, 0, n)
	for range n {
		out = append(out, d.string())
	}
	if d.err != nil || len(d.b) != 0 {
		return nil, errBadRecord
	}
	return out, nil
}

// contextAt returns the i-th line of an encoded context record ("" past its end).
func contextAt(b []byte, i int) (string, error) {
	d := decoder{b: b}
	n := d.count()
	for k := range n {
		l := d.uvarint()
		if d.err != nil || l > uint64(len(d.b)) {
			return "", errBadRecord
		}
		if k == i {
			return string(d.b[:l]), nil
		}
		d.b = d.b[l:]
	}
	if d.err != nil {
		return "", errBadRecord
	}
	return "", nil
}

// selectLines puts lines in their canonical order (public first, then by text and
// source), drops repeated texts within a class (keeping the first source) and
// keeps at most maxInboundLines of each class: greedily, the line that adds the
// most words not kept yet (ties: the first), so that a hub's field holds the
// most distinct descriptions rather than the first few hundred bytes of many.
func selectLines(lines []inLine) []inLine {
	slices.SortFunc(lines, func(a, b inLine) int {
		if a.private != b.private {
			if a.private {
				return 1
			}
			return -1
		}
		return cmp.Or(strings.Compare(a.text, b.text), strings.Compare(string(a.from), string(b.from)))
	})
	lines = slices.CompactFunc(lines, func(a, b inLine) bool { return a.private == b.private && a.text == b.text })
	split := len(lines)
	for i, l := range lines {
		if l.private {
			split = i
			break
		}
	}
	pub, priv := lines[:split], lines[split:]
	if len(pub) <= maxInboundLines && len(priv) <= maxInboundLines {
		return lines
	}
	return append(mostDistinct(pub), mostDistinct(priv)...)
}

// mostDistinct keeps maxInboundLines of lines (of one class, in canonical order),
// in that order: each time the line that adds the most words not kept yet.
func mostDistinct(lines []inLine) []inLine {
	if len(lines) <= maxInboundLines {
		return slices.Clone(lines)
	}
	sets := make([][]string, len(lines))
	for i, l := range lines {
		ws := strings.FieldsFunc(strings.ToLower(l.text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		slices.Sort(ws)
		sets[i] = slices.Compact(ws)
	}
	seen := map[string]bool{}
	taken := make([]bool, len(lines))
	for range maxInboundLines {
		best, bestN := -1, -1
		for i, ws := range sets {
			if taken[i] {
				continue
			}
			n := 0
			for _, w := range ws {
				if !seen[w] {
					n++
				}
			}
			if n > bestN {
				best, bestN = i, n
			}
		}
		taken[best] = true
		for _, w := range sets[best] {
			seen[w] = true
		}
	}
	out := make([]inLine, 0, maxInboundLines)
	for i, l := range lines {
		if taken[i] {
			out = append(out, l)
		}
	}
	return out
}

// analysedInbound is a note's inbound field, analysed: its postings (entries,
// sorted by term, pointing into arena) and its two lengths.
type analysedInbound struct {
	lines   []inLine
	entries []termEntry
	lens    [2]uint32
}

// analyseInbound analyses lines (selectLines' order: public ones first) into the
// inbound terms' postings. Each line's words take positions after the previous
// line's, with a gap of one.
func analyseInbound(da *docAnalyzer, lines []inLine) *analysedInbound {
	out := &analysedInbound{lines: lines}
	var arena []byte
	for k, private := range []bool{false, true} {
		da.begin()
		off := uint32(0)
		for _, l := range lines {
			if l.private == private {
				off = da.addText(fieldBody, off, []byte(l.text)) + 1
			}
		}
		if len(da.terms) == 0 {
			continue
		}
		da.encode()
		out.lens[k] = da.lens[fieldBody]
		for _, e := range da.entries {
			h0 := len(arena)
			arena = append(arena, e.head...)
			p0 := len(arena)
			arena = append(arena, e.pos...)
			out.entries = append(out.entries, termEntry{term: inboundTerm(e.term, private), head: arena[h0:p0], pos: arena[p0:]})
		}
	}
	// Entries point into arena, which may have moved: cut them again.
	off := 0
	for i := range out.entries {
		e := &out.entries[i]
		hn, pn := len(e.head), len(e.pos)
		e.head = arena[off : off+hn : off+hn]
		e.pos = arena[off+hn : off+hn+pn : off+hn+pn]
		off += hn + pn
	}
	slices.SortFunc(out.entries, func(a, b termEntry) int { return strings.Compare(a.term, b.term) })
	return out
}

// encodeInbound encodes a note's inbound record: its lines (source, private
// flag, text), then its inbound terms with their postings' hashes (forwardList).
func (a *analysedInbound) encode(dst []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(a.lines)))
	for _, l := range a.lines {
		dst = appendString(dst, string(l.from))
		flag := uint64(0)
		if l.private {
			flag = 1
		}
		dst = binary.AppendUvarint(dst, flag)
		dst = appendString(dst, l.text)
	}
	return forwardList(dst, a.entries)
}

// inboundRec is a decoded inbound record.
type inboundRec struct {
	lines []inLine
	terms []fwdTerm
}

func decodeInbound(b []byte) (inboundRec, error) {
	var r inboundRec
	d := decoder{b: b}
	n := d.count()
	for range n {
		l := inLine{from: note.Path(d.string())}
		flag := d.uvarint()
		l.private = flag == 1
		l.text = d.string()
		if flag > 1 {
			d.err = errBadRecord
		}
		r.lines = append(r.lines, l)
	}
	if d.err != nil {
		return r, fmt.Errorf("inbound record: %w", errBadRecord)
	}
	terms, err := decodeForward(d.b)
	if err != nil {
		return r, fmt.Errorf("inbound record: %w", errBadRecord)
	}
	r.terms = terms
	return r, nil
}

// inboundAll adds every note's inbound field to a rebuild: lg is the graph of
// bld's notes (node i is doc i). Fields are analysed on all cores, a run of docs
// at a time, and added in doc order.
func (b *bulkBuilder) inboundAll(ctx context.Context, an *analyzer, lg *linkGraph) error {
	t := b.tables.contexts
	if err := t.flush(); err != nil {
		return fmt.Errorf("link contexts: %w", err)
	}
	read := func(id int32) ([]byte, error) {
		sp := b.ctxAt[id]
		buf := make([]byte, sp.n)
		if _, err := t.f.ReadAt(buf, sp.off); err != nil {
			return nil, fmt.Errorf("link contexts: %w", err)
		}
		return buf, nil
	}
	// The context records of notes with many links (hubs, lists) are decoded
	// once and kept: each of their targets asks for one line.
	hubs := map[int32][]string{}
	for id := range b.nodes {
		if len(b.nodes[id].links) < hubLinks {
			continue
		}
		rec, err := read(int32(id))
		if err != nil {
			return err
		}
		if hubs[int32(id)], err = decodeContexts(rec); err != nil {
			return fmt.Errorf("context record %s: %w", b.nodes[id].names.path, err)
		}
	}
	line := func(id int32, i int) (string, error) {
		if cs, ok := hubs[id]; ok {
			if i < len(cs) {
				return cs[i], nil
			}
			return "", nil
		}
		rec, err := read(id)
		if err != nil {
			return "", err
		}
		return contextAt(rec, i)
	}
	pub := lg.view(nil)
	if slices.ContainsFunc(b.recs, func(r docRecord) bool { return r.private }) {
		pub = lg.view(func(p note.Path) bool {
			id, ok := lg.ids[p]
			return ok && int(id) < len(b.recs) && b.recs[id].private
		}).all()
	}
	const run = 1024
	out := make([]*analysedInbound, run)
	errs := make([]error, run)
	for lo := 0; lo < len(b.recs); lo += run {
		n := min(run, len(b.recs)-lo)
		err := parallel(ctx, n, 64, func() func(i int) {
			da := newDocAnalyzer(an)
			return func(i int) {
				lines, err := lg.inboundLines(int32(lo+i), pub, line)
				out[i], errs[i] = analyseInbound(da, lines), err
			}
		})
		if err != nil {
			return err
		}
		if err := errors.Join(errs[:n]...); err != nil {
			return err
		}
		for i, ai := range out[:n] {
			id := uint32(lo + i)
			if len(ai.lines) == 0 {
				continue
			}
			b.addPostings(id, ai.entries)
			b.recs[id].in = ai.lens
			for k := range b.stats.in {
				b.stats.in[k] += uint64(ai.lens[k])
			}
			b.fbuf = ai.encode(b.fbuf[:0])
			b.tables.fwd.set(docKey(prefixIn, id), b.fbuf)
		}
	}
	return nil
}

// inboundLine returns the line of doc d's inbound field (in the search's view)
// that holds the most of the query's own words (the first of those that tie),
// nil if none holds one. The field's postings scored d for the words in
// searchScratch.inb, and the lines hold no other of the query's words (the
// postings are theirs): it reads no record when there are none and stops at
// the first line that holds them all. It reads the record in pebble's buffer,
// copying only the line it returns, and stems only the words that may stem to a
// query word (stemHeads).
func (se *searcher) inboundLine(d uint32) (*InboundLine, error) {
	want := bits.OnesCount64(se.s.inb[d] &^ otherBit)
	if se.pl.orig > 63 {
		want = se.pl.orig // words past the 63rd have no bit of their own
	}
	if want == 0 {
		return nil, nil
	}
	b, closer, err := se.ix.db.Get(docKey(prefixIn, d))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, corrupt(err)
	}
	defer closer.Close()
	if se.inWant == nil {
		se.inWant = make(map[string]bool, se.pl.orig)
		se.inHeads = stemHeads{}
		for _, w := range se.pl.words[:se.pl.orig] {
			se.inWant[w.term] = true
			se.inHeads.add(w.term)
		}
		if se.s.stem == nil || len(se.s.stem.cache) > maxInboundStems {
			se.s.stem = se.ix.an.newStemmer()
		}
		se.inStem = se.s.stem
	}
	want = min(want, len(se.inWant))
	var seen []string
	var best *InboundLine
	bestN := 0
	dec := decoder{b: b}
	n := dec.count()
	for range n {
		from := dec.bytes()
		private := dec.uvarint() == 1
		text := dec.bytes()
		if dec.err != nil {
			return nil, corrupt(fmt.Errorf("inbound record: %w", errBadRecord))
		}
		if private && se.v.hide {
			continue
		}
		seen = seen[:0]
		words(text, func(w word) {
			if !se.inHeads.may(w.folded) {
				return
			}
			if t := se.inStem.term(w.folded); se.inWant[t] && !slices.Contains(seen, t) {
				seen = append(seen, t)
			}
		})
		if len(seen) > bestN {
			best, bestN = &InboundLine{From: note.Path(from), Text: string(text)}, len(seen)
			if bestN == want {
				break // no later line holds more
			}
		}
	}
	return best, nil
}

// bytes reads a string in place (valid while the decoded buffer is).
func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = errBadRecord
		return nil
	}
	s := d.b[:n]
	d.b = d.b[n:]
	return s
}
