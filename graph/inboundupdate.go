package graph

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/norn-vault/norn/note"
)

// Catching up the inbound field (inbound.go): an Update works out again the
// field of every note whose inbound links may have changed, and writes only
// what differs.

// dropInbound drops the inbound postings and record of doc id, being removed.
func (u *update) dropInbound(id uint32) error {
	b, err := u.ix.get(docKey(prefixIn, id))
	if err != nil || b == nil {
		return err
	}
	r, err := decodeInbound(b)
	if err != nil {
		return corrupt(err)
	}
	for _, t := range r.terms {
		u.changes[t.term] = append(u.changes[t.term], change{doc: id})
	}
	u.b.Delete(docKey(prefixIn, id), nil)
	return nil
}

// inbound works out again the inbound field of every note put and every note
// marked (lg.apply's answer) that is indexed after the batch, and adds what
// changed to the batch: postings, inbound record, doc record and stats. lg is the
// graph after the batch; context records come from the batch for the notes put,
// else from the index.
func (u *update) inbound(ctx context.Context, lg *linkGraph, pub *view, marked map[note.Path]bool) error {
	putAt := make(map[note.Path]int, len(u.puts))
	for i, p := range u.puts {
		putAt[p.rec.path] = i
		marked[p.rec.path] = true
	}
	paths := make([]note.Path, 0, len(marked))
	for p := range marked {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	line := u.contextLines(lg, true)
	da := newDocAnalyzer(u.ix.an)
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := u.inboundOf(p, putAt, lg, pub, da, line); err != nil {
			return fmt.Errorf("inbound field of %s: %w", p, err)
		}
	}
	return nil
}

// applyGraph brings lg to the batch (lg.apply) and returns the notes whose
// inbound field may change, with the graph as seen without the private notes
// after the batch. Beyond the notes apply marks, those are the notes where links
// the batch can re-resolve point without the private notes, before the batch
// and after it: a private note's name can make a public link ambiguous, and a
// note put can change privacy, so a public line can move while the graph's own
// resolution stays. A note the notes put linked to before the batch whose
// field's inputs (fieldInputs) are the same after it is left out: editing a hub
// without touching its linking lines works out none of its targets' fields.
func (u *update) applyGraph(lg *linkGraph, remove []note.Path) (map[note.Path]bool, *view, error) {
	var keys []string
	paths := slices.Clone(remove)
	for _, p := range remove {
		keys = append(keys, lg.res.keysOf(p)...)
	}
	put := make(map[note.Path]bool, len(u.nodes))
	for i := range u.nodes {
		nn := u.nodes[i].names
		keys = append(append(keys, lg.res.keysOf(nn.path)...), keysOfNames(nn)...)
		paths = append(paths, nn.path)
		put[nn.path] = true
	}
	for _, p := range u.atts {
		e := fileEntry(p)
		keys = append(keys, e.keys()...)
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	before := map[note.Path]bool{}
	old := lg.view(u.privateNotes(false))
	lg.markPublicTargets(old, keys, paths, before)
	inputs, err := u.targetInputs(lg, old, put)
	if err != nil {
		return nil, nil, err
	}
	marked := lg.apply(u.nodes, u.atts, remove)
	pub := lg.view(u.privateNotes(true))
	lg.markPublicTargets(pub, keys, paths, marked)
	for p := range before {
		marked[p] = true
	}
	line := u.contextLines(lg, true)
	for t, was := range inputs {
		n := lg.nodes[t]
		if n == nil || !marked[n.rec.names.path] {
			continue
		}
		now, err := lg.fieldInputs(t, pub, put, line)
		if err != nil {
			return nil, nil, corrupt(err)
		}
		if slices.Equal(was, now) {
			delete(marked, n.rec.names.path)
		}
	}
	return marked, pub, nil
}

// targetInputs returns, before the batch is applied to lg, the inputs
// (fieldInputs) of the field of every note a note in put links to, in the graph
// or in pub, the graph as seen without the private notes before the batch; the
// notes put themselves are left out (their fields are worked out anyway).
func (u *update) targetInputs(lg *linkGraph, pub *view, put map[note.Path]bool) (map[int32][]fieldInput, error) {
	line := u.contextLines(lg, false)
	out := map[int32][]fieldInput{}
	add := func(t int32) error {
		if t < 0 {
			return nil
		}
		if _, ok := out[t]; ok {
			return nil
		}
		if n := lg.nodes[t]; n.attachment || put[n.rec.names.path] {
			return nil
		}
		in, err := lg.fieldInputs(t, pub, put, line)
		if err != nil {
			return corrupt(err)
		}
		out[t] = in
		return nil
	}
	for p := range put {
		id, n, ok := lg.node(p)
		if !ok || n.attachment {
			continue
		}
		for i, r := range n.out {
			if err := add(r.to); err != nil {
				return nil, err
			}
			if pub.hidden != nil && !pub.hides(id) {
				if err := add(pub.out(id, i).to); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}

// fieldInput is one link that enters a note's inbound field, as catch-up
// compares a field's inputs before and after a batch: a link of a note the batch
// puts by its source and text (both may change), any other by its node and link
// (its text cannot change: its context record and edges stay).
type fieldInput struct {
	from    int32 // -1 for a link of a note put
	link    int32
	path    note.Path
	text    string
	private bool
}

// fieldInputs returns the inputs of node t's field (inboundRefs), sorted: the
// field is a function of them, as long as the notes not in put stay.
func (g *linkGraph) fieldInputs(t int32, pub *view, put map[note.Path]bool, line func(int32, int) (string, error)) ([]fieldInput, error) {
	out := make([]fieldInput, 0, len(g.in[t]))
	err := g.inboundRefs(t, pub, func(b backref, private bool) error {
		in := fieldInput{from: b.from, link: b.link, private: private}
		if p := g.nodes[b.from].rec.names.path; put[p] {
			text, err := g.refText(b, line)
			if err != nil {
				return err
			}
			in = fieldInput{from: -1, link: -1, path: p, text: text, private: private}
		}
		out = append(out, in)
		return nil
	})
	slices.SortFunc(out, func(a, b fieldInput) int {
		return cmp.Or(cmp.Compare(a.from, b.from), cmp.Compare(a.link, b.link), strings.Compare(string(a.path), string(b.path)),
			strings.Compare(a.text, b.text), cmp.Compare(b2i(a.private), b2i(b.private)))
	})
	return out, err
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// contextLines returns a func that returns link i's context line of node id of
// lg ("" past the record's end), decoding each context record once: after the batch (the
// batch's records for the notes put, else the index's), or before it (the
// index's).
func (u *update) contextLines(lg *linkGraph, after bool) func(id int32, i int) (string, error) {
	recs := map[int32][]string{} // decoded context records, by node
	return func(id int32, i int) (string, error) {
		cs, ok := recs[id]
		if !ok {
			p := lg.nodes[id].rec.names.path
			b, ok := u.ctx[p]
			if !ok || !after {
				var err error
				if b, err = u.ix.get(nodeKey(prefixContext, p)); err != nil {
					return "", err
				}
			}
			var err error
			if cs, err = decodeContexts(b); err != nil {
				return "", err
			}
			recs[id] = cs
		}
		if i < len(cs) {
			return cs[i], nil
		}
		return "", nil
	}
}

// privateNotes returns the private notes as a Hidden: as indexed before the
// batch, or after it; nil when there are none.
func (u *update) privateNotes(after bool) Hidden {
	var put map[note.Path]bool
	some := false
	if after {
		put = make(map[note.Path]bool, len(u.puts))
		for _, p := range u.puts {
			put[p.rec.path] = p.rec.private
			some = some || p.rec.private
		}
	}
	if u.dt.pub.docs != u.dt.stats.docs { // private docs before the batch
		for d := range u.dt.docs {
			if some {
				break
			}
			r := &u.dt.docs[d]
			_, reput := put[r.path]
			some = r.live && r.private && !(after && (u.removed[uint32(d)] || reput))
		}
	}
	if !some {
		return nil
	}
	return func(p note.Path) bool {
		if private, ok := put[p]; ok {
			return private
		}
		d, ok := u.dt.byPath[p]
		return ok && u.dt.docs[d].private
	}
}

// inboundOf brings the inbound field of the note at p, if indexed after the
// batch, to lg (see inbound).
func (u *update) inboundOf(p note.Path, putAt map[note.Path]int, lg *linkGraph, pub *view, da *docAnalyzer,
	line func(int32, int) (string, error)) error {
	var id uint32
	var rec docRecord
	var counted [2]uint32 // what u.st counts of its inbound lengths
	i, put := putAt[p]
	switch d, ok := u.dt.byPath[p]; {
	case put:
		id, rec = u.puts[i].id, u.puts[i].rec
	case ok && !u.removed[d]:
		id, rec = d, u.dt.record(d)
		counted = rec.in
	default:
		return nil
	}
	var lines []inLine
	if nid, n, ok := lg.node(p); ok && !n.attachment {
		var err error
		if lines, err = lg.inboundLines(nid, pub, line); err != nil {
			return corrupt(err)
		}
	}
	var old inboundRec
	existed := int(id) < len(u.dt.docs) && u.dt.docs[id].live // indexed before, under this id
	if existed {
		b, err := u.ix.get(docKey(prefixIn, id))
		if err != nil {
			return err
		}
		if b != nil {
			if old, err = decodeInbound(b); err != nil {
				return corrupt(err)
			}
		}
	}
	if existed && slices.Equal(old.lines, lines) {
		// The same lines: the same postings, record and lengths. Only a note put
		// again needs its lengths back in its doc record and the stats.
		if !put {
			return nil
		}
		rec.in = u.dt.docs[id].in
		for k := range u.st.in {
			u.st.in[k] += uint64(rec.in[k])
		}
		u.b.Set(docKey(prefixDoc, id), rec.encode(), nil)
		u.puts[i].rec = rec
		return nil
	}
	ai := analyseInbound(da, lines)
	keep := make(map[string]uint32, len(old.terms))
	for _, t := range old.terms {
		keep[t.term] = t.hash
	}
	for _, e := range ai.entries {
		h, ok := keep[e.term]
		delete(keep, e.term)
		if ok && h == entryHash(e) {
			continue
		}
		u.changes[e.term] = append(u.changes[e.term], change{doc: id, put: true, head: e.head, pos: e.pos})
	}
	for t := range keep {
		u.changes[t] = append(u.changes[t], change{doc: id})
	}
	if len(ai.lines) == 0 {
		if len(old.lines) > 0 {
			u.b.Delete(docKey(prefixIn, id), nil)
		}
	} else if !slices.Equal(old.lines, ai.lines) {
		u.buf = ai.encode(u.buf[:0])
		u.b.Set(docKey(prefixIn, id), u.buf, nil)
	}
	for k := range u.st.in {
		u.st.in[k] += uint64(ai.lens[k]) - uint64(counted[k])
	}
	if !put && rec.in == ai.lens {
		return nil
	}
	rec.in = ai.lens
	u.b.Set(docKey(prefixDoc, id), rec.encode(), nil)
	if put {
		u.puts[i].rec = rec
	} else {
		u.puts = append(u.puts, putDoc{id, rec})
	}
	return nil
}
