package note

import (
	"bytes"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// line is one line of a text: its content without the line break, and the break
// itself ("\n", "\r\n", or "" for a last line without one).
type line struct{ text, eol string }

// splitLines cuts b into lines. A "\r" is part of the break only right before "\n".
func splitLines(b []byte) []line {
	var out []line
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, line{text: string(b)})
			break
		}
		l := line{text: string(b[:i]), eol: "\n"}
		if strings.HasSuffix(l.text, "\r") {
			l.text, l.eol = l.text[:len(l.text)-1], "\r\n"
		}
		out = append(out, l)
		b = b[i+1:]
	}
	return out
}

// setEOL gives l the line break eol, or "\r\n" when eol is "\n" and the text
// ends in '\r', which "\n" would turn into part of the break.
func (l *line) setEOL(eol string) {
	if eol == "\n" && strings.HasSuffix(l.text, "\r") {
		eol = "\r\n"
	}
	l.eol = eol
}

// joinLines is the inverse of splitLines.
func joinLines(ls []line) []byte {
	var buf bytes.Buffer
	for _, l := range ls {
		buf.WriteString(l.text)
		buf.WriteString(l.eol)
	}
	return buf.Bytes()
}

// hunk is one change of a side against base: base lines [bs, be) became the side's
// lines [ss, se). An insertion has bs == be, a deletion ss == se.
type hunk struct {
	bs, be, ss, se int
	theirs         bool
}

// lineIDs numbers distinct line texts with runes, so that the diff library can
// compare lines as characters (its line mode does the same internally, but keeps
// the line breaks, which must not count here).
type lineIDs map[string]rune

// maxLineIDs bounds the distinct lines: every id must be a valid rune, and the
// surrogate range is skipped.
const maxLineIDs = utf8.MaxRune + 1 - (0xE000 - 0xD800)

func (ids lineIDs) runes(ls []line) ([]rune, bool) {
	rs := make([]rune, len(ls))
	for i, l := range ls {
		id, ok := ids[l.text]
		if !ok {
			if len(ids) >= maxLineIDs {
				return nil, false
			}
			id = rune(len(ids))
			if id >= 0xD800 {
				id += 0xE000 - 0xD800
			}
			ids[l.text] = id
		}
		rs[i] = id
	}
	return rs, true
}

// lineHunks returns the changes that turn base into side, in base order, using
// the diff library's Myers diff over line ids. Consecutive deletions and
// insertions form one hunk; two hunks are always separated by an unchanged line.
func lineHunks(base, side []rune, theirs bool) []hunk {
	if p, q, ok := tooFar(base, side); !ok {
		return []hunk{{bs: p, be: len(base) - q, ss: p, se: len(side) - q, theirs: theirs}}
	}
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0 // an exact diff, and no clock
	var hs []hunk
	bi, si := 0, 0
	open := false
	for _, d := range dmp.DiffMainRunes(base, side, false) {
		n := utf8.RuneCountInString(d.Text)
		if d.Type == diffmatchpatch.DiffEqual {
			bi, si, open = bi+n, si+n, false
			continue
		}
		if !open {
			hs = append(hs, hunk{bs: bi, be: bi, ss: si, se: si, theirs: theirs})
			open = true
		}
		h := &hs[len(hs)-1]
		if d.Type == diffmatchpatch.DiffDelete {
			bi += n
			h.be = bi
		} else {
			si += n
			h.se = si
		}
	}
	return hs
}

// maxDiffWork bounds the work of one line diff: the lines between the common
// prefix and suffix times the edit distance. Myers' diff costs about that many
// steps (some 10 ns each); unbounded, 30,000 lines rewritten on both sides with
// few distinct lines would take 8 s.
const maxDiffWork = 1 << 26

// tooFar returns the lengths of the common prefix p and suffix q of base and
// side, and ok false when diffing what lies between would exceed maxDiffWork;
// the side's change is then taken as one hunk replacing all of it, which merges
// cleanly when only that side changed and conflicts otherwise.
func tooFar(base, side []rune) (p, q int, ok bool) {
	for p < len(base) && p < len(side) && base[p] == side[p] {
		p++
	}
	for q < len(base)-p && q < len(side)-p && base[len(base)-1-q] == side[len(side)-1-q] {
		q++
	}
	b, s := base[p:len(base)-q], side[p:len(side)-q]
	if len(b) == 0 || len(s) == 0 {
		return p, q, true // a pure insertion or deletion: no search
	}
	n := len(b) + len(s)
	dmax := min(maxDiffWork/n, n)
	// A cheap lower bound first: the lines one text has more often than the other.
	count := make(map[rune]int, len(b))
	for _, r := range b {
		count[r]++
	}
	for _, r := range s {
		count[r]--
	}
	d := 0
	for _, c := range count {
		d += max(c, -c)
	}
	return p, q, d <= dmax && withinDistance(b, s, dmax)
}

// withinDistance reports whether a turns into b with at most dmax line
// insertions and deletions: the forward pass of Myers' greedy algorithm, stopped
// after dmax rounds, in O((len(a)+len(b))·dmax) time and O(dmax) space.
func withinDistance(a, b []rune, dmax int) bool {
	off := dmax + 1
	v := make([]int, 2*dmax+3) // v[off+k]: the furthest x reached on diagonal k
	for d := 0; d <= dmax; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = v[off+k+1] // down
			} else {
				x = v[off+k-1] + 1 // right
			}
			y := x - k
			for x < len(a) && y < len(b) && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= len(a) && y >= len(b) {
				return true
			}
		}
	}
	return false
}

// lineConflict is a region both sides changed differently. Ours' lines are kept
// in the merge, where they start at output line at (0-based).
type lineConflict struct {
	at             int
	base, ours, th []line
}

// diff3 merges the line changes of ours and theirs against base. Lines that only
// one side changed take that side's version; a region both sides changed the same
// way is taken once; a region they changed differently keeps ours' lines and is
// reported. ok is false when the texts have too many distinct lines to diff.
func diff3(base, ours, theirs []line) (out []line, conflicts []lineConflict, ok bool) {
	ids := lineIDs{}
	br, ok1 := ids.runes(base)
	or, ok2 := ids.runes(ours)
	tr, ok3 := ids.runes(theirs)
	if !ok1 || !ok2 || !ok3 {
		return nil, nil, false
	}
	hs := append(lineHunks(br, or, false), lineHunks(br, tr, true)...)
	slices.SortStableFunc(hs, func(a, b hunk) int {
		if a.bs != b.bs {
			return a.bs - b.bs
		}
		return a.be - b.be
	})
	bi := 0        // next base line to emit
	dO, dT := 0, 0 // side index minus base index, before the current position
	for i := 0; i < len(hs); {
		cs, ce := hs[i].bs, hs[i].be
		j := i + 1
		for j < len(hs) && joins(hs[j], cs, ce) {
			ce = max(ce, hs[j].be)
			j++
		}
		// Unchanged lines before the cluster: ours' copies (same text as base).
		out = append(out, ours[bi+dO:cs+dO]...)
		nO, nT := dO, dT
		changedO, changedT := false, false
		for _, h := range hs[i:j] {
			if h.theirs {
				nT += (h.se - h.ss) - (h.be - h.bs)
				changedT = true
			} else {
				nO += (h.se - h.ss) - (h.be - h.bs)
				changedO = true
			}
		}
		o, t := ours[cs+dO:ce+nO], theirs[cs+dT:ce+nT]
		switch {
		case changedT && !changedO:
			out = append(out, t...)
		case changedT && !sameTexts(o, t) && len(o) == ce-cs && len(t) == ce-cs:
			var lcs []lineConflict
			out, lcs = alignedMerge(out, base[cs:ce], o, t)
			conflicts = append(conflicts, lcs...)
		case changedT && !sameTexts(o, t):
			conflicts = append(conflicts, lineConflict{at: len(out), base: base[cs:ce], ours: o, th: t})
			out = append(out, o...)
		default:
			out = append(out, o...)
		}
		bi, dO, dT, i = ce, nO, nT, j
	}
	out = append(out, ours[bi+dO:]...)
	return out, conflicts, true
}

// alignedMerge merges a region where base, ours and theirs have the same number
// of lines (lines edited in place) line by line, appending to out: a line one
// side changed takes that side's; a run of lines both changed differently keeps
// ours' and is one conflict.
func alignedMerge(out, base, ours, theirs []line) ([]line, []lineConflict) {
	var conflicts []lineConflict
	open := false
	for k := range base {
		b, o, t := base[k].text, ours[k].text, theirs[k].text
		switch {
		case o == t || t == b:
			out, open = append(out, ours[k]), false
		case o == b:
			out, open = append(out, theirs[k]), false
		default:
			if !open {
				conflicts = append(conflicts, lineConflict{at: len(out)})
				open = true
			}
			c := &conflicts[len(conflicts)-1]
			c.base, c.ours, c.th = append(c.base, base[k]), append(c.ours, ours[k]), append(c.th, theirs[k])
			out = append(out, ours[k])
		}
	}
	return out, conflicts
}

// joins reports whether hunk h belongs to the cluster of base lines [cs, ce): it
// changes a line the cluster changes, or inserts inside it, or both are
// insertions at the same place. Hunks come sorted by (bs, be), so h.bs >= cs.
func joins(h hunk, cs, ce int) bool {
	if h.bs < h.be {
		return h.bs < ce
	}
	return cs < h.bs && h.bs < ce || cs == ce && h.bs == cs
}

func sameTexts(a, b []line) bool {
	return slices.EqualFunc(a, b, func(x, y line) bool { return x.text == y.text })
}
