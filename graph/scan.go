package graph

import (
	"bytes"
	"context"
	"fmt"
	"iter"
	"math"
	"slices"
	"strings"

	"github.com/norn-vault/norn/note"
)

// Scan bounds when SearchOptions leave them zero.
const (
	defaultScanDocs  = 20000
	defaultScanBytes = 64 << 20
)

// Scan answers q without an index, for when the index is missing, locked or
// corrupt: a bounded substring scan over docs (the notes at HEAD). Words, phrases
// and field values match as case- and diacritics-folded substrings (no stemming
// or prefixes beyond what a substring gives), filters and exclusions apply as in
// Search, and hits rank by the number of distinct words matched, title and path
// matches counting more. It stops after o.MaxScanDocs docs or o.MaxScanBytes
// bytes (defaults 20,000 and 64 MiB) and says so: Results.Engine is "scan",
// ScannedDocs and ScannedBytes say what it read and Truncated that it stopped
// early. An error from docs ends the scan with that error. With o.HidePrivate it
// skips private docs (Doc.Private) as if docs did not hold them.
func Scan(ctx context.Context, q string, docs iter.Seq2[Doc, error], o SearchOptions) (*Results, error) {
	query, err := parseFor(q, o)
	if err != nil {
		return nil, err
	}
	sc, err := newScanner(query, o)
	if err != nil {
		return nil, err
	}
	maxDocs, maxBytes := o.MaxScanDocs, o.MaxScanBytes
	if maxDocs <= 0 {
		maxDocs = defaultScanDocs
	}
	if maxBytes <= 0 {
		maxBytes = defaultScanBytes
	}
	res := &Results{Engine: engineScan}
	type hit struct {
		doc   Doc
		score float64
		words []int // matched word indexes
	}
	var hits []hit
	for d, err := range docs {
		if err != nil {
			return nil, fmt.Errorf("scan %q: %w", q, err)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if d.Note == nil || o.HidePrivate && d.Private {
			continue
		}
		if res.ScannedDocs >= maxDocs || res.ScannedBytes+int64(len(d.Note.Raw)) > maxBytes {
			res.Truncated = true
			break
		}
		res.ScannedDocs++
		res.ScannedBytes += int64(len(d.Note.Raw))
		if score, words, ok := sc.match(d); ok {
			hits = append(hits, hit{d, score, words})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return strings.Compare(string(a.doc.Path), string(b.doc.Path))
	})
	res.Total = len(hits)
	limit := o.Limit
	if limit <= 0 {
		limit = defaultLimit
	}
	limit = min(limit, maxLimit)
	off := max(o.Offset, 0)
	res.Hits = []Hit{}
	for _, h := range hits[min(off, len(hits)):min(len(hits), off+limit)] {
		n := h.doc.Note
		out := Hit{Path: h.doc.Path, Title: n.Title, Revision: h.doc.Revision, Score: h.score, Private: h.doc.Private}
		for _, w := range h.words {
			out.Matched = append(out.Matched, sc.words[w].label)
		}
		line, snip := sc.snippet(n)
		out.Line, out.Snippet = line, snip
		out.Section = sectionAt(n, line)
		out.Chunks = []Chunk{{Section: out.Section, Line: line, Snippet: snip, Score: h.score}}
		res.Hits = append(res.Hits, out)
	}
	return res, nil
}

// scanner is a query prepared for Scan.
type scanner struct {
	words    []scanWord // scored words and phrases
	required [][]scanFilter
	excluded []scanFilter
	folder   string
	hl       *highlighter
}

type scanWord struct {
	text  string // folded
	label string
}

// scanFilter is one filter clause: a folded text to find, a tag, a folder or a
// frontmatter field.
type scanFilter struct {
	text   string
	tag    string
	folder string
	key    string // with text: a frontmatter field
}

func newScanner(q *Query, o SearchOptions) (*scanner, error) {
	a := newAnalyzer(DefaultStopWords)
	st := a.newStemmer()
	sc := &scanner{folder: strings.Trim(o.Folder, "/"), hl: &highlighter{st: st, exact: map[string]float64{}, heads: stemHeads{}}}
	var group []scanFilter
	groupRequired := false
	flush := func() {
		if groupRequired && len(group) > 0 {
			sc.required = append(sc.required, group)
		}
		group, groupRequired = nil, false
	}
	for _, c := range q.Clauses {
		if !c.Or {
			flush()
		}
		var f scanFilter
		switch c.Kind {
		case ClauseWord, ClausePhrase:
			t := fold(c.Value)
			if t == "" || a.stop[t] {
				continue
			}
			f.text = t
			if !c.Negated {
				label := c.Value
				if c.Kind == ClausePhrase {
					label = `"` + c.Value + `"`
				}
				sc.words = append(sc.words, scanWord{text: t, label: label})
				words([]byte(c.Value), func(w word) {
					if tm := st.term(w.folded); tm != "" {
						sc.hl.exact[tm] = 1
						sc.hl.heads.add(tm)
					}
				})
			}
		case ClauseTag:
			f.tag = normTag(c.Value)
			if f.tag == "" {
				return nil, &QueryError{Query: q.Text, Pos: c.Pos, Reason: "tag has no name"}
			}
		case ClauseFolder:
			f.folder = c.Value
		case ClauseField:
			f.key, f.text = normKey(c.Key), fold(c.Value)
			if f.key == "" || f.text == "" {
				return nil, &QueryError{Query: q.Text, Pos: c.Pos, Reason: "field value has no searchable words"}
			}
		}
		if c.Negated {
			sc.excluded = append(sc.excluded, f)
			continue
		}
		group = append(group, f)
		groupRequired = groupRequired || c.Required
	}
	flush()
	return sc, nil
}

// docText is a doc folded for substring matching.
type docText struct {
	title, path, body string
}

func (sc *scanner) match(d Doc) (float64, []int, bool) {
	n := d.Note
	if sc.folder != "" && !inFolder(d.Path, sc.folder) {
		return 0, nil, false
	}
	body := n.Raw[min(max(n.BodyStart, 0), len(n.Raw)):]
	t := docText{title: " " + fold(n.Title) + " ", path: " " + fold(string(d.Path)) + " ", body: " " + fold(string(body)) + " "}
	for _, f := range sc.excluded {
		if sc.filterMatches(f, d, &t) {
			return 0, nil, false
		}
	}
	for _, g := range sc.required {
		any := false
		for _, f := range g {
			if sc.filterMatches(f, d, &t) {
				any = true
				break
			}
		}
		if !any {
			return 0, nil, false
		}
	}
	score := 0.0
	var matched []int
	for i, w := range sc.words {
		nb := strings.Count(t.body, w.text)
		s := 0.0
		if nb > 0 {
			s += 1 + math.Log(float64(nb))
		}
		if strings.Contains(t.title, w.text) {
			s += 3
		}
		if strings.Contains(t.path, w.text) {
			s += 1
		}
		if s > 0 {
			score += s
			matched = append(matched, i)
		}
	}
	if len(sc.words) > 0 && len(matched) == 0 {
		return 0, nil, false
	}
	// Distinct words dominate; repeats and fields break ties.
	return float64(len(matched))*10 + score, matched, true
}

func (sc *scanner) filterMatches(f scanFilter, d Doc, t *docText) bool {
	n := d.Note
	switch {
	case f.folder != "":
		return inFolder(d.Path, f.folder)
	case f.tag != "":
		for _, tg := range n.Tags {
			nt := normTag(tg)
			if nt == f.tag || strings.HasPrefix(nt, f.tag+"/") {
				return true
			}
		}
		return false
	case f.key != "":
		if n.Frontmatter == nil {
			return false
		}
		for _, k := range n.Frontmatter.Keys {
			if normKey(k) != f.key {
				continue
			}
			found := false
			leaves(n.Frontmatter.Fields[k], func(s string, _ bool) {
				found = found || strings.Contains(" "+fold(s)+" ", f.text)
			})
			if found {
				return true
			}
		}
		return false
	default:
		return strings.Contains(t.body, f.text) || strings.Contains(t.title, f.text) || strings.Contains(t.path, f.text)
	}
}

// snippet returns the body line with the most distinct query words (the first
// non-blank line if none), marked.
func (sc *scanner) snippet(n *note.Note) (int, string) {
	raw := n.Raw
	body := min(max(n.BodyStart, 0), len(raw))
	bestStart, bestEnd, best := -1, -1, 0
	for ls := body; ls < len(raw); {
		le := bytes.IndexByte(raw[ls:], '\n')
		if le < 0 {
			le = len(raw)
		} else {
			le += ls
		}
		line := raw[ls:le]
		if len(bytes.TrimSpace(line)) > 0 && !isFence(line) {
			f := " " + fold(string(line)) + " "
			c := 0
			for _, w := range sc.words {
				if strings.Contains(f, w.text) {
					c += 2
				}
			}
			if c > 0 && bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
				c-- // a heading line says less than the text under it
			}
			if bestStart < 0 || c > best {
				bestStart, bestEnd, best = ls, le, c
			}
		}
		ls = le + 1
	}
	if bestStart < 0 {
		return 0, ""
	}
	line := raw[bestStart:bestEnd]
	return bytes.Count(raw[:bestStart], []byte{'\n'}) + 1, markLine(line, 0, sc.hl.matches(line))
}

// sectionAt returns the heading of the section holding line, "" before any.
func sectionAt(n *note.Note, line int) string {
	s := ""
	for _, h := range n.Headings {
		if h.Line > line {
			break
		}
		s = h.Text
	}
	return s
}

// inFolder reports whether p is under folder (case-insensitively).
func inFolder(p note.Path, folder string) bool {
	prefix := strings.Trim(folder, "/") + "/"
	return len(p) > len(prefix) && strings.EqualFold(string(p[:len(prefix)]), prefix)
}
