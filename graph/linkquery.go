package graph

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/norn-vault/norn/note"
)

// ErrUnknownNote is returned by the graph queries for a note the index does not hold.
var ErrUnknownNote = errors.New("no such note in the index")

// LinkRef is one link occurrence: a body link (wikilink, embed, Markdown link) or a
// typed edge from the `edges:` list.
type LinkRef struct {
	// From is the note the link is in; To the note or attachment it resolves to (""
	// when broken or ambiguous). Target is the link as written, without alias or
	// fragment.
	From    note.Path `json:"from"`
	To      note.Path `json:"to,omitempty"`
	Target  string    `json:"target"`
	Heading string    `json:"heading,omitempty"`
	// Kind is wikilink, embed, markdown or edge; Type and Why are a typed edge's.
	Kind       string      `json:"kind"`
	Type       string      `json:"type,omitempty"`
	Why        string      `json:"why,omitempty"`
	Line       int         `json:"line"`
	Status     LinkStatus  `json:"status"`
	Candidates []note.Path `json:"candidates,omitempty"`
	// HeadingMissing: the link names a heading the target does not have.
	HeadingMissing bool `json:"heading_missing,omitempty"`
	// Context is the line the link is on, cut at 300 bytes (backlinks and Inbound).
	Context string `json:"context,omitempty"`

	index int // the link's place in its note's record
}

// NoteLinks is what Links answers.
type NoteLinks struct {
	Commit    string      `json:"commit"`
	Note      note.Path   `json:"note"`
	Outgoing  []LinkRef   `json:"outgoing"`
	Backlinks []LinkRef   `json:"backlinks"`
	SameTags  []note.Path `json:"same_tags"`
	// Truncated says a list was cut at the limit; the totals count everything.
	Truncated      bool `json:"truncated,omitempty"`
	OutgoingTotal  int  `json:"outgoing_total"`
	BacklinksTotal int  `json:"backlinks_total"`
	SameTagsTotal  int  `json:"same_tags_total"`
}

func (g *linkGraph) ref(from int32, i int) LinkRef { return g.refAs(from, i, g.nodes[from].out[i]) }

// refAs is link i of node from resolved as r.
func (g *linkGraph) refAs(from int32, i int, r lres) LinkRef {
	n := g.nodes[from]
	l := &n.rec.links[i]
	m := l.extra()
	lr := LinkRef{From: n.rec.names.path, Target: l.target, Heading: m.heading, Kind: l.kindName(), Type: m.etype, Why: m.why,
		Line: int(l.line), Status: statusNames[r.status], index: i}
	if r.candidates != nil {
		lr.Candidates = *r.candidates
	}
	if r.status == statusResolved {
		if r.to >= 0 {
			lr.To = g.nodes[r.to].rec.names.path
		}
		lr.HeadingMissing = m.heading != "" && !r.headingFound
	}
	return lr
}

// Links returns a note's outgoing links (resolved, broken, ambiguous; typed edges
// included), its backlinks with their context lines, and the notes sharing a tag
// with it, each list cut at limit (default 50).
func (ix *Index) Links(p note.Path, limit int) (*NoteLinks, error) {
	return ix.LinksHiding(p, limit, nil)
}

// LinksHiding is Links as seen by a caller that may not see the hidden notes: the
// answer Links gives in the vault without them. A hidden note is unknown
// (ErrUnknownNote, as for a missing one); backlinks from hidden notes and hidden
// notes sharing a tag are left out, of the totals too; a link whose name a hidden
// note answers resolves as if that note did not exist (broken, resolved to a
// visible note, or ambiguous among visible ones), and the links that then resolve
// to this note are among its backlinks.
func (ix *Index) LinksHiding(p note.Path, limit int, hidden Hidden) (*NoteLinks, error) {
	return withGraph(ix, func(g *linkGraph, commit string) (*NoteLinks, error) {
		return g.noteLinks(commit, p, limit, hidden, ix.contexts)
	})
}

// contextsFn returns the context lines of the links at idx (in the node record's
// order) of the note at p, one per index ("" for an index past the end).
type contextsFn func(p note.Path, idx []int) ([]string, error)

// contexts reads the wanted lines of a note's context record, decoding only
// those. The caller holds ix.mu.
func (ix *Index) contexts(p note.Path, idx []int) ([]string, error) {
	b, err := ix.get(nodeKey(prefixContext, p))
	if err != nil {
		return nil, err
	}
	want := make(map[int]int, len(idx)) // link index → place in out
	for k, i := range idx {
		want[i] = k
	}
	out := make([]string, len(idx))
	d := decoder{b: b}
	n := d.count()
	for i := range n {
		l := d.uvarint()
		if d.err != nil || l > uint64(len(d.b)) {
			return nil, corrupt(fmt.Errorf("context record: %w", errBadRecord))
		}
		if k, ok := want[i]; ok {
			out[k] = string(d.b[:l])
			if len(idx) == 1 {
				return out, nil
			}
		}
		d.b = d.b[l:]
	}
	if d.err != nil || len(d.b) != 0 {
		return nil, corrupt(fmt.Errorf("context record: %w", errBadRecord))
	}
	return out, nil
}

func (g *linkGraph) noteLinks(commit string, p note.Path, limit int, hidden Hidden, ctxs contextsFn) (*NoteLinks, error) {
	if limit <= 0 {
		limit = 50
	}
	id, n, ok := g.node(p)
	v := g.view(hidden)
	if !ok || n.attachment || v.hides(id) {
		return nil, fmt.Errorf("links %s: %w", p, ErrUnknownNote)
	}
	out := &NoteLinks{Commit: commit, Note: p, Outgoing: []LinkRef{}, Backlinks: []LinkRef{}, SameTags: []note.Path{}}
	out.OutgoingTotal = len(n.rec.links)
	for i := range min(limit, len(n.rec.links)) {
		out.Outgoing = append(out.Outgoing, g.refAs(id, i, v.out(id, i)))
	}
	in := g.sortedIn(id, v)
	out.BacklinksTotal = len(in)
	for _, b := range in[:min(limit, len(in))] {
		out.Backlinks = append(out.Backlinks, g.refAs(b.from, int(b.link), v.out(b.from, int(b.link))))
	}
	if err := addContexts(out.Backlinks, ctxs); err != nil {
		return nil, fmt.Errorf("links %s: %w", p, err)
	}
	same := map[int32]bool{}
	for _, t := range n.rec.tags {
		for o := range g.byTag.ids(t) {
			if o != id && !hidden.hides(g, o) {
				same[o] = true
			}
		}
	}
	out.SameTagsTotal = len(same)
	out.SameTags = append(out.SameTags, g.firstPaths(same, limit)...)
	out.Truncated = out.OutgoingTotal > len(out.Outgoing) || out.BacklinksTotal > len(out.Backlinks) || out.SameTagsTotal > len(out.SameTags)
	return out, nil
}

// firstPaths returns the paths of ids, sorted, cut at limit, without sorting
// them all (a busy tag has thousands of notes).
func (g *linkGraph) firstPaths(ids map[int32]bool, limit int) []note.Path {
	top := make([]note.Path, 0, min(limit, len(ids)))
	for id := range ids {
		p := g.nodes[id].rec.names.path
		if len(top) == limit && p >= top[limit-1] {
			continue
		}
		i, _ := slices.BinarySearch(top, p)
		if len(top) == limit {
			top = top[:limit-1]
		}
		top = slices.Insert(top, i, p)
	}
	return top
}

// sortedIn returns the links into id from other notes (a note's links to itself
// are in its outgoing list), sorted by source path and line.
func (g *linkGraph) sortedIn(id int32, v *view) []backref {
	all := v.in(id)
	in := make([]backref, 0, len(all))
	for _, b := range all {
		if b.from != id {
			in = append(in, b)
		}
	}
	slices.SortFunc(in, func(a, b backref) int {
		if c := strings.Compare(string(g.nodes[a.from].rec.names.path), string(g.nodes[b.from].rec.names.path)); c != 0 {
			return c
		}
		return cmp.Compare(a.link, b.link)
	})
	return in
}

// addContexts fills each ref's Context from its source's context lines (a typed
// edge's is its why), reading each source's lines once.
func addContexts(refs []LinkRef, ctxs contextsFn) error {
	bySource := map[note.Path][]int{} // source → places in refs
	var order []note.Path
	for i := range refs {
		r := &refs[i]
		if r.Kind == EdgeKindTyped {
			r.Context = r.Why
			continue
		}
		if _, ok := bySource[r.From]; !ok {
			order = append(order, r.From)
		}
		bySource[r.From] = append(bySource[r.From], i)
	}
	for _, from := range order {
		places := bySource[from]
		idx := make([]int, len(places))
		for k, i := range places {
			idx[k] = refs[i].index
		}
		cs, err := ctxs(from, idx)
		if err != nil {
			return err
		}
		for k, i := range places {
			refs[i].Context = cs[k]
		}
	}
	return nil
}

// Inbound returns every link from another note that resolves to p, with context,
// sorted by source and line: what a move of p must rewrite and an archive of p
// leaves dangling.
func (ix *Index) Inbound(p note.Path) ([]LinkRef, error) { return ix.InboundHiding(p, nil) }

// InboundHiding is Inbound as seen by a caller that may not see the hidden notes:
// the links of visible notes that resolve to p in the vault without them (a
// hidden p is unknown).
func (ix *Index) InboundHiding(p note.Path, hidden Hidden) ([]LinkRef, error) {
	return withGraph(ix, func(g *linkGraph, _ string) ([]LinkRef, error) { return g.inbound(p, hidden, ix.contexts) })
}

func (g *linkGraph) inbound(p note.Path, hidden Hidden, ctxs contextsFn) ([]LinkRef, error) {
	id, _, ok := g.node(p)
	v := g.view(hidden)
	if !ok || v.hides(id) {
		return nil, fmt.Errorf("inbound links of %s: %w", p, ErrUnknownNote)
	}
	in := g.sortedIn(id, v)
	refs := make([]LinkRef, len(in))
	for i, b := range in {
		refs[i] = g.refAs(b.from, int(b.link), v.out(b.from, int(b.link)))
	}
	if err := addContexts(refs, ctxs); err != nil {
		return nil, fmt.Errorf("inbound links of %s: %w", p, err)
	}
	return refs, nil
}

// Resolve resolves a link written in note from against the notes at the index's
// commit (from need not exist).
func (ix *Index) Resolve(from note.Path, l note.Link) (Resolution, error) {
	return withGraph(ix, func(g *linkGraph, _ string) (Resolution, error) { return g.res.Resolve(from, l), nil })
}

// ResolveHiding is Resolve as seen by someone from whom hidden hides some
// notes (Resolver.ResolveHiding).
func (ix *Index) ResolveHiding(from note.Path, l note.Link, hidden Hidden) (Resolution, error) {
	return withGraph(ix, func(g *linkGraph, _ string) (Resolution, error) {
		return g.res.ResolveHiding(from, l, hidden), nil
	})
}

// Resolver returns a copy of the index's resolver and the commit it reflects: it
// resolves as Resolve does, without the index's lock, and derives what-if
// resolvers (Resolver.With). Copying costs about a map copy per lookup table.
func (ix *Index) Resolver() (*Resolver, string, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	g, err := ix.graph()
	if err != nil {
		return nil, "", err
	}
	return g.res.clone(), ix.commit, nil
}

// Referrers returns, sorted, the notes holding a link whose lookup keys meet a
// name (path, file stem, title or alias) of one of notes: the only notes whose
// links can resolve differently when notes with those names appear, disappear or
// change names. Pass the old and the new version of a changed note.
func (ix *Index) Referrers(notes []*note.Note) ([]note.Path, error) {
	return withGraph(ix, func(g *linkGraph, _ string) ([]note.Path, error) { return g.referrers(notes), nil })
}

func (g *linkGraph) referrers(notes []*note.Note) []note.Path {
	ids := map[int32]bool{}
	for _, n := range notes {
		if n == nil {
			continue
		}
		r := newResolver(1)
		r.addNote(namesOf(n))
		for _, k := range r.keysOf(n.Path) {
			for id := range g.byKey.ids(k) {
				ids[id] = true
			}
		}
	}
	out := make([]note.Path, 0, len(ids))
	for id := range ids {
		out = append(out, g.nodes[id].rec.names.path)
	}
	slices.Sort(out)
	return out
}

// With returns a copy of r in which the notes and attachments at remove are gone
// and the notes of add are known (each replacing whatever was at its path): a
// resolver for the vault as a change would leave it. r is not changed.
func (r *Resolver) With(remove []note.Path, add []*note.Note) *Resolver {
	c := r.clone()
	for _, p := range remove {
		c.remove(p)
	}
	for _, n := range add {
		if n != nil {
			c.remove(n.Path)
			c.addNote(namesOf(n))
		}
	}
	return c
}

// clone copies r deeply enough that changing either leaves the other as it was.
func (r *Resolver) clone() *Resolver {
	return &Resolver{entries: slices.Clone(r.entries), known: maps.Clone(r.known),
		byPath: r.byPath.clone(), byName: r.byName.clone(), byTitle: r.byTitle.clone(), byAlias: r.byAlias.clone()}
}

// Node is a note as the graph queries show it.
type Node struct {
	ID     note.Path `json:"id"`
	Title  string    `json:"title"`
	Folder string    `json:"folder"`
	// Type is the note's frontmatter `type`, "" when it has none.
	Type string `json:"type,omitempty"`
	// Backlinks counts the distinct other notes linking to it.
	Backlinks int `json:"backlinks"`
	// Links counts its outgoing links that resolve to another note.
	Links int `json:"links"`
	// Depth is the number of hops from the query's note (Neighborhood, Path).
	Depth int `json:"depth,omitempty"`
}

// Edge is a link between two notes: Type "link" for body links (wikilinks,
// embeds, Markdown links), else the typed edge's type.
type Edge struct {
	From note.Path `json:"from"`
	To   note.Path `json:"to"`
	Type string    `json:"type"`
}

// EdgeTypeLink is the Type of an Edge made by body links.
const EdgeTypeLink = "link"

// Hidden reports the notes a query treats as absent: a caller that may not see
// them gets neither them nor their links (in counts too). Nil hides nothing.
type Hidden func(note.Path) bool

func (h Hidden) hides(g *linkGraph, id int32) bool {
	return h != nil && h(g.nodes[id].rec.names.path)
}

func (g *linkGraph) nodeOf(id int32, depth int, v *view) Node {
	n := g.nodes[id]
	out := 0
	for i := range n.out {
		if r := v.out(id, i); r.to >= 0 && r.to != id && !g.nodes[r.to].attachment {
			out++
		}
	}
	return Node{ID: n.rec.names.path, Title: n.rec.names.title, Folder: n.rec.names.path.Folder(), Type: n.rec.ntype,
		Backlinks: v.inSources(id), Links: out, Depth: depth}
}

// edgeType is the Edge type of link i of n.
func edgeType(n *gnode, i int) string {
	if t := n.rec.links[i].etype(); t != "" {
		return t
	}
	return EdgeTypeLink
}

// NeighborhoodOptions bound a Neighborhood query.
type NeighborhoodOptions struct {
	// Depth is how many hops to walk, following links both ways (default 1, at most 5).
	Depth int
	// MaxNodes caps the nodes returned (default 50, at most 1000); Truncated says so.
	MaxNodes int
	// Types keeps only edges of these types ("link" for body links, or typed-edge
	// types); empty keeps all.
	Types []string
	// Hidden notes are not walked through or returned. A function: it is not part
	// of the options' JSON.
	Hidden Hidden `json:"-"`
}

// Neighborhood is the subgraph around a note.
type Neighborhood struct {
	Commit    string    `json:"commit"`
	Center    note.Path `json:"center"`
	Nodes     []Node    `json:"nodes"`
	Edges     []Edge    `json:"edges"`
	Truncated bool      `json:"truncated"`
}

// Neighborhood walks the graph breadth first from p, over resolved links to other
// notes in both directions, up to opts.Depth hops and opts.MaxNodes nodes. It
// returns the nodes reached (p first, then by depth and path) and every edge
// between them.
func (ix *Index) Neighborhood(p note.Path, opts NeighborhoodOptions) (*Neighborhood, error) {
	return withGraph(ix, func(g *linkGraph, commit string) (*Neighborhood, error) { return g.neighborhood(commit, p, opts) })
}

func (g *linkGraph) neighborhood(commit string, p note.Path, opts NeighborhoodOptions) (*Neighborhood, error) {
	depth := cmp.Or(opts.Depth, 1)
	maxNodes := cmp.Or(opts.MaxNodes, 50)
	if depth < 1 || depth > 5 {
		return nil, fmt.Errorf("neighborhood: depth %d: %w", opts.Depth, errRange("depth", 1, 5))
	}
	if maxNodes < 1 || maxNodes > 1000 {
		return nil, fmt.Errorf("neighborhood: max_nodes %d: %w", opts.MaxNodes, errRange("max_nodes", 1, 1000))
	}
	start, n, ok := g.node(p)
	if !ok || n.attachment || opts.Hidden.hides(g, start) {
		return nil, fmt.Errorf("neighborhood of %s: %w", p, ErrUnknownNote)
	}
	// A walk asks for the incoming links of every node it reaches: found per node,
	// each would ask about every link of every note naming it, so the view learns
	// the hidden notes once, as whole-graph queries do.
	v := g.view(opts.Hidden).all()
	keep := func(t string) bool { return len(opts.Types) == 0 || slices.Contains(opts.Types, t) }
	level := map[int32]int{start: 0}
	order := []int32{start}
	out := &Neighborhood{Commit: commit, Center: p}
	for head := 0; head < len(order); head++ {
		id := order[head]
		d := level[id]
		if d == depth {
			continue
		}
		var next []int32
		for i := range g.nodes[id].out {
			if r := v.out(id, i); r.to >= 0 && !g.nodes[r.to].attachment && keep(edgeType(g.nodes[id], i)) {
				next = append(next, r.to)
			}
		}
		for _, b := range v.in(id) {
			if keep(edgeType(g.nodes[b.from], int(b.link))) {
				next = append(next, b.from)
			}
		}
		// Visit a level in path order, so that a capped answer is the same every time.
		slices.SortFunc(next, func(a, b int32) int {
			return strings.Compare(string(g.nodes[a].rec.names.path), string(g.nodes[b].rec.names.path))
		})
		for _, o := range next {
			if _, seen := level[o]; seen {
				continue
			}
			if len(order) == maxNodes {
				out.Truncated = true
				break
			}
			level[o] = d + 1
			order = append(order, o)
		}
	}
	slices.SortStableFunc(order[1:], func(a, b int32) int {
		if c := cmp.Compare(level[a], level[b]); c != 0 {
			return c
		}
		return strings.Compare(string(g.nodes[a].rec.names.path), string(g.nodes[b].rec.names.path))
	})
	out.Nodes = make([]Node, len(order))
	for i, id := range order {
		out.Nodes[i] = g.nodeOf(id, level[id], v)
	}
	out.Edges = []Edge{}
	seen := map[Edge]bool{}
	for _, id := range order {
		n := g.nodes[id]
		for i := range n.out {
			r := v.out(id, i)
			if r.to < 0 || r.to == id {
				continue
			}
			if _, in := level[r.to]; !in {
				continue
			}
			e := Edge{From: n.rec.names.path, To: g.nodes[r.to].rec.names.path, Type: edgeType(n, i)}
			if keep(e.Type) && !seen[e] {
				seen[e] = true
				out.Edges = append(out.Edges, e)
			}
		}
	}
	return out, nil
}

// NodeList is a page of nodes.
type NodeList struct {
	Commit string `json:"commit"`
	Nodes  []Node `json:"nodes"`
	// Total counts every node the query matches; NextOffset is where the next page
	// starts (0 when this is the last).
	Total      int `json:"total"`
	NextOffset int `json:"next_offset,omitempty"`
}

// Hubs returns the notes with the most backlinks (distinct linking notes), most
// first, ties by path; a page of limit (default 20, at most 1000) from offset.
func (ix *Index) Hubs(limit, offset int) (*NodeList, error) { return ix.HubsHiding(limit, offset, nil) }

// HubsHiding is Hubs as seen by a caller that may not see the hidden notes.
func (ix *Index) HubsHiding(limit, offset int, hidden Hidden) (*NodeList, error) {
	return withGraph(ix, func(g *linkGraph, commit string) (*NodeList, error) { return g.hubs(commit, limit, offset, hidden) })
}

func (g *linkGraph) hubs(commit string, limit, offset int, hidden Hidden) (*NodeList, error) {
	return g.nodeList(commit, "hubs", limit, offset, hidden, func(n Node) bool { return n.Backlinks > 0 },
		func(a, b Node) int {
			if c := cmp.Compare(b.Backlinks, a.Backlinks); c != 0 {
				return c
			}
			return strings.Compare(string(a.ID), string(b.ID))
		})
}

// Orphans returns the notes no other note links to and that link to no other
// note, by path; a page of limit (default 20, at most 1000) from offset.
func (ix *Index) Orphans(limit, offset int) (*NodeList, error) {
	return ix.OrphansHiding(limit, offset, nil)
}

// OrphansHiding is Orphans as seen by a caller that may not see the hidden notes
// (a note linked only from or to hidden notes is an orphan to it).
func (ix *Index) OrphansHiding(limit, offset int, hidden Hidden) (*NodeList, error) {
	return withGraph(ix, func(g *linkGraph, commit string) (*NodeList, error) { return g.orphans(commit, limit, offset, hidden) })
}

func (g *linkGraph) orphans(commit string, limit, offset int, hidden Hidden) (*NodeList, error) {
	return g.nodeList(commit, "orphans", limit, offset, hidden, func(n Node) bool { return n.Backlinks == 0 && n.Links == 0 },
		func(a, b Node) int { return strings.Compare(string(a.ID), string(b.ID)) })
}

func (g *linkGraph) nodeList(commit, what string, limit, offset int, hidden Hidden, match func(Node) bool, order func(a, b Node) int) (*NodeList, error) {
	limit = cmp.Or(limit, 20)
	if limit < 1 || limit > 1000 {
		return nil, fmt.Errorf("%s: limit %d: %w", what, limit, errRange("limit", 1, 1000))
	}
	if offset < 0 {
		return nil, fmt.Errorf("%s: offset %d: %w", what, offset, errRange("offset", 0, 1<<31-1))
	}
	var all []Node
	v := g.view(hidden).all()
	for id, n := range g.nodes {
		if n == nil || n.attachment || v.hides(int32(id)) {
			continue
		}
		if nd := g.nodeOf(int32(id), 0, v); match(nd) {
			all = append(all, nd)
		}
	}
	slices.SortFunc(all, order)
	out := &NodeList{Commit: commit, Total: len(all), Nodes: []Node{}}
	if offset < len(all) {
		end := min(len(all), offset+limit)
		out.Nodes = append(out.Nodes, all[offset:end]...)
		if end < len(all) {
			out.NextOffset = end
		}
	}
	return out, nil
}

// GraphPath is a shortest path between two notes.
type GraphPath struct {
	Commit string    `json:"commit"`
	From   note.Path `json:"from"`
	To     note.Path `json:"to"`
	// Found is false when no path of at most MaxDepth hops exists.
	Found bool   `json:"found"`
	Nodes []Node `json:"nodes"`
	// Edges are the hops in order, each as written (From links to To), so a hop
	// walked against a link's direction shows From and To swapped.
	Edges []Edge `json:"edges"`
}

// ShortestPath finds a shortest chain of links between a and b, following links in
// either direction, of at most maxDepth hops (default 6, at most 12).
func (ix *Index) ShortestPath(a, b note.Path, maxDepth int) (*GraphPath, error) {
	return withGraph(ix, func(g *linkGraph, commit string) (*GraphPath, error) { return g.shortestPath(commit, a, b, maxDepth) })
}

func (g *linkGraph) shortestPath(commit string, a, b note.Path, maxDepth int) (*GraphPath, error) {
	maxDepth = cmp.Or(maxDepth, 6)
	if maxDepth < 1 || maxDepth > 12 {
		return nil, fmt.Errorf("path: max_depth %d: %w", maxDepth, errRange("max_depth", 1, 12))
	}
	from, fn, ok := g.node(a)
	if !ok || fn.attachment {
		return nil, fmt.Errorf("path from %s: %w", a, ErrUnknownNote)
	}
	to, tn, ok := g.node(b)
	if !ok || tn.attachment {
		return nil, fmt.Errorf("path to %s: %w", b, ErrUnknownNote)
	}
	type step struct {
		prev int32
		edge Edge
	}
	prev := map[int32]step{from: {prev: -1}}
	depth := map[int32]int{from: 0}
	queue := []int32{from}
	for head := 0; head < len(queue); head++ {
		if _, done := prev[to]; done {
			break
		}
		id := queue[head]
		if depth[id] == maxDepth {
			break
		}
		n := g.nodes[id]
		visit := func(o int32, e Edge) {
			if _, seen := prev[o]; !seen {
				prev[o] = step{prev: id, edge: e}
				depth[o] = depth[id] + 1
				queue = append(queue, o)
			}
		}
		for i, r := range n.out {
			if r.to >= 0 && !g.nodes[r.to].attachment {
				visit(r.to, Edge{From: n.rec.names.path, To: g.nodes[r.to].rec.names.path, Type: edgeType(n, i)})
			}
		}
		for _, br := range g.in[id] {
			src := g.nodes[br.from]
			visit(br.from, Edge{From: src.rec.names.path, To: n.rec.names.path, Type: edgeType(src, int(br.link))})
		}
	}
	out := &GraphPath{Commit: commit, From: a, To: b, Nodes: []Node{}, Edges: []Edge{}}
	if _, ok := prev[to]; !ok {
		return out, nil
	}
	out.Found = true
	var ids []int32
	var edges []Edge
	for id := to; id != -1; id = prev[id].prev {
		ids = append(ids, id)
		if id != from {
			edges = append(edges, prev[id].edge)
		}
	}
	slices.Reverse(ids)
	slices.Reverse(edges)
	for _, id := range ids {
		out.Nodes = append(out.Nodes, g.nodeOf(id, depth[id], g.view(nil)))
	}
	out.Edges = append(out.Edges, edges...)
	return out, nil
}

// errRange is a bad-argument error naming the accepted range.
func errRange(name string, lo, hi int) error {
	return &ArgError{Name: name, Reason: fmt.Sprintf("must be between %d and %d", lo, hi)}
}

// ArgError is a query argument out of its range. errors.Is(err, ErrArg) holds.
type ArgError struct {
	Name   string
	Reason string
}

// ErrArg is matched by every *ArgError.
var ErrArg = errors.New("invalid argument")

func (e *ArgError) Error() string { return e.Name + " " + e.Reason }

// Is makes errors.Is(err, ErrArg) true.
func (e *ArgError) Is(target error) bool { return target == ErrArg }

// NoteInfo is a note as the index keeps it apart from its links.
type NoteInfo struct {
	Path  note.Path
	Title string
	Tags  []string
}

// NotesHiding returns the notes at the index's commit (no attachments) that
// hidden does not hide, sorted by path.
func (ix *Index) NotesHiding(hidden Hidden) ([]NoteInfo, error) {
	return withGraph(ix, func(g *linkGraph, _ string) ([]NoteInfo, error) { return g.notes(hidden), nil })
}

func (g *linkGraph) notes(hidden Hidden) []NoteInfo {
	out := make([]NoteInfo, 0, len(g.nodes))
	for id, n := range g.nodes {
		if n == nil || n.attachment || hidden.hides(g, int32(id)) {
			continue
		}
		out = append(out, NoteInfo{Path: n.rec.names.path, Title: n.rec.names.title, Tags: slices.Clone(n.rec.tags)})
	}
	slices.SortFunc(out, func(a, b NoteInfo) int { return strings.Compare(string(a.Path), string(b.Path)) })
	return out
}

// withGraph runs q on the link graph and the commit it reflects, under the
// index's read lock.
func withGraph[T any](ix *Index, q func(g *linkGraph, commit string) (T, error)) (T, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	g, err := ix.graph()
	if err != nil {
		var zero T
		return zero, err
	}
	return q(g, ix.commit)
}
