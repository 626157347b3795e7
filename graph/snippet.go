package graph

import (
	"bytes"
	"cmp"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Snippets: the matched words of a query are marked with these guillemets, which
// Markdown leaves alone (unlike **bold**, which notes themselves use).
const (
	markOpen  = "«"
	markClose = "»"
	// snippetMax is the longest snippet in bytes (before marks).
	snippetMax = 240
)

// highlighter finds the query's terms in text: a word matches when its term is a
// query term, or starts with a prefix word's stem.
type highlighter struct {
	st     *stemmer
	exact  map[string]float64 // term → weight (its idf)
	prefix []prefixWord
	heads  stemHeads // of the exact terms
}

// stemHeads holds the first two bytes of a set of terms, so that a word that
// cannot stem to one of them is not stemmed at all: Porter2 keeps a word's first
// two letters, but for dying/lying/tying → die/lie/tie (covered by adding "dy",
// "ly", "ty") and for an apostrophe second ("o'reilly" → "oreilli", "x's" → "x"),
// which may.
type stemHeads map[[2]byte]bool

func (h stemHeads) add(t string) {
	var k [2]byte
	copy(k[:], t)
	h[k] = true
	switch k {
	case [2]byte{'d', 'i'}, [2]byte{'l', 'i'}, [2]byte{'t', 'i'}:
		h[[2]byte{k[0], 'y'}] = true
	}
}

// may reports whether folded may stem to one of the terms.
func (h stemHeads) may(folded []byte) bool {
	var k [2]byte
	copy(k[:], folded)
	return h[k] || k[1] == '\''
}

type prefixWord struct {
	stem   string
	weight float64
}

// match is one matched word in a text.
type match struct {
	start, end int
	term       string
	weight     float64
}

func (se *searcher) highlighter() *highlighter {
	h := &highlighter{st: se.ix.an.newStemmer(), exact: map[string]float64{}, heads: stemHeads{}}
	for _, w := range se.pl.words[:se.pl.orig] {
		h.exact[w.term] = max(h.exact[w.term], w.idf)
		if w.prefix && se.w.Prefix > 0 {
			h.prefix = append(h.prefix, prefixWord{w.term, w.idf * se.w.Prefix})
		}
	}
	for _, p := range se.pl.phrases {
		for _, t := range p.terms {
			h.exact[t] = max(h.exact[t], p.idf)
		}
	}
	for t := range h.exact {
		h.heads.add(t)
	}
	return h
}

// matches returns the matched words of text, in order.
func (h *highlighter) matches(text []byte) []match {
	var out []match
	words(text, func(w word) {
		if !h.heads.may(w.folded) {
			return
		}
		t := h.st.term(w.folded)
		if t == "" {
			return
		}
		if wt, ok := h.exact[t]; ok {
			out = append(out, match{w.start, w.end, t, wt})
			return
		}
		for _, p := range h.prefix {
			if strings.HasPrefix(t, p.stem) {
				out = append(out, match{w.start, w.end, p.stem, p.weight})
				return
			}
		}
	})
	return out
}

// snipScratch is the working memory of snippets, reused from hit to hit and
// search to search (searchScratch).
type snipScratch struct {
	text   storedText // the hit's, decoded (withStoredText)
	starts []int
	hits   []lineHit
	secs   []section
	order  []int
	count  []int
	ps     []uint32
}

// lineHit is a term on a body line: a tracked term's index (term ≥ 0) or a
// prefix's (-1-i for prefix i of the highlighter).
type lineHit struct {
	line, term int
}

// chunks returns the best k heading sections of doc d for the hit list: each
// section scores the weights of the distinct query terms in it (from the body
// positions of the postings read for ranking, mapped to lines by the stored line
// table), plus a little for repeats; its snippet is its best line. A note whose
// body matched only through prefixes is scanned (its first 32 KiB); one whose
// body matches nothing (a title or tag hit) gets its first line.
func (se *searcher) chunks(d uint32, t *storedText, h *highlighter, k int) []Chunk {
	sc := &se.s.snip
	raw := t.raw
	body := min(max(t.bodyStart, 0), len(raw))
	starts := lineStarts(append(sc.starts[:0], body), raw)
	hits := se.findLineHits(sc.hits[:0], d, t, h, starts)
	secs := sections(append(sc.secs[:0], section{from: 0}), t, len(starts))
	sc.starts, sc.hits, sc.secs = starts, hits, secs
	se.scoreSections(secs, hits, h)
	order := sc.order[:0]
	for i := range secs {
		order = append(order, i)
	}
	sc.order = order
	sort.SliceStable(order, func(a, b int) bool { return secs[order[a]].score > secs[order[b]].score })
	var out []Chunk
	for _, si := range order {
		sec := secs[si]
		if len(out) == k || (sec.score == 0 && len(out) > 0) {
			break
		}
		best := se.bestLine(sec, hits, h)
		if best < 0 {
			// No match in the section: its first non-blank line.
			for li := sec.from; li < sec.to && best < 0; li++ {
				if txt := lineText(raw, starts, li); len(bytes.TrimSpace(txt)) > 0 && !isFence(txt) {
					best = li
				}
			}
			if best < 0 {
				if sec.score == 0 && si != order[len(order)-1] {
					continue // an empty section: try the next
				}
				best = sec.from
			}
		}
		txt := lineText(raw, starts, best)
		out = append(out, Chunk{Section: string(sec.title), Line: t.bodyLine + best, Snippet: markLine(txt, 0, h.matches(txt)), Score: sec.score})
	}
	return out
}

// lineStarts appends to starts, which holds the offset of the body's first line
// in raw, the byte offset of each further body line.
func lineStarts(starts []int, raw []byte) []int {
	for i := starts[len(starts)-1]; ; {
		nl := bytes.IndexByte(raw[i:], '\n')
		if nl < 0 {
			break
		}
		i += nl + 1
		starts = append(starts, i)
	}
	return starts
}

// lineText returns body line li of raw, without its newline.
func lineText(raw []byte, starts []int, li int) []byte {
	end := len(raw)
	if li+1 < len(starts) {
		end = starts[li+1] - 1
	}
	return raw[starts[li]:end]
}

// findLineHits appends to dst the terms on each body line of doc d, by line
// (and on one line in term order): the tracked terms from the ranking postings,
// once per line each, or, when none is in the body and the query has prefixes,
// the prefixes found by scanning the body's first 32 KiB, once per match.
func (se *searcher) findLineHits(dst []lineHit, d uint32, t *storedText, h *highlighter, starts []int) []lineHit {
	ps := se.s.snip.ps
	lw := t.lineWords
	for ti := range se.tracked {
		ps = se.tracked[ti].bodyPositions(se.s.arena, ps[:0], d)
		last := -1
		for _, p := range ps {
			li := sort.Search(len(lw), func(i int) bool { return lw[i] > p }) - 1
			if li < 0 || li >= len(starts) || li == last {
				continue
			}
			dst = append(dst, lineHit{li, ti})
			last = li // positions ascend, so a term's lines do too
		}
	}
	se.s.snip.ps = ps
	if len(dst) == 0 && len(h.prefix) > 0 {
		body := starts[0]
		raw := t.raw
		scan := raw[body:min(len(raw), body+32<<10)]
		for _, m := range h.matches(scan) {
			off := body + m.start
			li := sort.SearchInts(starts, off+1) - 1
			dst = append(dst, lineHit{li, -1 - h.prefixIndex(m.term)})
		}
	}
	slices.SortStableFunc(dst, func(a, b lineHit) int { return cmp.Compare(a.line, b.line) })
	return dst
}

// inLines returns the part of hits (sorted by line) on lines from..to-1.
func inLines(hits []lineHit, from, to int) []lineHit {
	i, _ := slices.BinarySearchFunc(hits, from, func(x lineHit, l int) int { return cmp.Compare(x.line, l) })
	j := i
	for j < len(hits) && hits[j].line < to {
		j++
	}
	return hits[i:j]
}

// termWeight is the highlight weight of a lineHit's term: a tracked term's
// (ti >= 0) or a prefix's (-1-ti).
func (se *searcher) termWeight(h *highlighter, ti int) float64 {
	if ti >= 0 {
		return h.exact[se.tracked[ti].term]
	}
	return h.prefix[-1-ti].weight
}

// section is a heading section of a note's body, by body line.
type section struct {
	from, to int // body lines
	title    []byte
	score    float64
}

// sections splits a body of n lines at its headings, appending to secs, which
// holds the first section (before any heading, without a title).
func sections(secs []section, t *storedText, n int) []section {
	for _, hd := range t.headings {
		li := hd.line - t.bodyLine
		if li < 0 || li >= n {
			continue
		}
		if last := &secs[len(secs)-1]; li == last.from {
			last.title = hd.textb
			continue
		}
		secs = append(secs, section{from: li, title: hd.textb})
	}
	for i := range secs {
		secs[i].to = n
		if i+1 < len(secs) {
			secs[i].to = secs[i+1].from
		}
	}
	return secs
}

// scoreSections scores each section by the weights of the distinct terms in
// it, plus a little for repeats.
func (se *searcher) scoreSections(secs []section, hits []lineHit, h *highlighter) {
	np := len(h.prefix)
	count := slices.Grow(se.s.snip.count[:0], np+len(se.tracked))[:np+len(se.tracked)]
	se.s.snip.count = count
	for i := range secs {
		clear(count)
		for _, x := range inLines(hits, secs[i].from, secs[i].to) {
			count[np+x.term]++
		}
		// In term order: a sum in another order could differ in its last bits.
		for c, n := range count {
			if n > 0 {
				secs[i].score += se.termWeight(h, c-np) * (1 + 0.1*math.Log(float64(n)))
			}
		}
	}
}

// bestLine returns the section's line with the highest summed term weight
// (its heading line counting half), or -1 when no line has a match.
func (se *searcher) bestLine(sec section, hits []lineHit, h *highlighter) int {
	best, bestScore := -1, 0.0
	in := inLines(hits, sec.from, sec.to)
	for i := 0; i < len(in); {
		li := in[i].line
		sc := 0.0
		for ; i < len(in) && in[i].line == li; i++ {
			sc += se.termWeight(h, in[i].term)
		}
		if sc > 0 && li == sec.from && len(sec.title) > 0 {
			sc /= 2 // the heading line itself says less than the text under it
		}
		if sc > bestScore {
			best, bestScore = li, sc
		}
	}
	return best
}

func (h *highlighter) prefixIndex(stem string) int {
	for i, p := range h.prefix {
		if p.stem == stem {
			return i
		}
	}
	return 0
}

func isFence(line []byte) bool {
	l := bytes.TrimSpace(line)
	return bytes.HasPrefix(l, []byte("```")) || bytes.HasPrefix(l, []byte("~~~")) || bytes.Equal(l, []byte("---"))
}

// markLine returns line (starting at offset base of raw) trimmed, clipped to
// snippetMax bytes around its first match, with the matches marked.
func markLine(line []byte, base int, ms []match) string {
	lo, hi := 0, len(line)
	for lo < hi && (line[lo] == ' ' || line[lo] == '\t' || line[lo] == '\r') {
		lo++
	}
	for hi > lo && (line[hi-1] == ' ' || line[hi-1] == '\t' || line[hi-1] == '\r') {
		hi--
	}
	prefix, suffix := "", ""
	if hi-lo > snippetMax {
		from := lo
		if len(ms) > 0 {
			from = max(lo, ms[0].start-base-snippetMax/4)
		}
		to := min(hi, from+snippetMax)
		from = max(lo, to-snippetMax)
		// Cut at rune and, when close, word boundaries.
		for from > lo && !utf8.RuneStart(line[from]) {
			from--
		}
		for to < hi && !utf8.RuneStart(line[to]) {
			to++
		}
		if from > lo {
			if sp := bytes.IndexByte(line[from:min(to, from+20)], ' '); sp >= 0 {
				from += sp + 1
			}
			prefix = "…"
		}
		if to < hi {
			if sp := bytes.LastIndexByte(line[max(from, to-20):to], ' '); sp >= 0 {
				to = max(from, to-20) + sp
			}
			suffix = "…"
		}
		lo, hi = from, to
	}
	var b strings.Builder
	b.WriteString(prefix)
	at := lo
	for _, m := range ms {
		s, e := m.start-base, m.end-base
		if s < at || e > hi {
			continue
		}
		b.Write(line[at:s])
		b.WriteString(markOpen)
		b.Write(line[s:e])
		b.WriteString(markClose)
		at = e
	}
	b.Write(line[at:hi])
	b.WriteString(suffix)
	return strings.Map(printable, b.String())
}

// printable maps the control characters a snippet may hold (a lone carriage
// return, an escape sequence, a C1 control such as the 8-bit CSI U+009B) to a
// space, so that printing it to a terminal shows the text and nothing else.
func printable(r rune) rune {
	if r != '\t' && unicode.IsControl(r) {
		return ' '
	}
	return r
}
