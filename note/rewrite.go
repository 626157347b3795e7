package note

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// ErrRewrite is matched (errors.Is) by every error of RewriteLinks: a new target
// that cannot be written in the link's syntax (a wikilink target holding "|", "#"
// or "]]", a line break, invalid UTF-8), an edge whose `to` cannot be edited in
// place, or a result that would not read back as the same links with the new
// targets.
var ErrRewrite = errors.New("link cannot be rewritten")

// rewriteErrorf returns an error matching ErrRewrite.
func rewriteErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrRewrite, fmt.Sprintf(format, args...))
}

// EdgeLinks returns the `to` of each of n's typed edges, in list order, as the
// wikilink it names: Kind LinkWiki; Target, Heading, Block and Alias split as for
// "[[...]]" ("[[T#h|x]]" gives T, h, x; a bare `to: T#h` gives T and h); Line is
// the line of the `to` value; Start and End are the byte range in n.Raw of the
// value as written, quotes included, always before n.BodyStart. Start and End are
// both 0 when the value cannot be located exactly (a multi-line or block scalar,
// or frontmatter with line breaks YAML counts but the note does not); such an
// edge can be resolved but not rewritten.
func EdgeLinks(n *Note) []Link {
	if n.Frontmatter == nil || len(n.Edges) == 0 {
		return nil
	}
	sites := edgeSites(n)
	out := make([]Link, len(n.Edges))
	for i, e := range n.Edges {
		l := Link{Kind: LinkWiki, Line: e.Line}
		if content, ok := wikiContent(e.To); ok {
			l.Target, l.Heading, l.Block, l.Alias = splitWiki(content)
		} else {
			l.Target = strings.TrimSpace(e.To)
			if h := strings.IndexByte(l.Target, '#'); h >= 0 {
				frag := strings.TrimSpace(l.Target[h+1:])
				l.Target = strings.TrimSpace(l.Target[:h])
				if b, isBlock := strings.CutPrefix(frag, "^"); isBlock {
					l.Block = strings.TrimSpace(b)
				} else {
					l.Heading = frag
				}
			}
		}
		if i < len(sites) && sites[i].ok {
			l.Start, l.End, l.Line = sites[i].start, sites[i].end, sites[i].line
		}
		out[i] = l
	}
	return out
}

// RewriteLinks returns n's bytes with link targets replaced where fn says so. fn is
// called once per link site: first each typed edge's `to` (as EdgeLinks gives
// them), then each of n.Links, in order. It returns the new target and true to
// rewrite, or false (or the same target) to keep the link as it is.
//
// Only the target is replaced. A wikilink or embed keeps its "!", "#heading",
// "#^block", "|alias" and the escaped "\|" of a table cell. A Markdown link keeps
// its text, "#fragment", "?query" and title, and the form of its destination:
// "<...>" stays "<...>"; a destination that was percent-encoded stays encoded
// (spaces as %20); a bare destination encodes what it cannot hold (spaces, "#",
// "?", parentheses). For a Markdown link the new target is the path relative to
// the note's folder, decoded (see RelativeTarget). An edge's `to` keeps its YAML
// quoting ("[[X]]" stays double-quoted, a bare `to: X` stays bare when it can).
//
// When fn changes nothing the result is a copy of n.Raw, byte for byte. Every
// other result is checked by reading it back: the same links, in the same order,
// with the new targets and everything else as before, and the same edges with the
// new `to`. An error matches ErrRewrite and n.Raw is never modified.
func RewriteLinks(n *Note, fn func(l Link) (newTarget string, ok bool)) ([]byte, error) {
	raw := n.Raw
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	edges := EdgeLinks(n)
	wantTo := make([]string, len(n.Edges))
	for i, l := range edges {
		wantTo[i] = n.Edges[i].To
		nt, ok := fn(l)
		if !ok || nt == l.Target {
			continue
		}
		if l.End == 0 {
			return nil, rewriteErrorf("%s:%d: the edge's to %q cannot be edited in place (write it on one line, quoted)", n.Path, l.Line, n.Edges[i].To)
		}
		to, text, err := rewriteEdgeTo(raw[l.Start:l.End], n.Edges[i].To, nt)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", n.Path, l.Line, err)
		}
		wantTo[i] = to
		edits = append(edits, edit{l.Start, l.End, text})
	}
	want := make([]Link, len(n.Links))
	for i, l := range n.Links {
		want[i] = l
		nt, ok := fn(l)
		if !ok || nt == l.Target {
			continue
		}
		var s, e int
		var text string
		var err error
		if l.Kind == LinkMarkdown {
			s, e, text, err = rewriteMarkdown(raw, l, nt)
		} else {
			s, e, text, err = rewriteWiki(raw, l, nt)
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", n.Path, l.Line, err)
		}
		want[i].Target = nt
		edits = append(edits, edit{s, e, text})
	}
	if len(edits) == 0 {
		return bytes.Clone(raw), nil
	}
	// Edits are disjoint but not always in order: a wikilink inside a Markdown
	// link's text comes after that link in n.Links.
	sort.Slice(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	// The text of a Markdown link (its Alias) changes with the links inside it.
	for i, l := range want {
		if l.Kind != LinkMarkdown || !strings.Contains(l.Alias, "[[") {
			continue
		}
		ts := l.Start + 1
		if raw[l.Start] == '!' {
			ts++
		}
		te := ts + len(l.Alias)
		var b strings.Builder
		at := ts
		for _, ed := range edits {
			if ed.start >= ts && ed.end <= te {
				b.Write(raw[at:ed.start])
				b.WriteString(ed.text)
				at = ed.end
			}
		}
		b.Write(raw[at:te])
		want[i].Alias = b.String()
	}
	out := make([]byte, 0, len(raw)+64)
	at := 0
	for _, ed := range edits {
		if ed.start < at {
			return nil, rewriteErrorf("%s: overlapping link edits", n.Path)
		}
		out = append(out, raw[at:ed.start]...)
		out = append(out, ed.text...)
		at = ed.end
	}
	out = append(out, raw[at:]...)
	if err := checkRewrite(n, out, want, wantTo); err != nil {
		return nil, err
	}
	return out, nil
}

// checkRewrite reads out back: its body must hold the links want (kind, target,
// heading, block, alias and line) and, when n has edges, its frontmatter must hold
// the same edges with the `to` values wantTo.
func checkRewrite(n *Note, out []byte, want []Link, wantTo []string) error {
	got := &Note{Path: n.Path, Raw: out}
	start := bodyOffset(out)
	if len(n.Edges) > 0 {
		if _, perr := parseFrontmatter(got); perr != nil {
			return rewriteErrorf("%s: the rewritten frontmatter does not parse: %v", n.Path, perr)
		}
		if len(got.Edges) != len(n.Edges) {
			return rewriteErrorf("%s: the rewrite changed the number of edges", n.Path)
		}
		for i, e := range got.Edges {
			o := n.Edges[i]
			if e.To != wantTo[i] || e.Type != o.Type || e.Why != o.Why {
				return rewriteErrorf("%s:%d: the rewritten edge reads back as to %q, want %q", n.Path, e.Line, e.To, wantTo[i])
			}
		}
		got.Links, got.Tags, got.Aliases, got.Edges = nil, nil, nil, nil
	}
	s := bodyScanner{raw: out, note: got}
	s.inl.raw, s.inl.note = out, got
	s.scan(start)
	if len(got.Links) != len(want) {
		return rewriteErrorf("%s: the rewrite changed the number of links from %d to %d", n.Path, len(want), len(got.Links))
	}
	for i, l := range got.Links {
		w := want[i]
		if l.Kind != w.Kind || l.Target != w.Target || l.Heading != w.Heading || l.Block != w.Block || l.Alias != w.Alias || l.Line != w.Line {
			return rewriteErrorf("%s:%d: the rewritten link reads back as %s %q, want %q", n.Path, w.Line, l.Kind, l.Target, w.Target)
		}
	}
	return nil
}

// bodyOffset returns where the body of raw starts: after a frontmatter block
// opened on the first line and closed by a "---" or "..." line (whatever its
// size), or 0.
func bodyOffset(raw []byte) int {
	start := 0
	if bytes.HasPrefix(raw, []byte(bom)) {
		start = len(bom)
	}
	eol, next := lineEnd(raw, start)
	if !isDelimiter(raw[start:eol], false) {
		return 0
	}
	for pos := next; pos < len(raw); {
		e, n := lineEnd(raw, pos)
		if isDelimiter(raw[pos:e], true) {
			return n
		}
		pos = n
	}
	return 0
}

// wikiContent returns the inside of "[[...]]".
func wikiContent(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 4 || !strings.HasPrefix(s, "[[") || !strings.HasSuffix(s, "]]") {
		return "", false
	}
	return s[2 : len(s)-2], true
}

// wikiTargetSpan returns the byte range [s, e) of the target within the inside of
// a wikilink ("target#heading|alias"), as splitWiki reads it: before the first
// '|' (less the '\' of an escaped "\|") and the first '#', without blanks.
func wikiTargetSpan(content string) (s, e int) {
	pre := content
	if p := strings.IndexByte(content, '|'); p >= 0 {
		pre = strings.TrimSuffix(content[:p], `\`)
	}
	if h := strings.IndexByte(pre, '#'); h >= 0 {
		pre = pre[:h]
	}
	s = len(pre) - len(strings.TrimLeftFunc(pre, unicode.IsSpace))
	e = len(strings.TrimRightFunc(pre, unicode.IsSpace))
	if e < s {
		e = s
	}
	return s, e
}

// checkWikiTarget says why t cannot be the target of a wikilink whose inside
// continues with rest (the "#heading|alias" part), or returns nil.
func checkWikiTarget(t, rest string) error {
	switch {
	case !utf8.ValidString(t):
		return rewriteErrorf("new target %q is not valid UTF-8", t)
	case strings.ContainsAny(t, "|#\n\r"):
		return rewriteErrorf("new target %q holds '|', '#' or a line break, which a wikilink cannot hold", t)
	case strings.Contains(t, "]]") || strings.Contains(t, "[["):
		return rewriteErrorf("new target %q holds \"[[\" or \"]]\"", t)
	case t != strings.TrimSpace(t):
		return rewriteErrorf("new target %q starts or ends with a blank", t)
	case t == "" && !strings.HasPrefix(rest, "#"):
		return rewriteErrorf("new target is empty")
	case strings.HasSuffix(t, `\`) && strings.HasPrefix(rest, "|"), strings.HasSuffix(t, "]") && rest == "":
		return rewriteErrorf("new target %q would run into the link's end", t)
	}
	return nil
}

// replaceWikiTarget returns content with its target replaced by t.
func replaceWikiTarget(content, t string) (string, error) {
	s, e := wikiTargetSpan(content)
	if err := checkWikiTarget(t, content[e:]); err != nil {
		return "", err
	}
	return content[:s] + t + content[e:], nil
}

// rewriteWiki returns the edit replacing the target of the wikilink or embed l.
func rewriteWiki(raw []byte, l Link, t string) (int, int, string, error) {
	open := l.Start + 2
	if raw[l.Start] == '!' {
		open++
	}
	close := l.End - 2
	if open > close || string(raw[open-2:open]) != "[[" || string(raw[close:l.End]) != "]]" {
		return 0, 0, "", rewriteErrorf("link at offset %d is not a wikilink", l.Start)
	}
	content, err := replaceWikiTarget(string(raw[open:close]), t)
	if err != nil {
		return 0, 0, "", err
	}
	return open, close, content, nil
}

// rewriteMarkdown returns the edit replacing the path of the Markdown link l's
// destination with t (a relative path, decoded).
func rewriteMarkdown(raw []byte, l Link, t string) (int, int, string, error) {
	ds, de, angle, ok := mdDestSpan(raw, l)
	if !ok {
		return 0, 0, "", rewriteErrorf("cannot find the destination of the link at offset %d", l.Start)
	}
	if !utf8.ValidString(t) || t == "" || strings.ContainsAny(t, "\n\r") {
		return 0, 0, "", rewriteErrorf("new target %q cannot be a link destination", t)
	}
	dest := raw[ds:de]
	pe := len(dest) // end of the path part: the first '#' or '?' (an escaped one too)
	if i := bytes.IndexAny(dest, "#?"); i >= 0 {
		pe = i
		if pe > 0 && dest[pe-1] == '\\' {
			pe--
		}
	}
	path := dest[:pe]
	pct, pctHigh := percentStyle(path)
	image := raw[l.Start] == '!'
	enc := encodeDest(t, angle, pct, pctHigh)
	if !destReads(enc, dest[pe:], image, t) {
		// Encode everything that could be read otherwise.
		enc = encodeDest(t, angle, true, pctHigh)
		if !destReads(enc, dest[pe:], image, t) {
			return 0, 0, "", rewriteErrorf("new target %q cannot be written as a link destination", t)
		}
	}
	return ds, ds + pe, enc, nil
}

// destReads reports whether the destination path enc followed by rest reads as
// the note link target t.
func destReads(enc string, rest []byte, image bool, t string) bool {
	d := append([]byte(enc), rest...)
	got, _, _, ok := noteDest(d, image)
	return ok && got == t
}

// mdDestSpan finds the destination of the Markdown link l in raw: the byte range
// inside "<...>" (angle) or of the bare destination.
func mdDestSpan(raw []byte, l Link) (ds, de int, angle, ok bool) {
	br := l.Start
	if raw[br] == '!' {
		br++
	}
	textEnd := br + 1 + len(l.Alias)
	if raw[br] != '[' || textEnd+1 >= l.End || raw[textEnd] != ']' || raw[textEnd+1] != '(' {
		return 0, 0, false, false
	}
	ds, de, _, angle, ok = linkDest(raw, skipLinkSpace(raw, textEnd+2, l.End), l.End)
	return ds, de, angle, ok && (angle || de > ds)
}

// percentStyle reports whether path holds a valid %XX escape, and whether one of
// them encodes a non-ASCII byte (%80 to %FF).
func percentStyle(path []byte) (pct, high bool) {
	for i := 0; i+2 < len(path); i++ {
		if path[i] == '%' && isHex(path[i+1]) && isHex(path[i+2]) {
			pct = true
			if path[i+1] >= '8' {
				high = true
			}
		}
	}
	return pct, high
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// encodeDest writes the path t as a link destination. pct encodes spaces (always
// in a bare destination) and every byte that could be read as something else;
// high encodes non-ASCII bytes too. '%', '#', '?', '\' and controls are always
// encoded, and so are parentheses in a bare destination and '<', '>' anywhere.
func encodeDest(t string, angle, pct, high bool) string {
	var b strings.Builder
	for i := 0; i < len(t); i++ {
		c := t[i]
		enc := false
		switch {
		case c == ' ':
			enc = pct || !angle
		case c == '%', c == '#', c == '?', c == '\\', c < 0x20, c == 0x7f, c == '<', c == '>':
			enc = true
		case c == '(' || c == ')':
			enc = !angle
		case c >= 0x80:
			enc = high
		}
		if enc {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// RelativeTarget returns the path of the note at to relative to the folder of the
// note at from, in the style of old (a Markdown link's target as written, or a
// relative wikilink's): "./" is kept when old starts with it and the path does not
// climb, and ".md" is dropped when old has none (unless the file name without it
// would hold a '.', which would no longer read as a note link). Folders are compared as written
// (case-sensitively, as git does).
func RelativeTarget(from, to Path, old string) string {
	var fp []string
	if f := from.Folder(); f != "" {
		fp = strings.Split(f, "/")
	}
	tp := strings.Split(string(to), "/")
	k := 0
	for k < len(fp) && k < len(tp)-1 && fp[k] == tp[k] {
		k++
	}
	rel := strings.Repeat("../", len(fp)-k) + strings.Join(tp[k:], "/")
	if strings.HasPrefix(old, "./") && !strings.HasPrefix(rel, "../") {
		rel = "./" + rel
	}
	if !hasMDSuffix(old) && hasMDSuffix(rel) {
		// Without ".md" a last segment must hold no '.' to stay a note link.
		if short := rel[:len(rel)-3]; !strings.Contains(short[strings.LastIndexByte(short, '/')+1:], ".") {
			rel = short
		}
	}
	return rel
}

// edgeSite is where one edge's `to` value is in a note's Raw.
type edgeSite struct {
	start, end, line int
	ok               bool
}

// edgeSites locates the `to` value of every entry of n's edges list (nil when the
// list cannot be read again, which Parse would have refused).
func edgeSites(n *Note) []edgeSite {
	fm := n.Frontmatter
	_, yamlStart := lineEnd(n.Raw, fm.Start)
	text := fm.YAML
	d := newDecoder(n.Path, text, lineOf(n.Raw, yamlStart))
	if d.breaks != nil {
		return nil // YAML's line numbers are not the note's
	}
	top, perr := d.parse(text)
	if perr != nil || top == nil {
		return nil
	}
	seq := mapValue(top, "edges")
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return nil
	}
	starts := lineStarts(text)
	out := make([]edgeSite, len(seq.Content))
	for i, item := range seq.Content {
		v := mapValue(item, "to")
		if v == nil {
			continue
		}
		flow := seq.Style&yaml.FlowStyle != 0 || item.Style&yaml.FlowStyle != 0
		s, e, ok := scalarSpan(text, starts, v, flow)
		if ok {
			out[i] = edgeSite{start: yamlStart + s, end: yamlStart + e, line: d.line(v.Line), ok: true}
		}
	}
	return out
}

// mapValue returns the value of key in the mapping node m, or nil.
func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// lineStarts returns the offset of each line of text; starts[k] is line k+1.
func lineStarts(text []byte) []int {
	starts := []int{0}
	for i, c := range text {
		if c == '\n' && i+1 <= len(text) {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// nodeOffset returns the byte offset in text of a node's 1-based line and column
// (the YAML library counts columns in characters).
func nodeOffset(text []byte, starts []int, line, col int) (int, bool) {
	if line < 1 || line > len(starts) || col < 1 {
		return 0, false
	}
	off := starts[line-1]
	for range col - 1 {
		if off >= len(text) || text[off] == '\n' {
			return 0, false
		}
		_, size := utf8.DecodeRune(text[off:])
		off += size
	}
	return off, true
}

// scalarSpan returns the byte range in text of the single-line scalar v as written
// (quotes included). It refuses block scalars, multi-line scalars and any span
// that does not decode to v's value.
func scalarSpan(text []byte, starts []int, v *yaml.Node, flow bool) (int, int, bool) {
	if v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
		return 0, 0, false
	}
	s, ok := nodeOffset(text, starts, v.Line, v.Column)
	if !ok || s >= len(text) {
		return 0, 0, false
	}
	e := -1
	switch {
	case v.Style&yaml.DoubleQuotedStyle != 0:
		if text[s] != '"' {
			return 0, 0, false
		}
		for j := s + 1; j < len(text) && text[j] != '\n'; j++ {
			if text[j] == '\\' {
				j++
				continue
			}
			if text[j] == '"' {
				e = j + 1
				break
			}
		}
	case v.Style&yaml.SingleQuotedStyle != 0:
		if text[s] != '\'' {
			return 0, 0, false
		}
		for j := s + 1; j < len(text) && text[j] != '\n'; j++ {
			if text[j] == '\'' {
				if j+1 < len(text) && text[j+1] == '\'' {
					j++
					continue
				}
				e = j + 1
				break
			}
		}
	case v.Style&(yaml.LiteralStyle|yaml.FoldedStyle|yaml.TaggedStyle) != 0:
		return 0, 0, false
	default: // plain
		j := s
		for j < len(text) && text[j] != '\n' {
			c := text[j]
			if c == '#' && j > s && (text[j-1] == ' ' || text[j-1] == '\t') {
				break
			}
			if flow && (c == ',' || c == ']' || c == '}') {
				break
			}
			j++
		}
		for j > s && (text[j-1] == ' ' || text[j-1] == '\t' || text[j-1] == '\r') {
			j--
		}
		if string(text[s:j]) != v.Value {
			return 0, 0, false
		}
		e = j
	}
	if e < 0 || decodeScalar(text[s:e]) != v.Value {
		return 0, 0, false
	}
	return s, e, true
}

// decodeScalar decodes one YAML scalar written alone ("" when it does not decode
// to a string).
func decodeScalar(b []byte) string {
	var doc yaml.Node
	if err := unmarshal(append([]byte("k: "), b...), &doc); err != nil || len(doc.Content) == 0 {
		return ""
	}
	v := mapValue(doc.Content[0], "k")
	if v == nil || v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
		return ""
	}
	return v.Value
}

// rewriteEdgeTo returns an edge's new `to` value (decoded) and its YAML text, in
// the style of written (the value as it stands in the note).
func rewriteEdgeTo(written []byte, to, t string) (string, string, error) {
	var nt string
	if content, ok := wikiContent(to); ok {
		c, err := replaceWikiTarget(content, t)
		if err != nil {
			return "", "", err
		}
		nt = "[[" + c + "]]"
	} else {
		// A bare `to: Target#heading`.
		pre := to
		rest := ""
		if h := strings.IndexByte(to, '#'); h >= 0 {
			pre, rest = to[:h], to[h:]
		}
		s := len(pre) - len(strings.TrimLeftFunc(pre, unicode.IsSpace))
		e := max(s, len(strings.TrimRightFunc(pre, unicode.IsSpace)))
		if err := checkWikiTarget(t, rest); err != nil {
			return "", "", err
		}
		nt = pre[:s] + t + pre[e:] + rest
	}
	var text string
	switch written[0] {
	case '"':
		text = doubleQuote(nt)
	case '\'':
		if strings.ContainsFunc(nt, unicode.IsControl) {
			text = doubleQuote(nt)
		} else {
			text = "'" + strings.ReplaceAll(nt, "'", "''") + "'"
		}
	default:
		text = nt
		if decodeScalar([]byte(nt)) != nt || strings.ContainsAny(nt, ",[]{}") {
			text = doubleQuote(nt)
		}
	}
	if decodeScalar([]byte(text)) != nt {
		return "", "", rewriteErrorf("new to %q cannot be written as YAML", nt)
	}
	return strings.TrimSpace(nt), text, nil
}

// doubleQuote writes s as a YAML double-quoted scalar.
func doubleQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r == 0x85 || r == 0x2028 || r == 0x2029 || r == 0xfeff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
