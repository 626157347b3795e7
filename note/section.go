package note

import "strings"

// OutlineEntry is one heading of a note's outline.
type OutlineEntry struct {
	Level int
	Text  string
	// Line is the heading's 1-based line; Size the byte size of its section,
	// heading line included.
	Line int
	Size int
}

// Outline lists the note's headings in document order.
func (n *Note) Outline() []OutlineEntry {
	out := make([]OutlineEntry, len(n.Headings))
	for i, h := range n.Headings {
		out[i] = OutlineEntry{Level: h.Level, Text: h.Text, Line: h.Line, Size: h.Size()}
	}
	return out
}

// Section finds the section of the heading named by heading and returns its byte
// range in n.Raw (heading line included, up to the next heading of the same or a
// higher level). heading is matched case-insensitively against the heading text,
// with surrounding blanks ignored. It may carry a level ("## Child": only a level-2
// heading matches), or be a path of headings separated by '/' ("Parent/Child"):
// the last part names the heading and the earlier parts, in order, name some of
// its ancestors. A heading whose text itself contains '/' is matched whole first.
// The first match in document order wins.
func Section(n *Note, heading string) (start, end int, ok bool) {
	q := strings.TrimSpace(heading)
	if q == "" {
		return 0, 0, false
	}
	for _, h := range n.Headings {
		if headingMatches(h, q) {
			return h.Start, h.End, true
		}
	}
	for _, h := range n.Headings {
		if pathMatches(h, q) {
			return h.Start, h.End, true
		}
	}
	return 0, 0, false
}

// pathMatches reports whether q is "A/B/.../H" where H matches h and the earlier
// parts, in order, match ancestors of h. Every '/' is tried as a separator, so
// parts may themselves contain '/'. Each step moves to a strict ancestor, so the
// recursion is at most six deep.
func pathMatches(h *Heading, q string) bool {
	for k := strings.LastIndexByte(q, '/'); k >= 0; k = strings.LastIndexByte(q[:k], '/') {
		rest, last := q[:k], q[k+1:]
		if !headingMatches(h, last) {
			continue
		}
		for a := h.Parent; a != nil; a = a.Parent {
			if headingMatches(a, rest) || pathMatches(a, rest) {
				return true
			}
		}
	}
	return false
}

// headingMatches reports whether h matches q: "Text" or "## Text" (a heading whose
// text itself starts with "# " still matches its text as written).
func headingMatches(h *Heading, q string) bool {
	q = strings.TrimSpace(q)
	if q == "" {
		return false
	}
	ht := strings.TrimSpace(h.Text)
	if strings.EqualFold(ht, q) {
		return true
	}
	level := 0
	for level < len(q) && q[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || level < len(q) && q[level] != ' ' && q[level] != '\t' {
		return false
	}
	text := strings.TrimSpace(q[level:])
	return h.Level == level && text != "" && strings.EqualFold(ht, text)
}
