package hooks

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/norn-vault/norn/note"
)

// edges applies the typed-edge rules to every entry of the note's `edges:` list.
// Whether the target note exists needs the vault: edgeTargets, when the caller
// gives a resolver.
func (c *checker) edges() {
	types := c.g.cfg.Edges.Types
	minWhy := c.g.cfg.Edges.MinWhy
	defer func() { c.element = "" }()
	for _, e := range c.n.Edges {
		c.element = "edge\x00" + strings.TrimSpace(e.To) + "\x00" + e.Type + "\x00" + strings.TrimSpace(e.Why)
		if !c.g.types[e.Type] {
			if fix := strings.NewReplacer("-", "_", " ", "_").Replace(strings.ToLower(strings.TrimSpace(e.Type))); c.g.types[fix] {
				c.add(RuleEdgeTypeUnknown, e.Line, "unknown edge type `%s`: write `%s`", e.Type, fix)
			} else if len(types) == 0 {
				c.add(RuleEdgeTypeUnknown, e.Line, "unknown edge type `%s`: this vault allows no typed edges (edges.types is empty); use a [[wikilink]] in the body", e.Type)
			} else {
				c.add(RuleEdgeTypeUnknown, e.Line, "unknown edge type `%s`: use one of %s (edges.types)", e.Type, strings.Join(types, ", "))
			}
		}
		why := strings.TrimSpace(e.Why)
		if n := utf8.RuneCountInString(why); n < minWhy {
			c.add(RuleEdgeWhyShort, e.Line, "`why` has %d characters; write at least %d saying why the link holds, e.g. `why: Both hash items into a small array and trade exactness for memory.`", n, minWhy)
		}
		if why != "" {
			if ws := words(why); len(ws) < 3 {
				c.add(RuleEdgeWhyRestates, e.Line, "`why` has fewer than 3 words; write a sentence saying why the link holds")
			} else if restates(ws, e) {
				c.add(RuleEdgeWhyRestates, e.Line, "`why` only repeats the edge type and the target's name; say in your own words why the link holds (the shared mechanism, the evidence, the dependency)")
			}
		}
		if c.isSelf(e.Target) {
			c.add(RuleEdgeSelf, e.Line, "the edge points at this note itself; point it at another note or remove it")
		}
	}
}

// EdgeResolver says where the typed edge e, written in the note at from, points
// in the vault as a proposal would leave it (the proposal's own notes included).
type EdgeResolver func(from note.Path, e note.Edge) EdgeTarget

// EdgeTarget is where a typed edge points.
type EdgeTarget struct {
	// Known is false when the resolver cannot tell (its index is behind or
	// unavailable): the edge-target rules then pass the edge.
	Known bool
	// Path is the note or attachment the edge resolves to, "" when it names none
	// or several.
	Path note.Path
	// Candidates are the notes an ambiguous target matches, sorted.
	Candidates []note.Path
}

// edgeTargets applies edge-target-missing and edge-target-ambiguous to the edges
// of n (the proposed bytes of c) that c adds or rewrites: an edge whose `to`, as
// written, is also in the note's current bytes was judged when it was written,
// and a note whose target was archived since stays editable.
func (g *Gates) edgeTargets(resolve EdgeResolver, c Change, n *note.Note) []Violation {
	if len(n.Edges) == 0 {
		return nil
	}
	had := map[string]bool{}
	if c.Old != nil {
		if old, err := note.Parse(c.Path, c.Old); err == nil {
			for _, e := range old.Edges {
				had[strings.TrimSpace(e.To)] = true
			}
		}
	}
	ch := checker{g: g, path: c.Path, n: n}
	for _, e := range n.Edges {
		if had[strings.TrimSpace(e.To)] || ch.isSelf(e.Target) {
			continue
		}
		t := resolve(c.Path, e)
		switch {
		case !t.Known:
		case len(t.Candidates) > 0: // one when the others are hidden from the writer
			names := make([]string, len(t.Candidates))
			for i, p := range t.Candidates {
				names[i] = string(p)
			}
			ch.add(RuleEdgeTargetAmbiguous, e.Line, "the %s edge to `%s` names several notes (%s): name one by its path, e.g. `to: \"[[%s]]\"`",
				e.Type, e.To, strings.Join(names, ", "), strings.TrimSuffix(names[0], ".md"))
		case t.Path == "":
			ch.add(RuleEdgeTargetMissing, e.Line, "the %s edge to `%s` names no note (by path, file name, title or alias): create that note first, correct the name, or remove the edge",
				e.Type, e.To)
		case !note.IsNote(t.Path):
			ch.add(RuleEdgeTargetMissing, e.Line, "the %s edge to `%s` names the attachment %s: typed edges point at notes; link the file from the body instead",
				e.Type, e.To, t.Path)
		}
	}
	return ch.vs
}

// words splits s into lowercase runs of letters and digits.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// restates reports whether every word of the why is a word of the edge's type or
// target: "Same mechanism as Count-min sketch" for same_mechanism_as → [[Count-min
// sketch]].
func restates(why []string, e note.Edge) bool {
	known := map[string]bool{}
	for _, w := range words(e.Type + " " + e.Target + " " + e.To) {
		known[w] = true
	}
	for _, w := range why {
		if !known[w] {
			return false
		}
	}
	return true
}

// isSelf reports whether an edge target names the note itself, the way links
// resolve: by path (with or without ".md"), by file stem or by title, ignoring case.
func (c *checker) isSelf(target string) bool {
	t := strings.TrimSpace(target)
	if t == "" {
		return true // [[#Heading]]: a heading of this note
	}
	t = strings.ToLower(strings.TrimPrefix(t, "./"))
	t = strings.TrimSuffix(t, ".md")
	p := strings.ToLower(string(c.path))
	p = strings.TrimSuffix(p, ".md")
	return t == p ||
		t == strings.ToLower(note.Stem(c.path)) ||
		t == strings.ToLower(strings.TrimSpace(c.n.Title))
}
