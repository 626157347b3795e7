package note

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Parse parses a note. raw is kept as the note's Raw without copying: the caller
// must not modify it afterwards. Every error is a *ParseError naming the rule the
// note broke and its line (errors.Is(err, ErrInvalid) holds).
//
// The rules, in the order they are checked: the whole note is valid UTF-8; a
// frontmatter block opened on the first line is closed, at most MaxFrontmatter
// bytes, valid YAML, a mapping, without duplicate keys at any depth and without
// anchors, aliases or merge keys; `tags`/`tag` and `aliases`/`alias` are lists or
// strings; `edges` is a list of mappings each with `to` and `type`.
func Parse(p Path, raw []byte) (*Note, error) {
	if err := checkUTF8(p, raw); err != nil {
		return nil, err
	}
	n := &Note{Path: p, Raw: raw}
	fmTitle, perr := parseFrontmatter(n)
	if perr != nil {
		return nil, perr
	}
	s := bodyScanner{raw: raw, note: n}
	s.inl.raw = raw
	s.inl.note = n
	s.scan(n.BodyStart)
	n.Tags = dedupTags(n.Tags)

	switch {
	case fmTitle != "":
		n.Title, n.TitleSource = fmTitle, TitleFromFrontmatter
	default:
		n.Title, n.TitleSource = Stem(p), TitleFromPath
		for _, h := range n.Headings {
			if h.Level == 1 && h.Text != "" {
				n.Title, n.TitleSource = h.Text, TitleFromHeading
				break
			}
		}
	}
	return n, nil
}

// Bytes returns the note's bytes: Raw, unchanged.
func (n *Note) Bytes() []byte { return n.Raw }

// Body returns the note without its frontmatter block.
func (n *Note) Body() []byte { return n.Raw[n.BodyStart:] }

// checkUTF8 applies RuleInvalidUTF8.
func checkUTF8(p Path, raw []byte) *ParseError {
	if utf8.Valid(raw) {
		return nil
	}
	for i := 0; i < len(raw); {
		if raw[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(raw[i:])
		if r == utf8.RuneError && size == 1 {
			return &ParseError{Path: p, Line: lineOf(raw, i), Rule: RuleInvalidUTF8,
				Msg: fmt.Sprintf("byte 0x%02x at offset %d is not valid UTF-8", raw[i], i)}
		}
		i += size
	}
	return nil // not reached: utf8.Valid said otherwise
}

// dedupTags removes tags that repeat an earlier one case-insensitively.
func dedupTags(tags []string) []string {
	if len(tags) < 2 {
		return tags
	}
	out := tags[:0]
	var seen map[string]bool
	for _, t := range tags {
		dup := false
		if seen == nil && len(out) < 16 {
			for _, o := range out {
				if strings.EqualFold(o, t) {
					dup = true
					break
				}
			}
		} else {
			if seen == nil {
				seen = make(map[string]bool, 2*len(out))
				for _, o := range out {
					seen[strings.ToLower(o)] = true
				}
			}
			k := strings.ToLower(t)
			dup = seen[k]
			seen[k] = true
		}
		if !dup {
			out = append(out, t)
		}
	}
	return out
}

// bodyScanner walks the body line by line with a small block state machine: fenced
// code (``` or ~~~, any length >= 3, closed by a run at least as long), indented
// code, HTML comment blocks, Obsidian's %% comments (comment.go), ATX headings, and runs of text lines ("segments") that
// it hands to the inline scanner.
type bodyScanner struct {
	raw  []byte
	note *Note
	inl  inlineScanner

	line int // 1-based number of the current line

	fence       bool
	fenceChar   byte
	fenceLen    int
	fenceIndent int
	fenceQuote  int

	indented  bool // inside an indented code block
	comment   bool // inside an HTML comment block
	prevBlank bool
	prevPara  bool // the previous line was paragraph text (an indented line continues it)
	inList    bool

	segStart, segEnd, segLine int // current text segment; segStart < 0 when none

	stack []*Heading // open headings, for the tree
}

func (s *bodyScanner) scan(start int) {
	raw := s.raw
	s.line = lineOf(raw, start)
	s.segStart = -1
	s.prevBlank = true
	for pos := start; pos < len(raw); s.line++ {
		eol, next := lineEnd(raw, pos)
		s.scanLine(pos, eol)
		pos = next
	}
	if s.inl.pctOpen != 0 {
		s.closePct(len(raw)) // an unclosed "%%" hides the rest of the note
	}
	s.flush()
	for _, h := range s.stack {
		h.End = len(raw)
	}
}

// scanLine classifies the line raw[ls:eol] (eol is its '\n' or len(raw)).
func (s *bodyScanner) scanLine(ls, eol int) {
	raw := s.raw
	ce := eol
	if ce > ls && raw[ce-1] == '\r' {
		ce--
	}

	if s.inl.pctOpen != 0 {
		s.pctSkip(ls, ce)
		return
	}
	if s.comment {
		if bytes.Contains(raw[ls:ce], []byte("-->")) {
			s.comment = false
		}
		return
	}

	i, depth := s.quoteMarkers(ls, ce)
	w, c := indentAt(raw, i, ce)
	if s.fenceLine(c, ce, w, depth) {
		return
	}

	if c == ce { // blank line
		s.flush()
		s.prevBlank, s.prevPara = true, false
		return
	}
	if s.indented {
		if w >= 4 {
			return
		}
		s.indented = false
	}
	blank := s.prevBlank
	s.prevBlank = false

	if w >= 4 && !s.prevPara && !s.inList {
		s.flush()
		s.indented = true
		return
	}
	if s.blockStart(ls, c, ce, w, depth) {
		return
	}
	s.textLine(ls, c, ce, w, blank)
}

// quoteMarkers skips the block quote markers of the line raw[ls:ce] and returns
// where its content starts and how many it had. Inside a fence only as many as
// opened it count.
func (s *bodyScanner) quoteMarkers(ls, ce int) (i, depth int) {
	raw := s.raw
	maxQuote := -1
	if s.fence {
		maxQuote = s.fenceQuote
	}
	i = ls
	for depth != maxQuote {
		j := i
		for j < ce && j-i < 3 && raw[j] == ' ' {
			j++
		}
		if j >= ce || raw[j] != '>' {
			break
		}
		depth++
		i = j + 1
		if i < ce && (raw[i] == ' ' || raw[i] == '\t') {
			i++
		}
	}
	return i, depth
}

// indentAt returns the indentation width of raw[i:ce] (tabs to the next multiple
// of 4) and the offset of its first non-blank byte (ce when there is none).
func indentAt(raw []byte, i, ce int) (w, c int) {
	for c = i; c < ce; c++ {
		if raw[c] == ' ' {
			w++
		} else if raw[c] == '\t' {
			w += 4 - w%4
		} else {
			break
		}
	}
	return w, c
}

// fenceLine handles a line inside a fenced code block (closing it on a long
// enough run) and reports whether the line was the fence's. A line with fewer
// block quote markers than the fence's ends the fence and is not.
func (s *bodyScanner) fenceLine(c, ce, w, depth int) bool {
	if !s.fence {
		return false
	}
	if depth < s.fenceQuote {
		s.fence = false // the block quote holding the fence ended
		return false
	}
	if w <= s.fenceIndent+3 {
		if n := runOf(s.raw, c, ce, s.fenceChar); n >= s.fenceLen && blankFrom(s.raw, c+n, ce) {
			s.fence = false
		}
	}
	return true
}

// blockStart opens a fenced code block or an HTML comment block, or records an
// ATX heading, at the line raw[ls:ce] whose first non-blank byte is at c, and
// reports whether the line was one of them.
func (s *bodyScanner) blockStart(ls, c, ce, w, depth int) bool {
	raw := s.raw
	if w <= 3 || s.inList {
		if ch := raw[c]; ch == '`' || ch == '~' {
			if n := runOf(raw, c, ce, ch); n >= 3 && (ch == '~' || bytes.IndexByte(raw[c+n:ce], '`') < 0) {
				s.flush()
				s.fence, s.fenceChar, s.fenceLen, s.fenceIndent, s.fenceQuote = true, ch, n, w, depth
				s.prevPara = false
				if w < 2 {
					s.inList = false
				}
				return true
			}
		}
	}
	if w <= 3 && bytes.HasPrefix(raw[c:ce], []byte("<!--")) {
		s.flush()
		s.comment = !bytes.Contains(raw[c+4:ce], []byte("-->"))
		s.prevPara = false
		return true
	}
	if w <= 3 && depth == 0 && raw[c] == '#' {
		if s.heading(ls, c, ce) {
			s.prevPara = false
			if w < 2 {
				s.inList = false
			}
			return true
		}
	}
	return false
}

// textLine adds the text line raw[ls:ce] (first non-blank byte at c, after a
// blank line when blank) to the current segment, or scans it alone when it is a
// table row; a list item starts a segment of its own.
func (s *bodyScanner) textLine(ls, c, ce, w int, blank bool) {
	if (w <= 3 || s.inList) && listMarker(s.raw, c, ce) {
		s.inList = true
		s.flush()
	} else if s.inList && w < 2 && blank {
		s.inList = false
	}
	if s.raw[c] == '|' { // a table row is a paragraph of its own
		s.flush()
		s.pctLine(ls, ce)
		s.inl.scan(ls, ce, s.line)
		s.prevPara = true
		return
	}
	s.pctLine(ls, ce)
	if s.segStart < 0 {
		s.segStart, s.segLine = ls, s.line
	}
	s.segEnd = ce
	s.prevPara = true
}

// flush hands the current text segment to the inline scanner.
func (s *bodyScanner) flush() {
	if s.segStart >= 0 {
		s.inl.scan(s.segStart, s.segEnd, s.segLine)
		s.segStart = -1
	}
}

// heading records the ATX heading on the line starting at ls whose first non-blank
// byte is the '#' at c, and reports whether the line is one.
func (s *bodyScanner) heading(ls, c, ce int) bool {
	raw := s.raw
	level := runOf(raw, c, ce, '#')
	if level > 6 {
		return false
	}
	t := c + level
	if t < ce && raw[t] != ' ' && raw[t] != '\t' {
		return false
	}
	s.flush()
	// Trim blanks, then an optional closing run of '#' preceded by a blank.
	te := ce
	for te > t && (raw[te-1] == ' ' || raw[te-1] == '\t') {
		te--
	}
	for t < te && (raw[t] == ' ' || raw[t] == '\t') {
		t++
	}
	k := te
	for k > t && raw[k-1] == '#' {
		k--
	}
	if k == t || raw[k-1] == ' ' || raw[k-1] == '\t' {
		te = k
		for te > t && (raw[te-1] == ' ' || raw[te-1] == '\t') {
			te--
		}
	}
	h := &Heading{Level: level, Text: string(raw[t:te]), Line: s.line, Start: ls}
	n := s.note
	for len(s.stack) > 0 && s.stack[len(s.stack)-1].Level >= level {
		s.stack[len(s.stack)-1].End = ls
		s.stack = s.stack[:len(s.stack)-1]
	}
	if len(s.stack) > 0 {
		parent := s.stack[len(s.stack)-1]
		h.Parent = parent
		parent.Children = append(parent.Children, h)
	} else {
		n.Roots = append(n.Roots, h)
	}
	s.stack = append(s.stack, h)
	n.Headings = append(n.Headings, h)
	s.pctLine(t, te)
	s.inl.scan(t, te, s.line)
	return true
}

// runOf counts the bytes equal to ch from i (before end).
func runOf(raw []byte, i, end int, ch byte) int {
	n := 0
	for i+n < end && raw[i+n] == ch {
		n++
	}
	return n
}

// blankFrom reports whether raw[i:end] holds only spaces and tabs.
func blankFrom(raw []byte, i, end int) bool {
	for ; i < end; i++ {
		if raw[i] != ' ' && raw[i] != '\t' {
			return false
		}
	}
	return true
}

// listMarker reports whether a list item marker ("-", "*", "+", "1." or "1)"
// followed by a blank or the end of the line) starts at c.
func listMarker(raw []byte, c, ce int) bool {
	j := c
	switch raw[c] {
	case '-', '*', '+':
		j++
	default:
		for j < ce && j-c < 9 && raw[j] >= '0' && raw[j] <= '9' {
			j++
		}
		if j == c || j >= ce || (raw[j] != '.' && raw[j] != ')') {
			return false
		}
		j++
	}
	return j == ce || raw[j] == ' ' || raw[j] == '\t'
}
