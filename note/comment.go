package note

import (
	"bytes"
	"sort"
)

// Obsidian's comments: "%%" opens a comment and the next "%%" closes it, on the
// same line ("see %% [[Draft]] %% below") or lines later (a block: "%%" alone on a
// line, the hidden lines, "%%"), across blank lines too. An unclosed "%%" hides the
// rest of the note. Nothing in a comment is a link, a tag or a heading, as with an
// HTML comment, and a "%%" inside code (a fence, an indented block, a code span)
// or an HTML comment is text.
//
// The body scanner finds the comments line by line (pctLine, and the skipping of
// the lines inside an open comment in scanLine) and records each as a byte span;
// the inline scanner, handed a segment later, jumps over a span when it meets its
// opening "%%" (pctComment).

// pctSpan is the byte range of one "%% … %%" comment, both markers included.
type pctSpan struct{ start, end int }

// pctLine finds the "%%" markers in raw[from:to], a line (or the rest of one) of
// text outside any comment, skipping code spans and HTML comments on the line.
// A marker opens a comment (recorded as open in the inline scanner too, for a
// segment it scans before the comment closes) or closes the one it opened.
func (s *bodyScanner) pctLine(from, to int) {
	raw := s.raw
	// Memos that keep the line linear: backtick run lengths (up to 63) and "-->"
	// known not to occur again before to.
	var noRun uint64
	noClose := false
	for i := from; i+1 < to; {
		k := bytes.IndexAny(raw[i:to], "%`<")
		if k < 0 {
			return
		}
		i += k
		switch raw[i] {
		case '`':
			n := runOf(raw, i, to, '`')
			i += n
			if n < 64 && noRun>>n&1 != 0 {
				continue
			}
			if j := closingRun(raw, i, to, n); j >= 0 {
				i = j
			} else if n < 64 {
				noRun |= 1 << n
			}
			continue
		case '<':
			if !noClose && bytes.HasPrefix(raw[i:to], []byte("<!--")) {
				if j := bytes.Index(raw[i+4:to], []byte("-->")); j >= 0 {
					i += 4 + j + 3
					continue
				}
				noClose = true
			}
			i++
			continue
		}
		if i+1 >= to || raw[i+1] != '%' {
			i++
			continue
		}
		s.inl.pctOpen = i + 1
		j := bytes.Index(raw[i+2:to], []byte("%%"))
		if j < 0 {
			return // open: scanLine skips lines until one holds "%%"
		}
		s.closePct(i + 2 + j + 2)
		i += 2 + j + 2
	}
}

// closePct records the open comment as ending at end.
func (s *bodyScanner) closePct(end int) {
	s.inl.pcts = append(s.inl.pcts, pctSpan{start: s.inl.pctOpen - 1, end: end})
	s.inl.pctOpen = 0
}

// pctSkip handles a line while a comment is open: a line without "%%" is hidden;
// after the closing "%%" the rest of the line is text of the current paragraph.
func (s *bodyScanner) pctSkip(ls, ce int) {
	k := bytes.Index(s.raw[ls:ce], []byte("%%"))
	if k < 0 {
		return
	}
	rest := ls + k + 2
	s.closePct(rest)
	if blankFrom(s.raw, rest, ce) {
		return
	}
	s.pctLine(rest, ce)
	if s.segStart < 0 {
		s.segStart, s.segLine = rest, s.line
	}
	s.segEnd = ce
	s.prevBlank, s.prevPara = false, true
}

// closingRun returns the offset after the first run of exactly n backticks in
// raw[i:to], or -1.
func closingRun(raw []byte, i, to, n int) int {
	for i < to {
		k := bytes.IndexByte(raw[i:to], '`')
		if k < 0 {
			return -1
		}
		i += k
		m := runOf(raw, i, to, '`')
		if m == n {
			return i + m
		}
		i += m
	}
	return -1
}

// pctComment returns where scanning resumes after the comment whose opening "%%"
// is at i, or false when no comment opens there.
func (s *inlineScanner) pctComment(i int) (int, bool) {
	if s.pctOpen == i+1 {
		return s.end, true
	}
	k := sort.Search(len(s.pcts), func(k int) bool { return s.pcts[k].start >= i })
	if k == len(s.pcts) || s.pcts[k].start != i {
		return 0, false
	}
	return min(s.pcts[k].end, s.end), true
}
