package graph

import (
	"cmp"
	"slices"
)

// view is the link graph as seen by a caller from whom hidden hides some notes:
// to it the vault is the vault without them. A hidden note is absent, and so are
// its links; a link whose resolution met a hidden note (its target, or a
// candidate of an ambiguity) resolves as if the hidden notes did not exist:
// broken, resolved to a visible note, or ambiguous among visible ones only. Every
// hiding query reads the graph through a view, so the rule is applied once.
//
// With hidden nil a view is the graph itself, at no cost.
type view struct {
	g      *linkGraph
	hidden Hidden
	// extra holds, per node, the links of visible notes that resolve to it only
	// once the hidden notes are gone (sorted by source, then link). Nil: found
	// per node through its names (in); whole-graph queries fill it once (all).
	extra map[int32][]backref
	// over holds the links resolved again (by source and link); hid, filled by
	// all, says which nodes are hidden. With hid set, over holds every link of a
	// visible note that met a hidden one.
	over map[backref]lres
	hid  []bool
	// redone, filled by all, says which nodes have a link in over.
	redone []bool
}

func (g *linkGraph) view(hidden Hidden) *view { return &view{g: g, hidden: hidden} }

// all prepares v for a query over every node: the re-resolved links are found
// in one pass over the graph instead of per node.
func (v *view) all() *view {
	if v.hidden == nil || v.extra != nil {
		return v
	}
	hid := make([]bool, len(v.g.nodes))
	for id, n := range v.g.nodes {
		hid[id] = n != nil && v.hidden.hides(v.g, int32(id))
	}
	v.extra, v.hid, v.redone = map[int32][]backref{}, hid, make([]bool, len(v.g.nodes))
	for id, n := range v.g.nodes {
		if n == nil || n.attachment || hid[id] {
			continue
		}
		for i, r := range n.out {
			if !v.touchesHidden(r) {
				continue
			}
			o := v.resolve(int32(id), i)
			v.redone[id] = true
			if o.to >= 0 {
				v.extra[o.to] = append(v.extra[o.to], backref{from: int32(id), link: int32(i)})
			}
		}
	}
	return v
}

// hides reports whether node id is hidden.
func (v *view) hides(id int32) bool {
	if v.hid != nil {
		return v.hid[id]
	}
	return v.hidden.hides(v.g, id)
}

// touchesHidden reports whether resolution r met a hidden note: only then can
// it differ without the hidden notes. A name resolves at the first step with a
// match; dropping notes that were not among that step's matches changes nothing,
// and a step whose matches include no hidden note decides as before.
func (v *view) touchesHidden(r lres) bool {
	if r.to >= 0 && v.hides(r.to) {
		return true
	}
	if r.candidates != nil {
		for _, c := range *r.candidates {
			if v.hidden(c) {
				return true
			}
		}
	}
	return false
}

// out returns where link i of node id points in the view.
func (v *view) out(id int32, i int) lres {
	r := v.g.nodes[id].out[i]
	if v.hidden == nil || v.redone != nil && !v.redone[id] {
		return r
	}
	if o, ok := v.over[backref{from: id, link: int32(i)}]; ok {
		return o
	}
	if v.hid != nil || !v.touchesHidden(r) {
		return r
	}
	return v.resolve(id, i)
}

// resolve resolves link i of node id without the hidden notes, once.
func (v *view) resolve(id int32, i int) lres {
	n := v.g.nodes[id]
	o := v.g.lresOf(v.g.res.ResolveHiding(n.rec.names.path, n.rec.links[i].asLink(), v.hidden))
	if v.over == nil {
		v.over = map[backref]lres{}
	}
	v.over[backref{from: id, link: int32(i)}] = o
	return o
}

// in returns the links of visible notes that resolve to node id in the view,
// one source's links together.
func (v *view) in(id int32) []backref {
	g := v.g
	if v.hidden == nil {
		return g.in[id]
	}
	in := make([]backref, 0, len(g.in[id]))
	for _, b := range g.in[id] {
		if !v.hides(b.from) {
			in = append(in, b)
		}
	}
	var extra []backref
	if v.extra != nil {
		extra = v.extra[id]
	} else {
		// A link that now resolves to id meets one of id's names (a link resolves
		// only through one of its target's keys).
		seen := map[int32]bool{}
		for _, k := range g.res.keysOf(g.nodes[id].rec.names.path) {
			for src := range g.byKey.ids(k) {
				if seen[src] || v.hides(src) {
					continue
				}
				seen[src] = true
				for i, r := range g.nodes[src].out {
					if v.touchesHidden(r) && v.out(src, i).to == id {
						extra = append(extra, backref{from: src, link: int32(i)})
					}
				}
			}
		}
	}
	if len(extra) == 0 {
		return in
	}
	in = append(in, extra...)
	slices.SortFunc(in, func(a, b backref) int {
		if c := cmp.Compare(a.from, b.from); c != 0 {
			return c
		}
		return cmp.Compare(a.link, b.link)
	})
	return in
}

// inSources counts the distinct notes other than id linking to id in the view.
func (v *view) inSources(id int32) int {
	in := v.g.in[id]
	if v.hidden != nil && (v.extra == nil || len(v.extra[id]) > 0) {
		in = v.in(id)
	}
	n, last := 0, int32(-1)
	for _, b := range in {
		if v.hidden != nil && v.hides(b.from) {
			continue
		}
		if b.from != id && b.from != last {
			n++
		}
		last = b.from
	}
	return n
}

// lresOf is the graph's form of a Resolution.
func (g *linkGraph) lresOf(res Resolution) lres {
	r := lres{status: statusOf(res.Status), to: -1, headingFound: res.HeadingFound}
	if res.Candidates != nil {
		r.candidates = &res.Candidates
	}
	if res.Status == LinkResolved {
		if to, ok := g.ids[res.Target]; ok {
			r.to = to
		}
	}
	return r
}
