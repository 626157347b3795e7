package graph

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"slices"

	"github.com/cockroachdb/pebble/v2"

	"github.com/norn-vault/norn/note"
)

// Update indexes put and removes remove, in one atomic batch that also records
// commit as the commit the index reflects. A path already indexed that is put
// again replaces its old postings; removing a path that is not indexed is a no-op.
// A path may not be both put and removed, nor put twice.
//
// The batch is written without fsync: after a crash the index may come back as
// it was before some recent Updates, always with the commit those Updates had not
// yet recorded, so catching up from Commit() is exact.
func (ix *Index) Update(ctx context.Context, commit string, put []Doc, remove []note.Path) error {
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	if err := ix.checkOpen(); err != nil {
		return err
	}
	if err := checkDocs(put, remove); err != nil {
		return fmt.Errorf("update index: %w", err)
	}
	dt := ix.docs // only writers change it, and we hold writeMu
	st := dt.stats
	b := ix.db.NewBatch()
	defer b.Close()

	changes := map[string][]change{}
	removed := map[uint32]bool{}
	// dropDoc removes a doc's postings, except those in keep (a re-put doc's
	// postings that did not change: term → hash), which it deletes from keep.
	dropDoc := func(id uint32, keep map[string]uint32) error {
		fwd, err := ix.get(docKey(prefixFwd, id))
		if err != nil {
			return err
		}
		terms, err := decodeForward(fwd)
		if err != nil {
			return corrupt(err)
		}
		for _, t := range terms {
			if h, ok := keep[t.term]; ok && h == t.hash {
				delete(keep, t.term)
				continue
			}
			changes[t.term] = append(changes[t.term], change{doc: id})
		}
		info := dt.docs[id]
		st.docs--
		for f := range st.total {
			st.total[f] -= uint64(info.lens[f])
		}
		removed[id] = true
		return nil
	}
	for _, p := range remove {
		if err := ctx.Err(); err != nil {
			return err
		}
		id, ok := dt.byPath[p]
		if !ok {
			continue
		}
		if err := dropDoc(id, nil); err != nil {
			return fmt.Errorf("update index: remove %s: %w", p, err)
		}
		b.Delete(docKey(prefixDoc, id), nil)
		b.Delete(docKey(prefixFwd, id), nil)
		b.Delete(docKey(prefixText, id), nil)
	}
	var nodes []nodeRec
	var atts []note.Path
	var buf []byte
	for _, p := range remove {
		b.Delete(nodeKey(prefixNode, p), nil)
		b.Delete(nodeKey(prefixContext, p), nil)
		b.Delete(nodeKey(prefixAttachment, p), nil)
	}
	for _, d := range put {
		if d.Note == nil {
			atts = append(atts, d.Path)
			b.Set(nodeKey(prefixAttachment, d.Path), nil, nil)
			continue
		}
		r := nodeRecOf(d.Note, d.Unparsed)
		buf = r.encode(buf[:0])
		b.Set(nodeKey(prefixNode, d.Path), buf, nil)
		buf = r.encodeContexts(buf[:0])
		b.Set(nodeKey(prefixContext, d.Path), buf, nil)
		nodes = append(nodes, r)
	}

	da := newDocAnalyzer(ix.an)
	type putDoc struct {
		id  uint32
		rec docRecord
	}
	puts := make([]putDoc, 0, len(put))
	for _, d := range put {
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.Note == nil {
			continue // an attachment: not searched
		}
		da.analyse(d.Path, d.Note)
		// fresh holds the postings to write: all of them for a new doc; for a
		// re-put doc, those that changed (dropDoc takes the unchanged out).
		fresh := make(map[string]uint32, len(da.entries))
		for _, e := range da.entries {
			fresh[e.term] = entryHash(e)
		}
		id, ok := dt.byPath[d.Path]
		if ok {
			if err := dropDoc(id, fresh); err != nil {
				return fmt.Errorf("update index: put %s: %w", d.Path, err)
			}
		} else {
			id = st.next
			st.next++
		}
		rec := docRecord{path: d.Path, revision: d.Revision, title: d.Note.Title, lens: da.lens}
		st.docs++
		for f := range st.total {
			st.total[f] += uint64(da.lens[f])
		}
		arena := make([]byte, 0, arenaSize(da.entries))
		for _, e := range da.entries {
			if _, ok := fresh[e.term]; !ok {
				continue // unchanged
			}
			h0 := len(arena)
			arena = append(arena, e.head...)
			p0 := len(arena)
			arena = append(arena, e.pos...)
			changes[e.term] = append(changes[e.term], change{doc: id, put: true, head: arena[h0:p0:p0], pos: arena[p0:len(arena):len(arena)]})
		}
		b.Set(docKey(prefixDoc, id), rec.encode(), nil)
		buf = forwardList(buf[:0], da.entries)
		b.Set(docKey(prefixFwd, id), buf, nil)
		buf = storedTextOf(d.Note, da.lines).encode(buf[:0])
		b.Set(docKey(prefixText, id), buf, nil)
		puts = append(puts, putDoc{id, rec})
		delete(removed, id)
	}

	terms := make([]string, 0, len(changes))
	for t := range changes {
		terms = append(terms, t)
	}
	slices.Sort(terms)
	it, err := ix.db.NewIter(&pebble.IterOptions{LowerBound: []byte(prefixTerm), UpperBound: prefixEnd(prefixTerm)})
	if err != nil {
		return fmt.Errorf("update index: %w", corrupt(err))
	}
	tw := termWriter{it: it, b: b}
	for _, t := range terms {
		if err := tw.apply(t, changes[t]); err != nil {
			it.Close()
			return fmt.Errorf("update index: term %q: %w", t, err)
		}
	}
	if err := it.Close(); err != nil {
		return fmt.Errorf("update index: %w", corrupt(err))
	}
	b.Set([]byte(keyStats), st.encode(), nil)
	b.Set([]byte(keyCommit), []byte(commit), nil)
	if err := ctx.Err(); err != nil {
		return err
	}

	ix.mu.Lock()
	defer ix.mu.Unlock()
	if err := b.Commit(pebble.NoSync); err != nil {
		return fmt.Errorf("update index: %w", corrupt(err))
	}
	for id := range removed {
		dt.remove(id)
	}
	for _, p := range puts {
		dt.set(p.id, p.rec)
	}
	dt.grow(st.next)
	dt.stats = st
	dt.refresh(&ix.opts.Weights)
	ix.links.apply(nodes, atts, remove)
	ix.commit = commit
	return nil
}

func (ix *Index) checkOpen() error {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.closed {
		return ErrClosed
	}
	return nil
}

func checkDocs(put []Doc, remove []note.Path) error {
	seen := make(map[note.Path]bool, len(put))
	for _, d := range put {
		if d.Path == "" {
			return fmt.Errorf("put: empty path")
		}
		if seen[d.Path] {
			return fmt.Errorf("put %s twice", d.Path)
		}
		seen[d.Path] = true
	}
	for _, p := range remove {
		if seen[p] {
			return fmt.Errorf("%s both put and removed", p)
		}
	}
	return nil
}

func arenaSize(es []termEntry) int {
	n := 0
	for _, e := range es {
		n += len(e.head) + len(e.pos)
	}
	return n
}

// forwardList encodes a doc's sorted terms, each with the hash of its posting
// (so a re-put leaves unchanged postings alone): per term, uvarint length,
// term, 4 bytes of FNV-1a over the posting.
func forwardList(dst []byte, es []termEntry) []byte {
	for _, e := range es {
		dst = appendString(dst, e.term)
		dst = binary.BigEndian.AppendUint32(dst, entryHash(e))
	}
	return dst
}

type fwdTerm struct {
	term string
	hash uint32
}

func decodeForward(b []byte) ([]fwdTerm, error) {
	var out []fwdTerm
	d := decoder{b: b}
	for len(d.b) > 0 && d.err == nil {
		t := d.string()
		if len(d.b) < 4 {
			return nil, errBadRecord
		}
		out = append(out, fwdTerm{t, binary.BigEndian.Uint32(d.b)})
		d.b = d.b[4:]
	}
	return out, d.err
}

func entryHash(e termEntry) uint32 {
	h := fnv.New32a()
	h.Write(e.head)
	h.Write(e.pos)
	return h.Sum32()
}

func storedTextOf(n *note.Note, lines []uint32) *storedText {
	bs := min(max(n.BodyStart, 0), len(n.Raw))
	t := &storedText{bodyStart: bs, raw: n.Raw, lineWords: lines, bodyLine: bytes.Count(n.Raw[:bs], []byte{'\n'}) + 1}
	for _, h := range n.Headings {
		t.headings = append(t.headings, storedHeading{level: h.Level, line: h.Line, start: h.Start, text: h.Text})
	}
	return t
}

// change is one doc's new posting for a term (put) or its removal.
type change struct {
	doc       uint32
	put       bool
	head, pos []byte
}

// termWriter rewrites the posting blocks a set of changes touches, reading the
// committed blocks through one iterator over all terms.
type termWriter struct {
	it  *pebble.Iterator
	b   *pebble.Batch
	key []byte
	bw  blockWriter
	val []byte
}

// apply merges chs (any order; for one doc the last change wins) into term's blocks.
func (w *termWriter) apply(term string, chs []change) error {
	// Sort by doc, keeping the last change of each doc.
	slices.SortStableFunc(chs, func(a, b change) int { return cmp.Compare(a.doc, b.doc) })
	out := chs[:0]
	for i, c := range chs {
		if i+1 < len(chs) && chs[i+1].doc == c.doc {
			continue
		}
		out = append(out, c)
	}
	chs = out
	for len(chs) > 0 {
		d := chs[0].doc
		// The block that holds d is the first at or after termKey(term, d): its
		// key is its last doc, or lastBlock for the term's last block.
		key := termKey(nil, term, lastBlock)
		upper := lastBlock
		var old []entry
		w.key = termKey(w.key[:0], term, d)
		if w.it.SeekGE(w.key) {
			if t, k, ok := parseTermKey(w.it.Key()); ok && string(t) == term {
				v, err := w.it.ValueAndErr()
				if err != nil {
					return corrupt(err)
				}
				if old, err = decodeBlock(bytes.Clone(v)); err != nil {
					return corrupt(err)
				}
				key, upper = bytes.Clone(w.it.Key()), k
			}
		} else if err := w.it.Error(); err != nil {
			return corrupt(err)
		}
		n := 0
		for n < len(chs) && chs[n].doc <= upper {
			n++
		}
		merged := mergeEntries(old, chs[:n])
		chs = chs[n:]
		if err := w.writeBlocks(term, key, merged); err != nil {
			return err
		}
	}
	return nil
}

// mergeEntries applies sorted changes to a block's sorted entries.
func mergeEntries(old []entry, chs []change) []entry {
	out := make([]entry, 0, len(old)+len(chs))
	i := 0
	for _, c := range chs {
		for i < len(old) && old[i].doc < c.doc {
			out = append(out, old[i])
			i++
		}
		if i < len(old) && old[i].doc == c.doc {
			i++ // replaced or removed
		}
		if c.put {
			out = append(out, entry{doc: c.doc, head: c.head, pos: c.pos})
		}
	}
	return append(out, old[i:]...)
}

// writeBlocks replaces the block at key with es: one block, or several of
// blockFill when there are more than blockMax, the last keeping key (every doc in
// es is at most key's doc) and the others keyed by their last doc.
func (w *termWriter) writeBlocks(term string, key []byte, es []entry) error {
	if len(es) == 0 {
		return w.b.Delete(key, nil)
	}
	for len(es) > 0 {
		n := len(es)
		if n > blockMax {
			n = blockFill
		}
		w.bw.reset()
		for _, e := range es[:n] {
			w.bw.add(e.doc, e.head, e.pos)
		}
		w.val = w.bw.value(w.val[:0])
		k := key
		if n < len(es) {
			w.key = termKey(w.key[:0], term, es[n-1].doc)
			k = w.key
		}
		if err := w.b.Set(k, w.val, nil); err != nil {
			return err
		}
		es = es[n:]
	}
	return nil
}
