package note

import (
	"bytes"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// AddEdge appends the typed edge e to the frontmatter `edges:` list of the note
// raw and returns the new bytes; raw is not modified. The entry is written as
// {to, type, why} with `to` double-quoted (as SetField writes edges), after the
// last entry and indented like the others; every other byte stays as it was,
// including the other entries, their extra keys and comments. A note without an
// `edges:` list (or with an empty one) gets one, as SetField would write it.
//
// It refuses what SetField refuses (a frontmatter that does not parse: its
// *ParseError; a flow-style top level or odd line breaks: ErrUneditable), and with
// ErrUneditable a flow-style list whose entries hold more than to, type and why,
// or a layout where the edit would read any other value differently. It does not
// judge the edge (type, why, target): the write gates do.
func AddEdge(raw []byte, e Edge) ([]byte, error) {
	loc, err := locateEdges(raw)
	if err != nil {
		return nil, fmt.Errorf("add edge: %w", err)
	}
	var out []byte
	switch {
	case loc.empty:
		out, err = SetField(raw, "edges", []Edge{e})
	case loc.flow:
		out, err = loc.setLossless(raw, append(loc.note.Edges[:len(loc.note.Edges):len(loc.note.Edges)], e))
	default:
		var item []byte
		if item, err = encodeItem(e, loc.indent, loc.crlf); err == nil {
			at := loc.end
			out = make([]byte, 0, len(raw)+len(item)+2)
			out = append(out, raw[:at]...)
			if at > 0 && raw[at-1] != '\n' {
				out = append(out, loc.newline()...)
			}
			out = append(out, item...)
			out = append(out, raw[at:]...)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("add edge: %w", err)
	}
	keep := make([]int, len(loc.note.Edges))
	for i := range keep {
		keep[i] = i
	}
	if err := checkEdgesEdit(loc.note, out, keep, &e); err != nil {
		return nil, fmt.Errorf("add edge: %w", err)
	}
	return out, nil
}

// RemoveEdges removes the entries of the frontmatter `edges:` list for which
// drop(i, e) is true (i is the entry's index in the list) and returns the new bytes
// and how many entries it removed; raw is not modified. Each removed entry takes
// its lines with it (and the comment lines just before it); every other byte stays
// as it was. When no entry is left the `edges:` key is removed too. Nothing to
// remove returns a copy of raw. It refuses as AddEdge does.
func RemoveEdges(raw []byte, drop func(i int, e Edge) bool) ([]byte, int, error) {
	loc, err := locateEdges(raw)
	if err != nil {
		return nil, 0, fmt.Errorf("remove edges: %w", err)
	}
	var keep []int
	var kept []Edge
	for i, e := range loc.note.Edges {
		if !drop(i, e) {
			keep = append(keep, i)
			kept = append(kept, e)
		}
	}
	removed := len(loc.note.Edges) - len(keep)
	if removed == 0 {
		return bytes.Clone(raw), 0, nil
	}
	var out []byte
	switch {
	case len(keep) == 0:
		out, err = DeleteField(raw, "edges")
	case loc.flow:
		out, err = loc.setLossless(raw, kept)
	default:
		out = make([]byte, 0, len(raw))
		at := 0
		k := 0
		for i := range loc.items {
			if k < len(keep) && keep[k] == i {
				k++
				continue
			}
			s, e := loc.items[i].start, loc.items[i].end
			out = append(out, raw[at:s]...)
			at = e
		}
		out = append(out, raw[at:]...)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("remove edges: %w", err)
	}
	if err := checkEdgesEdit(loc.note, out, keep, nil); err != nil {
		return nil, 0, fmt.Errorf("remove edges: %w", err)
	}
	return out, removed, nil
}

// edgesLoc is where a note's `edges:` list is.
type edgesLoc struct {
	note  *Note
	empty bool // no edges key, or an empty or null value
	flow  bool // a flow-style list ([{...}, {...}])
	crlf  bool
	// lossless: every entry holds only to, type and why, as scalars, so the list
	// can be written again from note.Edges.
	lossless bool
	indent   int // column of the entries' '-' (block lists)
	end      int // offset in raw just past the last entry's lines
	items    []span
}

// span is a byte range [start, end) in a note's Raw.
type span struct{ start, end int }

func (l *edgesLoc) newline() []byte {
	if l.crlf {
		return []byte("\r\n")
	}
	return []byte("\n")
}

// setLossless writes the whole list again (flow style lists).
func (l *edgesLoc) setLossless(raw []byte, edges []Edge) ([]byte, error) {
	if !l.lossless {
		return nil, fmt.Errorf("the edges list is written in flow style ([...]) with keys other than to, type and why: %w", ErrUneditable)
	}
	return SetField(raw, "edges", edges)
}

// locateEdges parses raw's frontmatter and finds its edges list.
func locateEdges(raw []byte) (*edgesLoc, error) {
	n := &Note{Raw: raw}
	if _, perr := parseFrontmatter(n); perr != nil {
		return nil, perr
	}
	loc := &edgesLoc{note: n}
	fm := n.Frontmatter
	if fm == nil || fm.KeyLines["edges"] == 0 {
		loc.empty = true
		return loc, nil
	}
	b, _ := findBlock("", raw)
	loc.crlf = b.crlf
	text := raw[b.yamlStart:b.yamlEnd]
	d := newDecoder("", text, lineOf(raw, b.yamlStart))
	top, perr := d.parse(text)
	if perr != nil {
		return nil, perr
	}
	if top.Style&yaml.FlowStyle != 0 || d.breaks != nil {
		return nil, ErrUneditable
	}
	var key, seq *yaml.Node
	next := 0
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value == "edges" {
			key, seq = top.Content[i], top.Content[i+1]
			if i+2 < len(top.Content) {
				next = top.Content[i+2].Line
			}
		}
	}
	if seq.Kind != yaml.SequenceNode || len(seq.Content) == 0 {
		loc.empty = true
		return loc, nil
	}
	loc.lossless = true
	for _, item := range seq.Content {
		for j := 0; j+1 < len(item.Content); j += 2 {
			switch k := item.Content[j].Value; {
			case k != "to" && k != "type" && k != "why", item.Content[j+1].Kind != yaml.ScalarNode:
				loc.lossless = false
			}
		}
	}
	if seq.Style&yaml.FlowStyle != 0 {
		loc.flow = true
		return loc, nil
	}
	_, entryEnd := entrySpan(text, key.Line, next)
	dashes, indent, err := entryDashes(text, seq)
	if err != nil {
		return nil, err
	}
	loc.indent = indent
	// Each entry runs from the end of the previous entry's content (its leading
	// comment lines are its own) to the end of its own content: trailing blank and
	// comment lines belong to what follows.
	prev := dashes[0]
	for i := range dashes {
		end := entryEnd
		if i+1 < len(dashes) {
			end = dashes[i+1]
		}
		end = contentEnd(text, dashes[i], end)
		loc.items = append(loc.items, span{b.yamlStart + prev, b.yamlStart + end})
		prev = end
	}
	loc.end = loc.items[len(loc.items)-1].end
	return loc, nil
}

// entryDashes finds, in the frontmatter text, the start of the line of each
// block-sequence entry's '-' and the first entry's indent; ErrUneditable when an
// entry does not start with '-' on a line of its own.
func entryDashes(text []byte, seq *yaml.Node) (dashes []int, indent int, err error) {
	starts := lineStarts(text)
	for _, item := range seq.Content {
		off, ok := nodeOffset(text, starts, item.Line, item.Column)
		if !ok {
			return nil, 0, ErrUneditable
		}
		j := off - 1
		for j >= 0 && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r' || text[j] == '\n') {
			j--
		}
		if j < 0 || text[j] != '-' {
			return nil, 0, fmt.Errorf("an edges entry does not start with '-' where expected: %w", ErrUneditable)
		}
		ls := bytes.LastIndexByte(text[:j], '\n') + 1
		if strings.Trim(string(text[ls:j]), " ") != "" {
			return nil, 0, fmt.Errorf("an edges entry shares its line with other text: %w", ErrUneditable)
		}
		if len(dashes) == 0 {
			indent = j - ls
		}
		dashes = append(dashes, ls)
	}
	return dashes, indent, nil
}

// contentEnd steps to back from over trailing blank and comment lines, not
// before from: where an entry's own content ends.
func contentEnd(text []byte, from, to int) int {
	for to > from {
		ls := bytes.LastIndexByte(text[:to-1], '\n') + 1
		if ls < from {
			break
		}
		l := bytes.TrimLeft(text[ls:to], " \t\r\n")
		if len(l) > 0 && l[0] != '#' {
			break
		}
		to = ls
	}
	return to
}

// encodeItem writes e as one block list entry indented by indent spaces.
func encodeItem(e Edge, indent int, crlf bool) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: cannot marshal: %v", r)
		}
	}()
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{edgeNode(e)}}); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	pad := strings.Repeat(" ", indent)
	nl := "\n"
	if crlf {
		nl = "\r\n"
	}
	var b strings.Builder
	for l := range strings.SplitAfterSeq(buf.String(), "\n") {
		if l == "" {
			continue
		}
		b.WriteString(pad)
		b.WriteString(strings.TrimSuffix(l, "\n"))
		b.WriteString(nl)
	}
	return []byte(b.String()), nil
}

// checkEdgesEdit reads the edited note out back: every top-level key but edges
// keeps its value and place, the body is byte-identical, and the edges list holds
// the entries keep of before (decoded values identical, extra keys included)
// followed by added, when not nil.
func checkEdgesEdit(before *Note, out []byte, keep []int, added *Edge) error {
	got := &Note{Raw: out}
	if _, perr := parseFrontmatter(got); perr != nil {
		return perr
	}
	if !bytes.Equal(out[got.BodyStart:], before.Raw[before.BodyStart:]) {
		return fmt.Errorf("the edit would change the body: %w", ErrUneditable)
	}
	var oldKeys []string
	var oldFields map[string]any
	if before.Frontmatter != nil {
		oldKeys, oldFields = before.Frontmatter.Keys, before.Frontmatter.Fields
	}
	var newKeys []string
	var newFields map[string]any
	if got.Frontmatter != nil {
		newKeys, newFields = got.Frontmatter.Keys, got.Frontmatter.Fields
	}
	strip := func(keys []string) []string {
		var out []string
		for _, k := range keys {
			if k != "edges" {
				out = append(out, k)
			}
		}
		return out
	}
	ok, nk := strip(oldKeys), strip(newKeys)
	if len(ok) != len(nk) {
		return fmt.Errorf("the edit would change other keys: %w", ErrUneditable)
	}
	for i, k := range ok {
		if nk[i] != k || !sameValue(oldFields[k], newFields[k]) {
			return fmt.Errorf("the edit would change the key %s: %w", k, ErrUneditable)
		}
	}
	oldList, _ := oldFields["edges"].([]any)
	newList, _ := newFields["edges"].([]any)
	want := len(keep)
	if added != nil {
		want++
	}
	if len(newList) != want || len(got.Edges) != want {
		return fmt.Errorf("the edit would leave %d edges, want %d: %w", len(got.Edges), want, ErrUneditable)
	}
	for j, i := range keep {
		if i >= len(oldList) || !sameValue(oldList[i], newList[j]) {
			return fmt.Errorf("the edit would change edge %d: %w", i+1, ErrUneditable)
		}
	}
	if added != nil {
		g := got.Edges[want-1]
		to := added.To
		if to == "" {
			to = "[[" + added.Target + "]]"
		}
		if g.To != strings.TrimSpace(to) || g.Type != strings.TrimSpace(added.Type) || g.Why != strings.TrimSpace(added.Why) {
			return fmt.Errorf("the new edge reads back as %+v: %w", g, ErrUneditable)
		}
	}
	return nil
}
