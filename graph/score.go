package graph

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/cockroachdb/pebble/v2"
)

// searchScratch is the per-search working memory, pooled: dense arrays by doc id.
type searchScratch struct {
	score []float64
	accE  []float32
	accP  []float32
	mask  []uint64
	inc   []bool    // doc is in cands
	inb   []uint64  // the words whose inbound postings scored doc (inboundBit)
	arena []byte    // positions parts of the tracked terms' blocks
	refs  []postRef // the tracked terms' postRefs, one run per term
	cands []uint32  // docs with a score
	cs    []cand    // the candidates ranked (searcher.run)
	touch []uint32  // docs touched by the current word
	pos   []uint32
	stem  *stemmer // inboundLine's: its cache outlives one search
	snip  snipScratch
}

func (ix *Index) getScratch(n int) *searchScratch {
	s, _ := ix.scratch.Get().(*searchScratch)
	if s == nil {
		s = &searchScratch{}
	}
	if len(s.score) < n {
		s.score = make([]float64, n+n/8)
		s.accE = make([]float32, len(s.score))
		s.accP = make([]float32, len(s.score))
		s.mask = make([]uint64, len(s.score))
		s.inc = make([]bool, len(s.score))
		s.inb = make([]uint64, len(s.score))
	}
	return s
}

// reset zeroes what a search dirtied.
func (s *searchScratch) reset() {
	s.resetScores()
	s.arena, s.refs = s.arena[:0], s.refs[:0]
	if cap(s.arena) > 16<<20 || cap(s.refs) > 1<<20 || cap(s.cs) > 1<<20 {
		s.arena, s.refs, s.cs = nil, nil, nil
	}
	if cap(s.snip.starts) > 1<<16 || cap(s.snip.text.lineWords) > 1<<16 {
		s.snip = snipScratch{}
	}
}

// resetScores zeroes the scores (feedback scores again), keeping the arena.
func (s *searchScratch) resetScores() {
	for _, d := range s.cands {
		s.score[d] = 0
		s.mask[d] = 0
		s.inc[d] = false
		s.inb[d] = 0
	}
	s.cands = s.cands[:0]
	s.touch = s.touch[:0]
}

// searcher runs one plan against one state of the index (under ix.mu.RLock).
// Under a view that hides private docs, their postings are skipped wherever they
// are read, and every statistic is the public docs' (view), so that the private
// docs do not exist for the search.
type searcher struct {
	ix  *Index
	dt  *docTable
	v   docView
	pl  *plan
	s   *searchScratch
	ctx context.Context
	w   Weights

	// weights, b and inverse mean lengths of the fields; fieldInbound's
	// (which has no slot in a posting) in fieldMeta's place, never scored.
	fw     [numFields]float64
	fb     [numFields]float64
	invAvg [numFields]float64
	n      float64 // live docs

	// inWant, inHeads and inStem pick a hit's inbound line (inboundLine): the
	// query's own words, their stemHeads, and a stemmer (the pooled scratch's);
	// set for the first hit that needs them.
	inWant  map[string]bool
	inHeads stemHeads
	inStem  *stemmer

	// tracked are the query's own terms (words, then phrase terms) whose body
	// positions proximity and snippets need; tracked[i] is pl.words[i] for the
	// query's words.
	tracked []tracked
}

// tracked records where one term's postings are, so the body positions of any
// doc can be decoded later without reading the index again.
type tracked struct {
	term   string
	weight float64   // idf, for snippets
	refs   []postRef // the postings with body positions, in doc order
	done   bool
}

// postRef locates one posting's body positions: at arena[off:], after skip
// positions of earlier fields, n positions.
type postRef struct {
	doc, off, skip, n uint32
}

// bodyPositions returns the body positions of term t in doc, appended to dst.
func (t *tracked) bodyPositions(arena []byte, dst []uint32, doc uint32) []uint32 {
	refs := t.refs
	lo, hi := 0, len(refs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if refs[m].doc < doc {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == len(refs) || refs[lo].doc != doc {
		return dst
	}
	r := refs[lo]
	p := arena[r.off:]
	for range r.skip {
		_, n := binary.Uvarint(p)
		if n <= 0 {
			return dst
		}
		p = p[n:]
	}
	prev := uint32(0)
	for range r.n {
		d, n := binary.Uvarint(p)
		if n <= 0 {
			return dst
		}
		p = p[n:]
		prev += uint32(d)
		dst = append(dst, prev)
	}
	return dst
}

// record appends br's current posting to refs; base is where br's positions
// part starts in the arena (copied there by the caller).
func record(refs []postRef, br *blockReader, base int) []postRef {
	c := &br.cur
	if c.tf[fieldBody] == 0 {
		return refs
	}
	skip := c.tf[fieldTitle] + c.tf[fieldAliases] + c.tf[fieldTags] + c.tf[fieldHeadings]
	return append(refs, postRef{doc: c.doc, off: uint32(base + br.posOff), skip: skip, n: c.tf[fieldBody]})
}

func (se *searcher) init() {
	avg := avgLens(se.v.stats)
	for f := range numFields {
		if f == fieldMeta {
			continue
		}
		p := se.w.field(f)
		se.fw[f], se.fb[f], se.invAvg[f] = p.Weight, p.B, 1/avg[f]
	}
	se.fw[fieldInbound], se.fb[fieldInbound] = se.w.Inbound.Weight, se.w.Inbound.B
	se.invAvg[fieldInbound] = 1 / se.v.inAvg()
	se.n = float64(se.v.stats.docs)
	idx := map[string]bool{}
	for i := range se.pl.words[:se.pl.orig] {
		se.tracked = append(se.tracked, tracked{term: se.pl.words[i].term})
		idx[se.pl.words[i].term] = true
	}
	for _, p := range se.pl.phrases {
		for _, t := range p.terms {
			if !idx[t] {
				idx[t] = true
				se.tracked = append(se.tracked, tracked{term: t})
			}
		}
	}
}

// collect fills the tracked terms not read yet (phrase terms).
func (se *searcher) collect() error {
	for i := range se.tracked {
		tr := &se.tracked[i]
		if tr.done {
			continue
		}
		lo, hi := termRange(tr.term, false)
		it, err := se.ix.db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
		if err != nil {
			return corrupt(err)
		}
		start := len(se.s.refs)
		var br blockReader
		for ok := it.First(); ok; ok = it.Next() {
			_, _, okk := parseTermKey(it.Key())
			v, err := it.ValueAndErr()
			if !okk || err != nil {
				it.Close()
				return corrupt(err)
			}
			if err := br.init(v); err != nil {
				it.Close()
				return corrupt(err)
			}
			base := len(se.s.arena)
			se.s.arena = append(se.s.arena, br.pos...)
			for br.next() {
				se.s.refs = record(se.s.refs, &br, base)
			}
		}
		if err := it.Close(); err != nil {
			return corrupt(err)
		}
		tr.refs = se.s.refs[start:len(se.s.refs):len(se.s.refs)]
		tr.done = true
	}
	return nil
}

// tfw returns the BM25F pseudo term frequency of a posting: the field term
// frequencies, each weighted and normalised by its field's length.
func (se *searcher) tfw(p *posting) float64 {
	sum := float32(0)
	lens := &se.dt.docs[p.doc].lens
	for m := p.mask &^ (1 << fieldMeta); m != 0; m &= m - 1 {
		f := bits.TrailingZeros8(m)
		sum += float32(p.tf[f]) * fieldNorm(se.fw[f], se.fb[f], se.invAvg[f], lens[f])
	}
	return float64(sum)
}

// inboundTF returns the BM25F pseudo term frequency of an inbound posting (its
// term frequency in fieldBody's place): weighted and normalised by the inbound
// field's length in the search's view.
func (se *searcher) inboundTF(p *posting) float64 {
	l := se.v.inLen(se.dt, p.doc)
	return float64(p.tf[fieldBody]) * float64(fieldNorm(se.fw[fieldInbound], se.fb[fieldInbound], se.invAvg[fieldInbound], l))
}

func (se *searcher) idf(df int) float64 {
	d := float64(df)
	return math.Log(1 + (se.n-d+0.5)/(d+0.5))
}

func (se *searcher) sat(tf float64) float64 {
	return tf * (se.w.K1 + 1) / (se.w.K1 + tf)
}

func (se *searcher) run(o SearchOptions) (*Results, error) {
	se.init()
	for i := range se.pl.words {
		if err := se.ctx.Err(); err != nil {
			return nil, err
		}
		if err := se.scoreWord(i); err != nil {
			return nil, err
		}
	}
	for i := range se.pl.phrases {
		if err := se.scorePhrase(&se.pl.phrases[i]); err != nil {
			return nil, err
		}
	}
	allowed, err := se.filter()
	if err != nil {
		return nil, err
	}
	scored := len(se.pl.words) > 0 || len(se.pl.phrases) > 0
	cs := se.s.cs[:0]
	defer func() { se.s.cs = cs[:0] }() // the grown list, for the next search
	if scored {
		cs = slices.Grow(cs, len(se.s.cands))
		for _, d := range se.s.cands {
			if allowed != nil && !allowed.has(d) {
				continue
			}
			if !se.dt.docs[d].live {
				continue
			}
			cs = append(cs, cand{d, se.s.score[d] * float64(se.dt.docs[d].factor)})
		}
	} else if allowed != nil {
		for d := range se.dt.docs {
			if allowed.has(uint32(d)) && se.dt.docs[d].live && !se.v.hides(se.dt, uint32(d)) {
				cs = append(cs, cand{uint32(d), 0})
			}
		}
	}
	limit := o.Limit
	if limit <= 0 {
		limit = defaultLimit
	}
	limit = min(limit, maxLimit)
	off := max(o.Offset, 0)
	need := off + limit
	if se.w.Proximity > 0 {
		need = max(need, proxDepth)
	}
	if se.ix.opts.DiversityCap > 0 {
		need = len(cs)
	}
	se.rank(cs, need)
	if se.w.FeedbackDocs > 0 && se.w.FeedbackTerms > 0 && len(se.pl.words) > 0 && len(cs) > 0 && !se.covered(cs) {
		var err error
		if cs, err = se.feedback(cs, allowed); err != nil {
			return nil, err
		}
		se.rank(cs, need)
	}
	if se.w.Proximity > 0 && se.pl.orig > 1 {
		top := cs[:min(len(cs), proxDepth)]
		se.proximity(top)
		se.rank(top, len(top))
	}
	order := make([]uint32, min(len(cs), need))
	scores := make(map[uint32]float64, len(order))
	for i := range order {
		order[i] = cs[i].doc
		scores[cs[i].doc] = cs[i].score
	}
	if dc := se.ix.opts.DiversityCap; dc > 0 {
		order = diversify(order, dc, func(d uint32) string { return folderOf(se.dt.docs[d].path) })
	}
	res := &Results{Total: len(cs), Engine: engineBM25F}
	if off >= len(order) {
		res.Hits = []Hit{}
		return res, nil
	}
	page := order[off:min(len(order), off+limit)]
	res.Hits = make([]Hit, 0, len(page))
	for _, d := range page {
		info := &se.dt.docs[d]
		h := Hit{Path: info.path, Title: info.title, Revision: info.revision, Score: scores[d], Private: info.private}
		for b := range se.pl.labels {
			if se.s.mask[d]&(1<<b) != 0 {
				h.Matched = append(h.Matched, se.pl.labels[b])
			}
		}
		res.Hits = append(res.Hits, h)
	}
	if o.NoSnippets {
		return res, nil
	}
	if err := se.snippets(res.Hits, page); err != nil {
		return nil, err
	}
	return res, nil
}

// snippets fills each hit's Line, Snippet, Section and Chunks from the stored
// text of its doc (page[i] is hits[i]'s), and its Inbound line when the
// inbound field scored it.
func (se *searcher) snippets(hits []Hit, page []uint32) error {
	if err := se.collect(); err != nil {
		return err
	}
	hl := se.highlighter()
	for i, d := range page {
		h := &hits[i]
		err := se.withStoredText(d, func(t *storedText) {
			h.Chunks = se.chunks(d, t, hl, se.ix.opts.ChunksPerFile)
			if len(h.Chunks) > 0 {
				h.Line, h.Snippet, h.Section = h.Chunks[0].Line, h.Chunks[0].Snippet, h.Chunks[0].Section
			}
		})
		if err != nil {
			return err
		}
		if se.s.inb[d] != 0 {
			if h.Inbound, err = se.inboundLine(d); err != nil {
				return err
			}
		}
	}
	return nil
}

// withStoredText calls fn with doc d's stored text, if it has one. The text
// lives in pebble's buffer, decoded into the search's scratch: fn must copy what
// it keeps.
func (se *searcher) withStoredText(d uint32, fn func(t *storedText)) error {
	v, closer, err := se.ix.db.Get(docKey(prefixText, d))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil
	}
	if err != nil {
		return corrupt(err)
	}
	defer closer.Close()
	t := &se.s.snip.text
	if err := decodeStoredText(v, t); err != nil {
		return corrupt(err)
	}
	fn(t)
	t.raw = nil
	clear(t.headings) // no pointer into the buffer outlives it
	return nil
}

// scoreWord adds one query term's BM25F score (exact matches, plus prefix
// matches scaled by Weights.Prefix) to every doc containing it.
func (se *searcher) scoreWord(wi int) error {
	wp := &se.pl.words[wi]
	var tr *tracked
	if wi < len(se.tracked) && !se.tracked[wi].done && se.tracked[wi].term == wp.term {
		tr = &se.tracked[wi]
	}
	prefix := wp.prefix && se.w.Prefix > 0
	refStart := len(se.s.refs)
	lo, hi := termRange(wp.term, prefix)
	if !prefix && se.fw[fieldInbound] > 0 {
		hi[len(hi)-1] = inboundPrivate + 1 // the word's inbound terms too
	}
	it, err := se.ix.db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return corrupt(err)
	}
	s := se.s
	s.touch = s.touch[:0]
	dfE, err := se.accumulateWord(it, wp.term, se.inboundBit(wi), tr)
	if err != nil {
		it.Close()
		return err
	}
	if err := it.Close(); err != nil {
		return corrupt(err)
	}
	// A prefix match is a weaker form of the word, so it is weighted by the rarity
	// of the word with its extensions (every doc touched), never above the exact
	// word's: a rare extension ("widgetry") must not outrank a common exact word.
	idfE, idfP := se.idf(dfE), se.idf(len(s.touch))
	wp.idf = idfE
	if dfE == 0 {
		wp.idf = idfP
	}
	if tr != nil {
		tr.refs = s.refs[refStart:len(s.refs):len(s.refs)]
		tr.done = true
		tr.weight = wp.idf
	}
	se.addWordScores(wp, idfE, idfP)
	return nil
}

// inboundBit returns the bit of word wi in searchScratch.inb: bit wi for the
// query's own words but the 64th and later, whose exact inbound postings
// inboundLine counts; otherBit for any other (and for a prefix expansion).
func (se *searcher) inboundBit(wi int) uint64 {
	if wi < se.pl.orig && wi < 63 {
		return 1 << wi
	}
	return otherBit
}

// otherBit marks in searchScratch.inb an inbound posting of a term that is not
// one of the query's own words.
const otherBit = 1 << 63

// accumulateWord walks the posting blocks under it, summing each doc's exact
// (accE) and prefix (accP) term frequency for the word, marking inBit (prefix
// expansions: otherBit) in inb for the docs its inbound postings score, and
// recording tr's positions; it returns the number of docs with an exact match.
// The caller closes it.
func (se *searcher) accumulateWord(it *pebble.Iterator, word string, inBit uint64, tr *tracked) (int, error) {
	s := se.s
	dfE := 0
	var exp expansions
	var br blockReader
	for ok := it.First(); ok; ok = it.Next() {
		term, _, okk := parseTermKey(it.Key())
		if !okk {
			continue
		}
		term, class := splitTerm(term)
		if class != 0 && (se.fw[fieldInbound] == 0 || class == inboundPrivate && se.v.hide) {
			continue
		}
		exact := string(term) == word
		if !exact {
			if strings.ContainsAny(string(term), "=#") {
				continue // filter terms
			}
			exp.next(term)
		}
		v, err := it.ValueAndErr()
		if err != nil {
			return 0, corrupt(err)
		}
		if err := br.init(v); err != nil {
			return 0, corrupt(err)
		}
		acc, bit := s.accP, uint64(otherBit)
		if exact {
			acc, bit = s.accE, inBit
		}
		rec := tr
		base := 0
		if !exact || class != 0 {
			rec = nil
		} else if rec != nil {
			base = len(s.arena)
			s.arena = append(s.arena, br.pos...)
		}
		for br.next() {
			d := br.cur.doc
			if int(d) >= len(se.dt.docs) {
				return 0, corrupt(fmt.Errorf("posting for doc %d beyond table", d))
			}
			if se.v.hides(se.dt, d) {
				continue
			}
			if !exact && !exp.count() {
				return dfE, nil
			}
			if rec != nil {
				s.refs = record(s.refs, &br, base)
			}
			var tf float64
			if class == 0 {
				tf = se.tfw(&br.cur)
			} else {
				if tf = se.inboundTF(&br.cur); tf > 0 {
					s.inb[d] |= bit
				}
			}
			if tf == 0 {
				continue
			}
			if s.accE[d] == 0 && s.accP[d] == 0 {
				s.touch = append(s.touch, d)
			}
			if exact && acc[d] == 0 {
				dfE++
			}
			acc[d] += float32(tf)
		}
		if br.err != nil {
			return 0, corrupt(br.err)
		}
	}
	return dfE, nil
}

// addWordScores turns the word's accumulated term frequencies into BM25F
// scores (exact at idfE, prefix at Weights.Prefix*idfP), adds them to every
// touched doc's score and label mask, and clears the accumulators.
func (se *searcher) addWordScores(wp *wordPlan, idfE, idfP float64) {
	s := se.s
	qw := float64(wp.qtf)
	if wp.boost > 0 {
		qw *= wp.boost
	}
	bit := uint64(0)
	if wp.label >= 0 && wp.label < 64 {
		bit = 1 << wp.label
	}
	for _, d := range s.touch {
		sc := 0.0
		if e := s.accE[d]; e > 0 {
			sc += idfE * se.sat(float64(e))
		}
		if p := s.accP[d]; p > 0 {
			sc += se.w.Prefix * idfP * se.sat(float64(p))
		}
		s.accE[d], s.accP[d] = 0, 0
		if !s.inc[d] {
			s.inc[d] = true
			s.cands = append(s.cands, d)
		}
		s.score[d] += qw * sc
		s.mask[d] |= bit
	}
}

// scorePhrase adds a phrase's score: its occurrences count as the term frequency
// of one pseudo-term.
func (se *searcher) scorePhrase(pp *phrasePlan) error {
	hits, err := se.phraseDocs(pp)
	if err != nil {
		return err
	}
	idf := se.idf(len(hits))
	pp.idf = idf
	bit := uint64(0)
	if pp.label >= 0 && pp.label < 64 {
		bit = 1 << pp.label
	}
	s := se.s
	for d, tf := range hits {
		p := posting{doc: d, tf: tf}
		for f := range numFields {
			if tf[f] > 0 {
				p.mask |= 1 << f
			}
		}
		sc := idf * se.sat(se.tfw(&p))
		if sc == 0 {
			continue
		}
		if !s.inc[d] {
			s.inc[d] = true
			s.cands = append(s.cands, d)
		}
		s.score[d] += sc
		s.mask[d] |= bit
	}
	return nil
}

// phraseDocs returns, for every doc containing the phrase, the number of its
// occurrences per field (in fieldMeta for a field filter, else the scored fields).
func (se *searcher) phraseDocs(pp *phrasePlan) (map[uint32][numFields]uint32, error) {
	// cur maps doc → per field the phrase start positions still possible.
	var cur map[uint32]*[numFields][]uint32
	for i, t := range pp.terms {
		next := map[uint32]*[numFields][]uint32{}
		err := se.eachPosting(t, true, func(p *posting, ps []uint32) {
			var prev *[numFields][]uint32
			if i > 0 {
				if prev = cur[p.doc]; prev == nil {
					return
				}
			}
			var keep [numFields][]uint32
			any := false
			for f := range numFields {
				if (f == fieldMeta) != pp.meta || p.tf[f] == 0 {
					continue
				}
				fp := fieldPositions(ps, &p.tf, f)
				var starts []uint32
				for _, x := range fp {
					if x < pp.offs[i] {
						continue
					}
					st := x - pp.offs[i]
					if i == 0 || containsSorted(prev[f], st) {
						starts = append(starts, st)
					}
				}
				if len(starts) > 0 {
					keep[f] = starts
					any = true
				}
			}
			if any {
				next[p.doc] = &keep
			}
		})
		if err != nil {
			return nil, err
		}
		cur = next
		if len(cur) == 0 {
			break
		}
	}
	out := make(map[uint32][numFields]uint32, len(cur))
	for d, fs := range cur {
		var tf [numFields]uint32
		for f := range fs {
			tf[f] = uint32(len(fs[f]))
		}
		out[d] = tf
	}
	return out, nil
}

func containsSorted(xs []uint32, x uint32) bool {
	_, ok := slices.BinarySearch(xs, x)
	return ok
}

// eachPosting calls fn for every posting of term (exact), with its positions
// when withPos.
func (se *searcher) eachPosting(term string, withPos bool, fn func(p *posting, ps []uint32)) error {
	if !withPos {
		return se.eachPostingOf(term, false, nil, fn)
	}
	return se.eachPostingOf(term, false, func(uint32) bool { return true }, fn)
}

// eachPostingOf calls fn for the postings of term (exact) or, with prefix, also of
// the terms it is a prefix of that scoring expands it to (no filter terms, at most
// maxExpansions of them); it decodes positions for the docs want accepts and
// passes the others only when want is nil.
func (se *searcher) eachPostingOf(term string, prefix bool, want func(uint32) bool, fn func(p *posting, ps []uint32)) error {
	lo, hi := termRange(term, prefix)
	it, err := se.ix.db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return corrupt(err)
	}
	var br blockReader
	var exp expansions
blocks:
	for ok := it.First(); ok; ok = it.Next() {
		t, _, okk := parseTermKey(it.Key())
		if !okk {
			continue
		}
		if _, class := splitTerm(t); class != 0 {
			continue // another note's words: only scoring reads them
		}
		expanded := prefix && string(t) != term
		if expanded {
			if strings.ContainsAny(string(t), "=#") {
				continue
			}
			exp.next(t)
		}
		v, err := it.ValueAndErr()
		if err != nil {
			it.Close()
			return corrupt(err)
		}
		if err := br.init(v); err != nil {
			it.Close()
			return corrupt(err)
		}
		for br.next() {
			if int(br.cur.doc) >= len(se.dt.docs) {
				it.Close()
				return corrupt(fmt.Errorf("posting for doc %d beyond table", br.cur.doc))
			}
			if se.v.hides(se.dt, br.cur.doc) {
				continue
			}
			if expanded && !exp.count() {
				break blocks
			}
			var ps []uint32
			if want != nil {
				if !want(br.cur.doc) {
					continue
				}
				se.s.pos, err = br.positions(se.s.pos[:0])
				if err != nil {
					it.Close()
					return corrupt(err)
				}
				ps = se.s.pos
			}
			fn(&br.cur, ps)
		}
		if br.err != nil {
			it.Close()
			return corrupt(br.err)
		}
	}
	return corrupt(it.Close())
}
