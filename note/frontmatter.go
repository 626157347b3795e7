package note

import (
	"bytes"
	"fmt"
)

// Frontmatter is a note's YAML frontmatter block.
type Frontmatter struct {
	// Start and End are the byte range in Note.Raw of the whole block, both "---"
	// delimiter lines included (End is where the body starts). Start is 3, not 0,
	// when the note begins with a UTF-8 byte order mark.
	Start, End int
	// YAML is the text between the delimiters (a sub-slice of Note.Raw).
	YAML []byte
	// Keys are the top-level keys in document order; KeyLines maps each to its
	// 1-based line in Note.Raw.
	Keys     []string
	KeyLines map[string]int
	// Fields holds the decoded top-level values: string, bool, int, float64,
	// time.Time (YAML timestamps), nil, []any and map[string]any. An integer too
	// large for int is kept as its decimal text (a string).
	Fields map[string]any
}

// bom is the UTF-8 byte order mark; a note may start with it before "---".
const bom = "\xef\xbb\xbf"

// block is where a frontmatter block sits in a note. found is false when the note
// has no frontmatter; the other fields are then zero.
type block struct {
	found bool
	// start is the offset of the opening "---" line, yamlStart/yamlEnd the YAML
	// between the delimiters, end the offset just past the closing delimiter line.
	start, yamlStart, yamlEnd, end int
	// crlf is true when the opening delimiter line ends in "\r\n".
	crlf bool
}

// findBlock locates the frontmatter block of raw. The block opens with a first line
// that is exactly "---" (trailing spaces, tabs and "\r" allowed) and closes with the
// next line that is "---" or "...". It applies RuleUnterminated and RuleTooLarge.
func findBlock(p Path, raw []byte) (block, *ParseError) {
	start := 0
	if bytes.HasPrefix(raw, []byte(bom)) {
		start = len(bom)
	}
	eol, next := lineEnd(raw, start)
	if !isDelimiter(raw[start:eol], false) {
		return block{}, nil
	}
	b := block{found: true, start: start, yamlStart: next}
	b.crlf = eol < len(raw) && eol > start && raw[eol-1] == '\r'
	line := 2
	for pos := next; pos < len(raw); line++ {
		e, n := lineEnd(raw, pos)
		if isDelimiter(raw[pos:e], true) {
			b.yamlEnd, b.end = pos, n
			if size := b.end - b.start; size > MaxFrontmatter {
				return block{}, &ParseError{Path: p, Line: 1, Rule: RuleTooLarge,
					Msg: fmt.Sprintf("frontmatter block is %d bytes (lines 1-%d); the limit is %d", size, line, MaxFrontmatter)}
			}
			return b, nil
		}
		pos = n
	}
	return block{}, &ParseError{Path: p, Line: 1, Rule: RuleUnterminated,
		Msg: `frontmatter opened by "---" on line 1 is never closed by a "---" or "..." line`}
}

// lineEnd returns the end of the line starting at pos (the index of its '\n', or
// len(raw)) and the start of the next line.
func lineEnd(raw []byte, pos int) (eol, next int) {
	if i := bytes.IndexByte(raw[pos:], '\n'); i >= 0 {
		return pos + i, pos + i + 1
	}
	return len(raw), len(raw)
}

// isDelimiter reports whether line (without its '\n') is "---", or "..." when dots is
// true, followed only by spaces, tabs or a '\r'.
func isDelimiter(line []byte, dots bool) bool {
	if len(line) < 3 {
		return false
	}
	if string(line[:3]) != "---" && !(dots && string(line[:3]) == "...") {
		return false
	}
	for _, c := range line[3:] {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// parseFrontmatter finds, parses and checks the frontmatter of raw and fills the
// note's Frontmatter, BodyStart, Tags, Aliases and Edges. The frontmatter title is
// returned for the title rule.
func parseFrontmatter(n *Note) (title string, err *ParseError) {
	b, err := findBlock(n.Path, n.Raw)
	if err != nil || !b.found {
		return "", err
	}
	n.BodyStart = b.end
	fm := &Frontmatter{Start: b.start, End: b.end, YAML: n.Raw[b.yamlStart:b.yamlEnd]}
	n.Frontmatter = fm
	d := newDecoder(n.Path, fm.YAML, lineOf(n.Raw, b.yamlStart))
	top, err := d.parse(fm.YAML)
	if err != nil {
		return "", err
	}
	fields, err := d.top(top, fm)
	if err != nil {
		return "", err
	}
	fm.Fields = fields
	if top == nil {
		return "", nil
	}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i].Value, top.Content[i+1]
		switch k {
		case "title":
			title = scalarText(v)
		case "tags", "tag":
			if n.Tags, err = d.list(n.Tags, k, v, RuleInvalidTags, true); err != nil {
				return "", err
			}
		case "aliases", "alias":
			if n.Aliases, err = d.list(n.Aliases, k, v, RuleInvalidAliases, false); err != nil {
				return "", err
			}
		case "edges":
			if n.Edges, err = d.edges(v); err != nil {
				return "", err
			}
		}
	}
	return title, nil
}

// lineOf returns the 1-based line of offset off in raw.
func lineOf(raw []byte, off int) int {
	return 1 + bytes.Count(raw[:off], []byte{'\n'})
}
