package graph

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/norn-vault/norn/note"
)

// docAnalyzer turns one note into its per-term postings. It reuses its buffers
// between notes and belongs to one goroutine.
type docAnalyzer struct {
	st *slotCache
	// gen numbers the notes analysed; a term's id in the current note is in its
	// stemmer slot when the slot's gen is this one, in ids for filter terms.
	gen   uint32
	ids   map[string]int32
	terms []string
	occ   []occurrence
	// sorted holds occurrence indexes grouped by term (counting sort).
	sorted []int32
	counts []int32
	order  []int32
	head   []byte
	pos    []byte
	perFld [numFields][]uint32

	lens    [numFields]uint32
	entries []termEntry // sorted by term
	// lines holds, per line of the body, the body position of its first word
	// (see storedText.lineWords).
	lines []uint32
}

type occurrence struct {
	term  int32
	field field
	pos   uint32
}

// termEntry is one term's encoded posting for the analysed note; head and pos point
// into the analyzer's buffers and are valid until the next analyse.
type termEntry struct {
	term      string
	head, pos []byte
}

func newDocAnalyzer(a *analyzer) *docAnalyzer {
	return &docAnalyzer{st: a.newSlotCache(), ids: make(map[string]int32, 16)}
}

// frontmatter keys that have their own field.
func ownFieldKey(k string) bool {
	switch strings.ToLower(k) {
	case "title", "tags", "tag", "aliases", "alias":
		return true
	}
	return false
}

// analyse indexes n (at path p) into d.entries and d.lens.
func (d *docAnalyzer) analyse(p note.Path, n *note.Note) {
	d.begin()
	d.addText(fieldTitle, 0, []byte(n.Title))
	off := uint32(0)
	for _, a := range n.Aliases {
		off = d.addText(fieldAliases, off, []byte(a)) + 1
	}
	off = 0
	for _, t := range n.Tags {
		off = d.addText(fieldTags, off, []byte(t)) + 1
	}
	off = 0
	for _, h := range n.Headings {
		off = d.addText(fieldHeadings, off, []byte(h.Text)) + 1
	}
	d.lines = d.lines[:0]
	if n.BodyStart >= 0 && n.BodyStart <= len(n.Raw) {
		d.addBody(n.Raw[n.BodyStart:])
	}
	d.addText(fieldPath, 0, []byte(strings.TrimSuffix(string(p), ".md")))

	// Filter terms: tags with their parents, frontmatter key=term.
	mpos := uint32(0)
	for _, t := range n.Tags {
		nt := normTag(t)
		for nt != "" {
			d.addFilter(mpos, "#"+nt)
			mpos += 2
			i := strings.LastIndexByte(nt, '/')
			if i < 0 {
				break
			}
			nt = nt[:i]
		}
	}
	if fm := n.Frontmatter; fm != nil {
		off = 0
		for _, k := range fm.Keys {
			v, ok := fm.Fields[k]
			if !ok {
				continue
			}
			own := ownFieldKey(k)
			nk := normKey(k)
			leaves(v, func(s string, text bool) {
				if text && !own {
					off = d.addText(fieldFrontmatter, off, []byte(s)) + 1
				}
				if nk == "" {
					return
				}
				words([]byte(s), func(w word) {
					if t := d.st.slot(w.folded).term; t != "" {
						d.addFilter(mpos+uint32(w.pos), nk+"="+t)
					}
				})
				mpos += uint32(strings.Count(s, " ")) + uint32(len(s)) + 2 // a gap larger than any word count
			})
		}
	}
	d.encode()
}

// begin starts the analysis of a new text.
func (d *docAnalyzer) begin() {
	d.st.reset()
	d.gen++
	if d.gen == 0 { // wrapped: no slot may claim this note
		clear(d.st.cache)
		clear(d.st.slots)
		d.gen = 1
	}
	if len(d.ids) > 0 {
		clear(d.ids)
	}
	d.terms = d.terms[:0]
	d.occ = d.occ[:0]
	d.lens = [numFields]uint32{}
}

// addText adds the words of text to field f at positions starting at off and
// returns the position after the last word.
func (d *docAnalyzer) addText(f field, off uint32, text []byte) uint32 {
	n := words(text, func(w word) {
		if sl := d.st.slot(w.folded); sl.term != "" {
			d.addSlot(f, off+uint32(w.pos), sl)
		}
	})
	return off + uint32(n)
}

// addBody adds the body's words and records the line table.
func (d *docAnalyzer) addBody(body []byte) {
	d.lines = append(d.lines, 0)
	nl := bytes.IndexByte(body, '\n') // end of the current line
	total := words(body, func(w word) {
		for nl >= 0 && w.start > nl {
			d.lines = append(d.lines, uint32(w.pos))
			next := bytes.IndexByte(body[nl+1:], '\n')
			if next < 0 {
				nl = -1
			} else {
				nl += 1 + next
			}
		}
		if sl := d.st.slot(w.folded); sl.term != "" {
			d.addSlot(fieldBody, uint32(w.pos), sl)
		}
	})
	for nl >= 0 {
		d.lines = append(d.lines, uint32(total))
		next := bytes.IndexByte(body[nl+1:], '\n')
		if next < 0 {
			nl = -1
		} else {
			nl += 1 + next
		}
	}
}

// addSlot adds an occurrence of a text term (counted in the field's length).
func (d *docAnalyzer) addSlot(f field, pos uint32, sl *termSlot) {
	if sl.gen != d.gen {
		sl.gen, sl.id = d.gen, int32(len(d.terms))
		d.terms = append(d.terms, sl.term)
	}
	d.occ = append(d.occ, occurrence{term: sl.id, field: f, pos: pos})
	d.lens[f]++
}

// addFilter adds an occurrence of a filter term ("#tag", "key=term") in
// fieldMeta, not counted in any length. Text terms never contain '#' or '=', so
// the two kinds never share an id.
func (d *docAnalyzer) addFilter(pos uint32, t string) {
	id, ok := d.ids[t]
	if !ok {
		id = int32(len(d.terms))
		d.ids[t] = id
		d.terms = append(d.terms, t)
	}
	d.occ = append(d.occ, occurrence{term: id, field: fieldMeta, pos: pos})
}

// encode groups the occurrences by term and encodes one posting per term.
func (d *docAnalyzer) encode() {
	nt := len(d.terms)
	d.counts = slices.Grow(d.counts[:0], nt+1)[:nt+1]
	clear(d.counts)
	for _, o := range d.occ {
		d.counts[o.term+1]++
	}
	for i := 1; i <= nt; i++ {
		d.counts[i] += d.counts[i-1]
	}
	d.sorted = slices.Grow(d.sorted[:0], len(d.occ))[:len(d.occ)]
	next := d.order[:0]
	next = append(next, d.counts[:nt]...)
	for i, o := range d.occ {
		d.sorted[next[o.term]] = int32(i)
		next[o.term]++
	}
	d.order = next
	ids := d.order[:0]
	for i := range nt {
		ids = append(ids, int32(i))
	}
	slices.SortFunc(ids, func(a, b int32) int { return strings.Compare(d.terms[a], d.terms[b]) })
	d.head, d.pos = d.head[:0], d.pos[:0]
	d.entries = d.entries[:0]
	type span struct{ h0, h1, p0, p1 int }
	spans := make([]span, 0, nt)
	for _, id := range ids {
		for f := range d.perFld {
			d.perFld[f] = d.perFld[f][:0]
		}
		for _, oi := range d.sorted[d.counts[id]:d.counts[id+1]] {
			o := d.occ[oi]
			ps := d.perFld[o.field]
			if len(ps) > 0 && ps[len(ps)-1] >= o.pos {
				continue // same position twice (cannot happen for text; keep it safe)
			}
			d.perFld[o.field] = append(ps, o.pos)
		}
		h0, p0 := len(d.head), len(d.pos)
		d.head, d.pos = encodeEntry(d.head, d.pos, &d.perFld)
		spans = append(spans, span{h0, len(d.head), p0, len(d.pos)})
	}
	d.order = ids
	for i, id := range ids {
		s := spans[i]
		d.entries = append(d.entries, termEntry{term: d.terms[id], head: d.head[s.h0:s.h1:s.h1], pos: d.pos[s.p0:s.p1:s.p1]})
	}
}

// leaves calls fn with every scalar inside a frontmatter value as text; text is
// true for strings (which are also scored), false for numbers, booleans and dates
// (only filterable).
func leaves(v any, fn func(s string, text bool)) {
	switch x := v.(type) {
	case nil:
	case string:
		fn(x, true)
	case []any:
		for _, e := range x {
			leaves(e, fn)
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			leaves(x[k], fn)
		}
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			fn(x.Format("2006-01-02"), false)
		} else {
			fn(x.Format(time.RFC3339), false)
		}
	default:
		fn(fmt.Sprint(x), false)
	}
}

// normTag folds a tag for exact matching: lowercase, diacritics folded, a leading
// '#' and spaces removed, '/' kept (nested tags).
func normTag(t string) string {
	t = strings.TrimLeft(strings.TrimSpace(t), "#")
	var b []byte
	for _, r := range t {
		switch {
		case r < utf8.RuneSelf && r > ' ' && r != 0x7f:
			b = foldRune(b, r)
		case r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsPunct(r) || unicode.IsSymbol(r)):
			b = foldRune(b, r)
		case r >= utf8.RuneSelf && unicode.Is(unicode.Mn, r):
		default:
			// spaces and controls separate nothing in a tag: drop them
		}
	}
	return strings.Trim(string(b), "/")
}

// normKey folds a frontmatter key: lowercase, diacritics folded, only letters,
// digits, '_', '-' and '.' kept.
func normKey(k string) string {
	var b []byte
	for _, r := range k {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b = foldRune(b, r)
		} else if r == '_' || r == '-' || r == '.' {
			b = append(b, byte(r))
		}
	}
	return string(b)
}
