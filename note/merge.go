package note

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"time"

	"go.yaml.in/yaml/v3"
)

// Merge is the outcome of Merge3: the bytes to keep at the note's path, and what
// could not be merged. A conflicted merge keeps ours wherever the sides disagree;
// theirs' version of the note belongs in a sibling (ConflictPath, ConflictNote).
type Merge struct {
	Bytes     []byte
	Conflicts []Conflict
}

// Clean reports whether both sides merged without a conflict.
func (m Merge) Clean() bool { return len(m.Conflicts) == 0 }

// ConflictKind says what part of a note a conflict is about.
type ConflictKind string

// The conflict kinds.
const (
	// ConflictWhole: the note could not be merged at all (a side's frontmatter does
	// not parse, or cannot be edited in place); Merge.Bytes is ours, unchanged.
	ConflictWhole ConflictKind = "note"
	// ConflictField: both sides changed one frontmatter key differently; ours'
	// value is kept.
	ConflictField ConflictKind = "field"
	// ConflictLines: both sides changed the same body lines differently; ours'
	// lines are kept.
	ConflictLines ConflictKind = "lines"
)

// Conflict is one thing both sides changed differently.
type Conflict struct {
	Kind ConflictKind
	// Key is the frontmatter key of a ConflictField.
	Key string
	// Line is the 1-based line in Merge.Bytes where ours' lines of a ConflictLines
	// start, and Lines how many there are (0 when ours deleted the region).
	Line, Lines int
	// Ours and Theirs are each side's text of the conflicting key entry or lines,
	// with their line breaks (nil when that side has no such key or lines).
	Ours, Theirs []byte
	// Reason says why a ConflictWhole could not be merged.
	Reason string
}

// Merge3 merges two versions of one note, ours and theirs, that both descend
// from base (nil or empty when both sides created the note). It is pure and
// total: any input gives a result, never a panic or an error.
//
// Identical sides, or a side equal to base, give the other side's bytes exactly.
// Otherwise the frontmatter merges key by key and the body line by line
// (docs/sync.md, "How a note merges"): a change made on one side is taken, the
// same change made on both is taken once, and list values (tags, aliases, edges,
// any list) merge as sets. What both sides changed differently keeps ours and is
// reported in Conflicts. Ours' bytes are kept wherever ours is kept: its line
// breaks, final newline and the formatting of untouched keys; lines taken from
// theirs get ours' line break. Conflict markers are never written. It is for
// notes: an attachment never merges by lines (its theirs goes to a sibling whole).
func Merge3(base, ours, theirs []byte) Merge {
	switch {
	case bytes.Equal(ours, theirs), bytes.Equal(base, theirs):
		return Merge{Bytes: bytes.Clone(ours)}
	case bytes.Equal(base, ours):
		return Merge{Bytes: bytes.Clone(theirs)}
	}
	whole := func(reason string) Merge {
		return Merge{Bytes: bytes.Clone(ours), Conflicts: []Conflict{{Kind: ConflictWhole, Reason: reason}}}
	}
	var sides [3]*side
	for i, raw := range [][]byte{base, ours, theirs} {
		sides[i] = splitNote(raw, [3]string{"the base's", "our", "their"}[i])
		if sides[i].err != nil {
			return whole(sides[i].err.Error())
		}
	}
	b, o, t := sides[0], sides[1], sides[2]
	eol := cmp.Or(eolOf(ours), eolOf(theirs), eolOf(base), "\n")
	head, conflicts, err := mergeHead(b, o, t, eol)
	if err != nil {
		return whole(err.Error())
	}
	body, lcs, ok := mergeBody(b, o, t, eol)
	if !ok {
		return whole("the note has too many distinct lines to merge")
	}
	out := append(head, body...)
	if _, perr := checkEdit(out); perr != nil {
		return whole(fmt.Sprintf("the merged frontmatter does not parse: %v", perr))
	}
	headLines := bytes.Count(head, []byte{'\n'})
	for _, lc := range lcs {
		c := Conflict{Kind: ConflictLines, Line: headLines + lc.at + 1, Lines: len(lc.ours)}
		if len(lc.ours) > 0 {
			c.Ours = joinLines(lc.ours)
		}
		if len(lc.th) > 0 {
			c.Theirs = joinLines(lc.th)
		}
		conflicts = append(conflicts, c)
	}
	return Merge{Bytes: out, Conflicts: conflicts}
}

// side is one version of a note cut into its head (byte order mark and
// frontmatter block; empty without a block) and body, with the block parsed.
type side struct {
	head, body []byte
	fm         *fmBlock // nil without a block, or when it does not parse
	// err says why the note cannot be cut (an unterminated or oversized block);
	// fmErr why its block does not parse, which matters only if its keys must merge.
	err, fmErr error
}

// fmBlock is a parsed frontmatter block.
type fmBlock struct {
	text   []byte // the YAML between the delimiters
	top    *yaml.Node
	fields map[string]any
	keys   []string
}

// splitNote cuts raw, one version of a note; who ("our", …) names it in errors.
func splitNote(raw []byte, who string) *side {
	b, perr := findBlock("", raw)
	if perr != nil {
		return &side{err: unmergeable(who, perr)}
	}
	if !b.found {
		return &side{body: raw}
	}
	s := &side{head: raw[:b.end], body: raw[b.end:]}
	fm := &fmBlock{text: raw[b.yamlStart:b.yamlEnd]}
	d := newDecoder("", fm.text, lineOf(raw, b.yamlStart))
	top, perr := d.parse(fm.text)
	var meta Frontmatter
	var fields map[string]any
	if perr == nil {
		fields, perr = d.top(top, &meta)
	}
	if perr != nil {
		s.fmErr = unmergeable(who, perr)
		return s
	}
	fm.top, fm.fields, fm.keys = top, fields, meta.Keys
	s.fm = fm
	return s
}

// unmergeable says why who's frontmatter cannot be merged.
func unmergeable(who string, perr *ParseError) error {
	return fmt.Errorf("%s frontmatter cannot be merged: line %d: %s: %s", who, perr.Line, perr.Rule, perr.Msg)
}

// mergeHead merges the frontmatter blocks. A block only one side changed (line
// breaks aside) is taken whole, with ours' line breaks; otherwise the keys merge,
// which needs every side's block to parse.
func mergeHead(b, o, t *side, eol string) ([]byte, []Conflict, error) {
	hb, ho, ht := withEOL(b.head, "\n"), withEOL(o.head, "\n"), withEOL(t.head, "\n")
	switch {
	case bytes.Equal(ho, ht), bytes.Equal(ht, hb):
		return bytes.Clone(o.head), nil, nil
	case bytes.Equal(ho, hb):
		return withEOL(t.head, eol), nil, nil
	}
	if err := cmp.Or(o.fmErr, t.fmErr, b.fmErr); err != nil {
		return nil, nil, err
	}
	head, conflicts := mergeFields(b.fm, o.fm, t.fm, o.head)
	if len(o.head) == 0 {
		head = withEOL(head, eol) // a new block: ours' line breaks
	}
	return head, conflicts, nil
}

// mergeFields merges the keys of three frontmatter blocks into ours' head (any
// of the blocks may be nil) and returns the new head.
func mergeFields(b, o, t *fmBlock, head []byte) ([]byte, []Conflict) {
	var conflicts []Conflict
	cur := bytes.Clone(head)
	for _, k := range unionKeys(o, t) {
		bv, bok := b.get(k)
		ov, ook := o.get(k)
		tv, tok := t.get(k)
		eq := func(x any, xok bool, y any, yok bool) bool { return xok == yok && (!xok || sameValue(x, y)) }
		var next []byte
		var err error
		switch {
		case eq(ov, ook, tv, tok), eq(tv, tok, bv, bok):
			continue
		case eq(ov, ook, bv, bok) && !tok:
			next, err = DeleteField(cur, k)
		case eq(ov, ook, bv, bok):
			next, err = takeTheirs(cur, k, t)
		case k == updatedKey && isLater(ov, tv):
			continue // both bumped the date: the later one stands
		case k == updatedKey && isLater(tv, ov):
			next, err = takeTheirs(cur, k, t)
		default:
			merged, ok := setMerge(bv, bok, ov, ook, tv, tok)
			if !ok {
				err = errKeyConflict
				break
			}
			next, err = setList(cur, k, merged, o.node(k))
			if err == nil && !valueIs(next, k, merged) {
				err = errKeyConflict
			}
		}
		if err != nil {
			conflicts = append(conflicts, Conflict{Kind: ConflictField, Key: k, Ours: o.entry(k), Theirs: t.entry(k)})
			continue
		}
		cur = next
	}
	return cur, conflicts
}

// takeTheirs sets key k in cur to theirs' value: theirs' entry as written when it
// reads the same in ours' block (indentation can change what YAML makes of it),
// else the value written anew.
func takeTheirs(cur []byte, k string, t *fmBlock) ([]byte, error) {
	tv, _ := t.get(k)
	if next, err := editField(cur, k, t.entry(k)); err == nil && valueIs(next, k, tv) {
		return next, nil
	}
	next, err := SetField(cur, k, tv)
	if err != nil {
		return nil, err
	}
	if !valueIs(next, k, tv) {
		return nil, errKeyConflict
	}
	return next, nil
}

// valueIs reports whether the frontmatter of raw has key k with value v.
func valueIs(raw []byte, k string, v any) bool {
	got, ok := splitNote(raw, "").fm.get(k)
	return ok && sameValue(got, v)
}

// updatedKey is the frontmatter key of a note's last-change date. When both sides
// set it to different dates, the later one is taken rather than reported: every
// edit bumps it, so two edits on different days would otherwise always conflict.
const updatedKey = "updated"

// isLater reports whether x and y are both dates (YAML timestamps) and x is not
// before y.
func isLater(x, y any) bool {
	a, ok1 := x.(time.Time)
	b, ok2 := y.(time.Time)
	return ok1 && ok2 && !a.Before(b)
}

// errKeyConflict marks a key both sides changed to different values that do not
// merge as sets; it never leaves the package.
var errKeyConflict = errors.New("both sides changed the key")

// unionKeys is ours' keys, then theirs' keys ours does not have, in their order.
func unionKeys(o, t *fmBlock) []string {
	var keys []string
	seen := map[string]bool{}
	for _, f := range []*fmBlock{o, t} {
		if f == nil {
			continue
		}
		for _, k := range f.keys {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	return keys
}

func (f *fmBlock) get(k string) (any, bool) {
	if f == nil {
		return nil, false
	}
	v, ok := f.fields[k]
	return v, ok
}

// node returns the value node of top-level key k, or nil.
func (f *fmBlock) node(k string) *yaml.Node {
	if f == nil || f.top == nil {
		return nil
	}
	for i := 0; i+1 < len(f.top.Content); i += 2 {
		if f.top.Content[i].Value == k {
			return f.top.Content[i+1]
		}
	}
	return nil
}

// entry returns the text of key k's entry as written ("k: v\n" and its value's
// lines), with "\n" line breaks and the block's indentation removed; nil when the
// block has no such key.
func (f *fmBlock) entry(k string) []byte {
	if f == nil || f.top == nil {
		return nil
	}
	c := f.top.Content
	for i := 0; i+1 < len(c); i += 2 {
		if c[i].Value != k {
			continue
		}
		next := 0
		if i+2 < len(c) {
			next = c[i+2].Line
		}
		from, to := entrySpan(f.text, c[i].Line, next)
		text := withEOL(f.text[from:to], "\n")
		if pad := f.top.Column - 1; pad > 0 {
			var out []byte
			for _, l := range bytes.SplitAfter(text, []byte("\n")) {
				n := 0
				for n < pad && n < len(l) && l[n] == ' ' {
					n++
				}
				out = append(out, l[n:]...)
			}
			text = out
		}
		return text
	}
	return nil
}

// setMerge merges list values as sets: ours' items less those theirs removed,
// then the items theirs added, in theirs' order. ok is false unless every present
// value is a list (a missing base counts as an empty list) and both sides have one.
func setMerge(bv any, bok bool, ov any, ook bool, tv any, tok bool) ([]any, bool) {
	ol, ok1 := ov.([]any)
	tl, ok2 := tv.([]any)
	bl, ok3 := bv.([]any)
	if !ook || !tok || !ok1 || !ok2 || (bok && !ok3) {
		return nil, false
	}
	has := func(l []any, x any) bool {
		for _, y := range l {
			if sameValue(x, y) {
				return true
			}
		}
		return false
	}
	out := []any{}
	for _, x := range ol {
		if !has(bl, x) || has(tl, x) {
			out = append(out, x)
		}
	}
	for _, x := range tl {
		if !has(bl, x) && !has(out, x) {
			out = append(out, x)
		}
	}
	return out, true
}

// setList writes key k as the list vals, in flow style when ours wrote it so.
func setList(cur []byte, k string, vals []any, ours *yaml.Node) ([]byte, error) {
	var v any = vals
	if es, ok := asEdges(vals); ok && k == "edges" {
		v = es // written as SetField writes edges: `to` double-quoted
	}
	val, err := valueNode(v)
	if err != nil {
		return nil, err
	}
	if ours != nil && ours.Style&yaml.FlowStyle != 0 {
		val.Style |= yaml.FlowStyle
	}
	entry, err := encodeEntry(k, val)
	if err != nil {
		return nil, err
	}
	return editField(cur, k, entry)
}

// asEdges returns vals as edges when every item is a mapping of exactly to, type
// and (optionally) why, all strings.
func asEdges(vals []any) ([]Edge, bool) {
	es := make([]Edge, 0, len(vals))
	for _, v := range vals {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		to, ok1 := m["to"].(string)
		typ, ok2 := m["type"].(string)
		why, ok3 := m["why"].(string)
		_, hasWhy := m["why"]
		if !ok1 || !ok2 || hasWhy && !ok3 || len(m) != 2+btoi(hasWhy) {
			return nil, false
		}
		es = append(es, Edge{To: to, Type: typ, Why: why})
	}
	return es, true
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// mergeBody merges the bodies line by line (diff3), keeping ours' line breaks.
func mergeBody(b, o, t *side, eol string) ([]byte, []lineConflict, bool) {
	bl, ol, tl := splitLines(b.body), splitLines(o.body), splitLines(t.body)
	for i := range tl {
		if tl[i].eol != "" {
			tl[i].setEOL(eol)
		}
	}
	out, conflicts, ok := diff3(bl, ol, tl)
	if !ok {
		return nil, nil, false
	}
	if len(out) == 0 {
		return nil, conflicts, true
	}
	for i := range out[:len(out)-1] {
		if out[i].eol == "" {
			out[i].setEOL(eol)
		}
	}
	// The final newline merges as one more three-way choice.
	// An empty side has no say: it counts as unchanged.
	fin := func(ls []line, empty bool) bool {
		if len(ls) == 0 {
			return empty
		}
		return ls[len(ls)-1].eol != ""
	}
	fo := fin(ol, fin(bl, true))
	fb := fin(bl, fo)
	want := fo
	if fo == fb {
		want = fin(tl, fb)
	}
	last := &out[len(out)-1]
	switch {
	case want && last.eol == "":
		last.setEOL(eol)
	case !want && last.text != "": // an empty last line is its line break
		last.eol = ""
	}
	return joinLines(out), conflicts, true
}

// eolOf returns the line break of b's first line ("\n" or "\r\n"), or "".
func eolOf(b []byte) string {
	i := bytes.IndexByte(b, '\n')
	switch {
	case i < 0:
		return ""
	case i > 0 && b[i-1] == '\r':
		return "\r\n"
	}
	return "\n"
}

// withEOL returns b with every line break ("\n" or "\r\n") written as eol.
func withEOL(b []byte, eol string) []byte {
	ls := splitLines(b)
	for i := range ls {
		if ls[i].eol != "" {
			ls[i].setEOL(eol)
		}
	}
	return joinLines(ls)
}
