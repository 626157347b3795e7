package graph

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

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
	lg := ix.links.get()
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
	// Analyse the notes first, on several cores when there are many.
	ads, err := analyseDocs(ctx, ix.an, put)
	if err != nil {
		return err
	}
	var nodes []nodeRec
	var atts []note.Path
	var buf []byte
	for _, p := range remove {
		b.Delete(nodeKey(prefixNode, p), nil)
		b.Delete(nodeKey(prefixContext, p), nil)
		b.Delete(nodeKey(prefixAttachment, p), nil)
	}
	for i, d := range put {
		if d.Note == nil {
			atts = append(atts, d.Path)
			b.Set(nodeKey(prefixAttachment, d.Path), nil, nil)
			continue
		}
		r := ads[i].node
		buf = r.encode(buf[:0])
		b.Set(nodeKey(prefixNode, d.Path), buf, nil)
		buf = r.encodeContexts(buf[:0])
		b.Set(nodeKey(prefixContext, d.Path), buf, nil)
		nodes = append(nodes, r)
	}

	type putDoc struct {
		id  uint32
		rec docRecord
	}
	puts := make([]putDoc, 0, len(put))
	for i, d := range put {
		if err := ctx.Err(); err != nil {
			return err
		}
		ad := ads[i]
		if ad == nil {
			continue // an attachment: not searched
		}
		// fresh holds the postings to write: all of them for a new doc; for a
		// re-put doc, those that changed (dropDoc takes the unchanged out).
		fresh := make(map[string]uint32, len(ad.entries))
		for _, e := range ad.entries {
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
		rec := ad.rec
		st.docs++
		for f := range st.total {
			st.total[f] += uint64(rec.lens[f])
		}
		for _, e := range ad.entries {
			if _, ok := fresh[e.term]; !ok {
				continue // unchanged
			}
			changes[e.term] = append(changes[e.term], change{doc: id, put: true, head: e.head, pos: e.pos})
		}
		b.Set(docKey(prefixDoc, id), rec.encode(), nil)
		buf = forwardList(buf[:0], ad.entries)
		b.Set(docKey(prefixFwd, id), buf, nil)
		b.Set(docKey(prefixText, id), ad.text, nil)
		puts = append(puts, putDoc{id, rec})
		delete(removed, id)
	}

	if err := ix.writeTerms(ctx, b, changes); err != nil {
		return fmt.Errorf("update index: %w", err)
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
	lg.apply(nodes, atts, remove)
	ix.commit = commit
	return nil
}

// analyseDocs analyses the notes of docs (nil for attachments), on up to
// GOMAXPROCS goroutines when there are enough of them to be worth it.
func analyseDocs(ctx context.Context, an *analyzer, docs []Doc) ([]*analysedDoc, error) {
	out := make([]*analysedDoc, len(docs))
	err := parallel(ctx, len(docs), 8, func() func(i int) {
		da := newDocAnalyzer(an)
		return func(i int) {
			if docs[i].Note != nil {
				out[i] = analyseForRebuild(da, docs[i])
			}
		}
	})
	return out, err
}

// parallel calls, for every i in [0, n), the func a worker got from newWorker:
// on one goroutine when n is below atLeast, else on up to GOMAXPROCS (at most 8)
// goroutines that each take about atLeast/2 items or more. It stops early when
// ctx ends and then returns ctx's error.
func parallel(ctx context.Context, n, atLeast int, newWorker func() func(i int)) error {
	workers := 1
	if n >= atLeast {
		workers = min(runtime.GOMAXPROCS(0), 8, max(1, 2*n/atLeast))
	}
	if workers == 1 {
		fn := newWorker()
		for i := range n {
			if err := ctx.Err(); err != nil {
				return err
			}
			fn(i)
		}
		return nil
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn := newWorker()
			for {
				i := int(next.Add(1)) - 1
				if i >= n || ctx.Err() != nil {
					return
				}
				fn(i)
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// writeTerms merges changes into the committed posting blocks and writes the
// blocks that change into b. Terms are split into contiguous ranges of about
// equal work, each read through its own iterator on its own goroutine and
// written into its own batch, which b then takes in.
func (ix *Index) writeTerms(ctx context.Context, b *pebble.Batch, changes map[string][]change) error {
	terms := make([]string, 0, len(changes))
	total := 0
	for t, chs := range changes {
		terms = append(terms, t)
		total += len(chs)
	}
	slices.Sort(terms)
	parts := 1
	if total >= 512 {
		parts = max(1, min(runtime.GOMAXPROCS(0), 4))
	}
	// Cut the sorted terms where the running count of changes passes each
	// part's share.
	bounds := []int{0}
	seen := 0
	for i, t := range terms {
		seen += len(changes[t])
		if len(bounds) < parts && seen*parts >= total*len(bounds) && i+1 < len(terms) {
			bounds = append(bounds, i+1)
		}
	}
	bounds = append(bounds, len(terms))
	write := func(terms []string, b *pebble.Batch) error {
		it, err := ix.db.NewIter(&pebble.IterOptions{LowerBound: []byte(prefixTerm), UpperBound: prefixEnd(prefixTerm)})
		if err != nil {
			return corrupt(err)
		}
		tw := termWriter{it: it, b: b}
		for _, t := range terms {
			if err := ctx.Err(); err != nil {
				it.Close()
				return err
			}
			if err := tw.apply(t, changes[t]); err != nil {
				it.Close()
				return fmt.Errorf("term %q: %w", t, err)
			}
		}
		return corrupt(it.Close())
	}
	if len(bounds) == 2 {
		return write(terms, b)
	}
	batches := make([]*pebble.Batch, len(bounds)-1)
	errs := make([]error, len(batches))
	var wg sync.WaitGroup
	for k := range batches {
		batches[k] = ix.db.NewBatch()
		defer batches[k].Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[k] = write(terms[bounds[k]:bounds[k+1]], batches[k])
		}()
	}
	wg.Wait()
	for k, wb := range batches {
		if errs[k] != nil {
			return errs[k]
		}
		if err := b.Apply(wb, nil); err != nil {
			return err
		}
	}
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
	it   *pebble.Iterator
	b    *pebble.Batch
	key  []byte // the key sought, then of blocks split off
	bkey []byte // the key of the block being rewritten
	bw   blockWriter
	val  []byte
	// old and merged are reused for each block's entries before and after.
	old, merged []entry
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
		// key is its last doc, or lastBlock for the term's last block. Its
		// entries point into the iterator's value, valid until the next seek,
		// by which time the batch holds the new blocks.
		w.bkey = termKey(w.bkey[:0], term, lastBlock)
		upper := lastBlock
		var old []entry
		w.key = termKey(w.key[:0], term, d)
		if w.it.SeekGE(w.key) {
			if t, k, ok := parseTermKey(w.it.Key()); ok && string(t) == term {
				v, err := w.it.ValueAndErr()
				if err != nil {
					return corrupt(err)
				}
				if old, err = appendBlock(w.old[:0], v); err != nil {
					return corrupt(err)
				}
				w.bkey, upper = append(w.bkey[:0], w.it.Key()...), k
			}
		} else if err := w.it.Error(); err != nil {
			return corrupt(err)
		}
		n := 0
		for n < len(chs) && chs[n].doc <= upper {
			n++
		}
		w.old = old
		merged := mergeEntries(w.merged[:0], old, chs[:n])
		w.merged = merged
		chs = chs[n:]
		if err := w.writeBlocks(term, w.bkey, merged); err != nil {
			return err
		}
	}
	return nil
}

// mergeEntries applies sorted changes to a block's sorted entries, appending the
// result to out.
func mergeEntries(out, old []entry, chs []change) []entry {
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
