package note

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// maxLinkText bounds how far the scanner looks for the ']' closing a Markdown
// link's text, and maxLinkDest how long a destination or title may be; they keep
// runs of unclosed '[', '(' or quotes linear.
const (
	maxLinkText = 1024
	maxLinkDest = 2048
)

// Bit sets of the ASCII bytes the inline scanner stops at: ! # % < [ \ `.
const (
	specialLo uint64 = 1<<'!' | 1<<'#' | 1<<'%' | 1<<'<'
	specialHi uint64 = 1<<('['-64) | 1<<('\\'-64) | 1<<('`'-64)
)

func special(c byte) bool {
	if c < 64 {
		return specialLo>>c&1 != 0
	}
	return c < 128 && specialHi>>(c-64)&1 != 0
}

// inlineScanner finds code spans, HTML comments, links and #tags in one text
// segment (a run of paragraph lines, a table row or a heading's text).
type inlineScanner struct {
	raw  []byte
	note *Note

	// Line tracking: line is the 1-based line of offset at.
	at, line int

	end int // end of the current segment
	// Memos that keep hopeless searches from repeating within a segment: code
	// span lengths (up to 63) known to have no closing run after noSpanFrom, and
	// whether an HTML comment or a wikilink's "]]" is known to be unclosed.
	noSpan       uint64
	noComment    bool
	noWikiBefore int // no "]]" between the last failed "[[" and this offset

	// Obsidian's %% comments the body scanner found (comment.go), in order, and
	// 1 + the offset of the one still open (0: none).
	pcts    []pctSpan
	pctOpen int
}

// lineAt returns the 1-based line of off; offsets must not decrease within a
// segment.
func (s *inlineScanner) lineAt(off int) int {
	if off > s.at {
		s.line += bytes.Count(s.raw[s.at:off], []byte{'\n'})
		s.at = off
	}
	return s.line
}

func (s *inlineScanner) scan(start, end, line int) {
	s.at, s.line, s.end = start, line, end
	s.noSpan, s.noComment, s.noWikiBefore = 0, false, 0
	s.scanRange(start, end)
}

// scanRange scans raw[start:end] within the current segment.
func (s *inlineScanner) scanRange(start, end int) {
	raw := s.raw
	for i := start; i < end; {
		c := raw[i]
		if !special(c) {
			i++
			continue
		}
		switch c {
		case '\\':
			if i+1 < end && isASCIIPunct(raw[i+1]) {
				i += 2
				continue
			}
		case '`':
			i = s.codeSpan(i)
			continue
		case '<':
			if bytes.HasPrefix(raw[i:end], []byte("<!--")) {
				if j, ok := s.htmlComment(i); ok {
					i = j
					continue
				}
			}
		case '%':
			if i+1 < end && raw[i+1] == '%' {
				if j, ok := s.pctComment(i); ok {
					i = j
					continue
				}
			}
		case '!':
			if i+1 < end && raw[i+1] == '[' {
				if j, ok := s.link(i, i+1, true); ok {
					i = j
					continue
				}
			}
		case '[':
			if j, ok := s.link(i, i, false); ok {
				i = j
				continue
			}
		case '#':
			i = s.tag(i, start)
			continue
		}
		i++
	}
}

// codeSpan skips the code span opening with the backtick run at i and returns the
// offset after it; a run without a closing run of the same length is literal.
func (s *inlineScanner) codeSpan(i int) int {
	raw, end := s.raw, s.end
	n := runOf(raw, i, end, '`')
	if n < 64 && s.noSpan>>n&1 != 0 {
		return i + n
	}
	for j := i + n; j < end; {
		k := bytes.IndexByte(raw[j:end], '`')
		if k < 0 {
			break
		}
		j += k
		m := runOf(raw, j, end, '`')
		if m == n {
			return j + m
		}
		j += m
	}
	if n < 64 {
		s.noSpan |= 1 << n
	}
	return i + n
}

// htmlComment skips the comment "<!-- ... -->" opening at i.
func (s *inlineScanner) htmlComment(i int) (int, bool) {
	if s.noComment {
		return 0, false
	}
	k := bytes.Index(s.raw[i+4:s.end], []byte("-->"))
	if k < 0 {
		// "<!-->" and "<!--->" are complete (empty) comments.
		if bytes.HasPrefix(s.raw[i+4:s.end], []byte(">")) {
			return i + 5, true
		}
		if bytes.HasPrefix(s.raw[i+4:s.end], []byte("->")) {
			return i + 6, true
		}
		s.noComment = true
		return 0, false
	}
	return i + 4 + k + 3, true
}

// link tries a wikilink, embed or Markdown link whose syntax starts at start and
// whose first '[' is at br. It returns the offset after the construct when the
// bytes form a link (recorded only when it is a note link).
func (s *inlineScanner) link(start, br int, bang bool) (int, bool) {
	raw, end := s.raw, s.end
	if br+1 < end && raw[br+1] == '[' {
		if j, ok := s.wikilink(start, br, bang); ok {
			return j, true
		}
	}
	return s.mdLink(start, br, bang)
}

// wikilink parses "[[...]]" with its first '[' at br ("![[...]]" when bang).
func (s *inlineScanner) wikilink(start, br int, bang bool) (int, bool) {
	raw := s.raw
	if br < s.noWikiBefore {
		return 0, false
	}
	eol := s.end
	if k := bytes.IndexByte(raw[br:s.end], '\n'); k >= 0 {
		eol = br + k
	}
	k := bytes.Index(raw[br+2:eol], []byte("]]"))
	if k < 0 {
		s.noWikiBefore = eol
		return 0, false
	}
	close := br + 2 + k
	if bytes.Contains(raw[br+1:close], []byte("[[")) {
		return 0, false // a later "[[" on the way is the real start
	}
	target, heading, block, alias := splitWiki(string(raw[br+2 : close]))
	if target == "" && heading == "" && block == "" {
		return 0, false
	}
	kind := LinkWiki
	if bang {
		kind = LinkEmbed
	}
	s.note.Links = append(s.note.Links, Link{Kind: kind, Target: target, Heading: heading,
		Block: block, Alias: alias, Line: s.lineAt(start), Start: start, End: close + 2})
	return close + 2, true
}

// mdLink parses an inline Markdown link "[text](dest "title")" with '[' at br
// ("![alt](dest)" when bang). It records the link when dest names a note.
func (s *inlineScanner) mdLink(start, br int, bang bool) (int, bool) {
	raw, end := s.raw, s.end
	// Link text: balanced brackets, backslash escapes, code spans.
	depth, j := 1, br+1
	limit := min(end, br+1+maxLinkText)
	if bytes.IndexByte(raw[j:limit], ']') < 0 {
		return 0, false
	}
	for j < limit {
		switch raw[j] {
		case '\\':
			j++
		case '`':
			j = s.codeSpan(j)
			continue
		case '[':
			depth++
		case ']':
			depth--
		}
		if depth == 0 {
			break
		}
		j++
	}
	if depth != 0 || j+1 >= end || raw[j+1] != '(' {
		return 0, false
	}
	textEnd := j
	end = min(end, j+2+maxLinkDest)
	ds, de, p, _, ok := linkDest(raw, skipLinkSpace(raw, j+2, end), end)
	if !ok {
		return 0, false
	}
	dest := raw[ds:de]
	// Optional title, separated from the destination by white space.
	if t := skipLinkSpace(raw, p, end); t > p && t < end && (raw[t] == '"' || raw[t] == '\'' || raw[t] == '(') {
		closer := raw[t]
		if closer == '(' {
			closer = ')'
		}
		q := t + 1
		for q < end && raw[q] != closer {
			if raw[q] == '\\' {
				q++
			}
			q++
		}
		if q >= end {
			return 0, false
		}
		p = q + 1
	}
	p = skipLinkSpace(raw, p, end)
	if p >= end || raw[p] != ')' {
		return 0, false
	}
	linkEnd := p + 1
	if target, heading, block, ok := noteDest(dest, bang); ok {
		s.note.Links = append(s.note.Links, Link{Kind: LinkMarkdown, Target: target, Heading: heading,
			Block: block, Alias: string(raw[br+1 : textEnd]), Line: s.lineAt(start), Start: start, End: linkEnd})
	}
	// The text is ordinary inline text: "[see [[Note]]](https://x)" links Note.
	s.scanRange(br+1, textEnd)
	return linkEnd, true
}

// linkDest scans the destination of an inline link starting at p, before end:
// "<...>" (angle; no line break or '<' inside, and closed) or a bare destination
// (up to a space or control byte or an unbalanced ')', its parentheses balanced).
// Backslash escapes of ASCII punctuation are skipped over. It returns the
// destination's byte range, without the angle brackets, and the offset after it.
// Parsing (mdLink) and rewriting (mdDestSpan) both read destinations with it.
func linkDest(raw []byte, p, end int) (ds, de, next int, angle, ok bool) {
	if p < end && raw[p] == '<' {
		q := p + 1
		for q < end && raw[q] != '>' {
			if raw[q] == '\n' || raw[q] == '<' {
				return 0, 0, 0, true, false
			}
			if raw[q] == '\\' && q+1 < end && isASCIIPunct(raw[q+1]) {
				q++
			}
			q++
		}
		if q >= end {
			return 0, 0, 0, true, false
		}
		return p + 1, q, q + 1, true, true
	}
	q, parens := p, 0
loop:
	for q < end {
		switch c := raw[q]; {
		case c <= ' ':
			break loop
		case c == '\\' && q+1 < end && isASCIIPunct(raw[q+1]):
			q++
		case c == '(':
			parens++
		case c == ')':
			if parens == 0 {
				break loop
			}
			parens--
		}
		q++
	}
	return p, q, q, false, parens == 0
}

// skipLinkSpace skips spaces and tabs and at most one line ending.
func skipLinkSpace(raw []byte, p, end int) int {
	nl := false
	for p < end {
		switch raw[p] {
		case ' ', '\t', '\r':
		case '\n':
			if nl {
				return p
			}
			nl = true
		default:
			return p
		}
		p++
	}
	return p
}

// tag reads a #tag at i (the '#') and returns where scanning resumes. A tag follows
// the start of the segment, white space, or one of ( [ { " ' , ; * _ ~ > | ! (or
// non-ASCII punctuation); its name is made of letters, digits, '_', '-' and '/',
// holds at least one letter, and is not in a URL.
func (s *inlineScanner) tag(i, segStart int) int {
	raw, end := s.raw, s.end
	if i > segStart && !tagMayFollow(raw[segStart:i]) {
		return i + 1
	}
	j, letter := i+1, false
	for j < end {
		c := raw[j]
		if c < utf8.RuneSelf {
			switch {
			case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
				letter = true
			case c >= '0' && c <= '9', c == '_', c == '-', c == '/':
			default:
				goto done
			}
			j++
			continue
		}
		r, size := utf8.DecodeRune(raw[j:end])
		switch {
		case unicode.IsLetter(r):
			letter = true
		case unicode.IsDigit(r), unicode.IsMark(r):
		default:
			goto done
		}
		j += size
	}
done:
	if !letter || inURL(raw[segStart:i]) {
		return j
	}
	s.note.Tags = append(s.note.Tags, string(raw[i+1:j]))
	return j
}

// tagMayFollow reports whether a tag may start right after before.
func tagMayFollow(before []byte) bool {
	c := before[len(before)-1]
	if c < utf8.RuneSelf {
		switch c {
		case ' ', '\t', '\n', '\r', '(', '[', '{', '"', '\'', ',', ';', '*', '_', '~', '>', '|', '!':
			return true
		}
		return false
	}
	r, _ := utf8.DecodeLastRune(before)
	return unicode.IsSpace(r) || unicode.IsPunct(r)
}

// inURL reports whether the word ending at the end of before contains "://", so
// that a '#' after it is a URL fragment.
func inURL(before []byte) bool {
	k := len(before)
	for k > 0 && len(before)-k < 2048 {
		c := before[k-1]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			break
		}
		k--
	}
	return bytes.Contains(before[k:], []byte("://"))
}

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}
