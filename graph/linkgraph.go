package graph

import (
	"context"
	"slices"

	"github.com/norn-vault/norn/note"
)

// linkGraph is the resolved link graph in memory, built from the node records when
// the index opens and changed in place by Update. Node ids are dense and stable
// while the graph lives; a removed node leaves a nil slot.
//
// Invariants: for every live node n and link i of n resolved to a note t,
// in[t] holds {n, i} exactly once; byKey[k] holds n (once) for every lookup key k
// of n's links; every live node is known to res.
type linkGraph struct {
	res   *Resolver
	nodes []*gnode
	ids   map[note.Path]int32
	in    [][]backref
	byKey keyIDs
	byTag keyIDs
	// marked, while apply runs, collects the notes a link was taken from or
	// given to: the notes whose inbound field may change.
	marked map[note.Path]bool
}

// gnode is one note or attachment.
type gnode struct {
	rec        nodeRec // contexts dropped
	attachment bool
	out        []lres // the resolution of each of rec.links
}

// keys returns the lookup keys of n's links, each once, sorted.
func (n *gnode) keys() []string { return lookupKeys(&n.rec) }

// lookupKeys returns the lookup keys of r's links, each once, sorted. (A note may
// have hundreds of links: deduplicating by sorting keeps this linear-logarithmic.)
func lookupKeys(r *nodeRec) []string {
	ks := make([]string, 0, 3*len(r.links))
	for _, l := range r.links {
		ks = appendLookupKeys(ks, r.names.path, l.asLink())
	}
	slices.Sort(ks)
	return slices.Compact(ks)
}

// lres is where one link points.
type lres struct {
	to           int32 // node id when resolved, else -1
	status       uint8 // statusResolved, statusBroken, statusAmbiguous
	headingFound bool
	candidates   *[]note.Path
}

const (
	statusResolved uint8 = iota
	statusBroken
	statusAmbiguous
)

var statusNames = [...]LinkStatus{statusResolved: LinkResolved, statusBroken: LinkBroken, statusAmbiguous: LinkAmbiguous}

func statusOf(s LinkStatus) uint8 {
	switch s {
	case LinkResolved:
		return statusResolved
	case LinkAmbiguous:
		return statusAmbiguous
	}
	return statusBroken
}

// backref is link i of node from.
type backref struct {
	from int32
	link int32
}

func newLinkGraph(size int) *linkGraph {
	return &linkGraph{
		res:   newResolver(size),
		nodes: make([]*gnode, 0, size),
		in:    make([][]backref, 0, size),
		ids:   make(map[note.Path]int32, size),
		byKey: newKeyIDs(size),
		byTag: newKeyIDs(0),
	}
}

// buildLinkGraph makes the graph of recs and attachments and resolves every link:
// the lookup keys and the resolutions on every core (they only read), the maps
// and the backrefs in order, so the graph is the same as one built on one core.
func buildLinkGraph(recs []nodeRec, attachments []note.Path) *linkGraph {
	ctx := context.Background() // nothing here stops early
	g := newLinkGraph(len(recs) + len(attachments))
	keys := make([][]string, len(recs))
	parallel(ctx, len(recs), 512, func() func(i int) {
		return func(i int) { keys[i] = lookupKeys(&recs[i]) }
	})
	for i, r := range recs {
		g.add(r, keys[i])
	}
	for _, p := range attachments {
		g.addAttachment(p)
	}
	parallel(ctx, len(g.nodes), 512, func() func(i int) {
		return func(i int) {
			if n := g.nodes[i]; !n.attachment {
				n.out = g.resolveLinks(n)
			}
		}
	})
	for id := range g.nodes {
		g.link(int32(id))
	}
	return g
}

func (g *linkGraph) newID(p note.Path, n *gnode) int32 {
	id := int32(len(g.nodes))
	g.nodes = append(g.nodes, n)
	g.in = append(g.in, nil)
	g.ids[p] = id
	return id
}

// add adds a note whose links have the lookup keys keys (lookupKeys) without
// resolving its links (the caller resolves) and returns its id. The path must not
// be in the graph.
func (g *linkGraph) add(r nodeRec, keys []string) int32 {
	r.contexts = nil
	n := &gnode{rec: r}
	id := g.newID(r.names.path, n)
	g.res.addNote(r.names)
	for _, k := range keys {
		g.byKey.add(k, id)
	}
	for _, t := range uniq(r.tags) {
		g.byTag.add(t, id)
	}
	return id
}

func (g *linkGraph) addAttachment(p note.Path) int32 {
	id := g.newID(p, &gnode{rec: nodeRec{names: nodeNames{path: p}}, attachment: true})
	g.res.addFile(p)
	return id
}

// drop removes node id: its outgoing backrefs, its keys and tags, its names.
func (g *linkGraph) drop(id int32) {
	n := g.nodes[id]
	g.unresolve(id)
	for _, k := range n.keys() {
		g.byKey.remove(k, id)
	}
	for _, t := range uniq(n.rec.tags) {
		g.byTag.remove(t, id)
	}
	g.res.remove(n.rec.names.path)
	delete(g.ids, n.rec.names.path)
	g.nodes[id] = nil
}

// unresolve takes node id's links out of their targets' backrefs.
func (g *linkGraph) unresolve(id int32) {
	n := g.nodes[id]
	for _, r := range n.out {
		if r.to >= 0 {
			g.mark(r.to)
			g.in[r.to] = slices.DeleteFunc(g.in[r.to], func(b backref) bool { return b.from == id })
		}
	}
	n.out = nil
}

// resolve (re)resolves node id's links.
func (g *linkGraph) resolve(id int32) {
	n := g.nodes[id]
	if n == nil || n.attachment {
		return
	}
	if n.out != nil {
		g.unresolve(id)
	}
	n.out = g.resolveLinks(n)
	g.link(id)
}

// resolveLinks returns where each of n's links points. It only reads g, so calls
// for different nodes may run at once.
func (g *linkGraph) resolveLinks(n *gnode) []lres {
	p := n.rec.names.path
	out := make([]lres, len(n.rec.links))
	for i := range n.rec.links {
		out[i] = g.lresOf(g.res.Resolve(p, n.rec.links[i].asLink()))
	}
	return out
}

// link adds node id's resolved links to their targets' backrefs.
func (g *linkGraph) link(id int32) {
	n := g.nodes[id]
	if n == nil {
		return
	}
	for i, r := range n.out {
		if r.to >= 0 {
			g.mark(r.to)
			g.in[r.to] = append(g.in[r.to], backref{from: id, link: int32(i)})
		}
	}
}

// mark records node id, when live, as a link's target that changed.
func (g *linkGraph) mark(id int32) {
	if g.marked != nil && g.nodes[id] != nil {
		g.marked[g.nodes[id].rec.names.path] = true
	}
}

// apply replaces the nodes of put and removes those of remove (and attachments),
// then re-resolves every link whose resolution the change can affect: the links
// of the changed notes and every link whose lookup keys meet a key of a note added,
// removed or renamed. It returns the paths of the live nodes a link was taken
// from or now points at: with the notes put, those whose inbound field may
// have changed.
func (g *linkGraph) apply(put []nodeRec, attachments []note.Path, remove []note.Path) map[note.Path]bool {
	g.marked = map[note.Path]bool{}
	defer func() { g.marked = nil }()
	touched := map[int32]bool{}
	changedKeys := map[string]bool{}
	markKeys := func(p note.Path) {
		for _, k := range g.res.keysOf(p) {
			changedKeys[k] = true
		}
	}
	for _, p := range remove {
		if id, ok := g.ids[p]; ok {
			markKeys(p)
			g.drop(id)
		}
	}
	for _, r := range put {
		p := r.names.path
		if id, ok := g.ids[p]; ok {
			markKeys(p)
			g.drop(id)
		}
		touched[g.add(r, lookupKeys(&r))] = true
		markKeys(p)
	}
	for _, p := range attachments {
		if _, ok := g.ids[p]; ok {
			continue
		}
		g.addAttachment(p)
		markKeys(p)
	}
	var one [1]int32
	for k := range changedKeys {
		for _, id := range g.byKey.get(k, &one) {
			touched[id] = true
		}
	}
	// Links that pointed at a dropped or replaced node lost their target: their
	// sources meet its keys above (a link resolves only through one of its
	// target's keys), so they are re-resolved too.
	ids := make([]int32, 0, len(touched))
	for id := range touched {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		g.resolve(id)
	}
	return g.marked
}

// node returns the live node at p.
func (g *linkGraph) node(p note.Path) (int32, *gnode, bool) {
	id, ok := g.ids[p]
	if !ok {
		return -1, nil, false
	}
	return id, g.nodes[id], true
}

func uniq(s []string) []string {
	if len(s) < 2 {
		return s
	}
	out := make([]string, 0, len(s))
	for _, x := range s {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
