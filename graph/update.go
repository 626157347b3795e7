package graph

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"

	"github.com/norn-vault/norn/note"
)

// Update writes batch's records: it indexes each Doc, drops each Remove's path and
// sets or deletes each Row, in one atomic pebble batch that also records
// batch.Commit as the commit the index reflects, so that after a crash all of them
// are there with that commit or none of them are. A path already indexed that is
// put again replaces its old postings; removing a path that is not indexed is a
// no-op. A path may not be both put and removed, nor put twice, and a row may not
// be given twice: such a batch is ErrInvalidBatch and writes nothing.
//
// The batch is written without fsync: after a crash the index may come back as
// it was before some recent Updates, always with the commit those Updates had not
// yet recorded, so catching up from Commit() is exact.
func (ix *Index) Update(ctx context.Context, batch Batch) error {
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	if err := ix.checkOpen(); err != nil {
		return err
	}
	parts, err := batch.split()
	if err != nil {
		return fmt.Errorf("update index: %w", err)
	}
	u := ix.newUpdate()
	defer u.b.Close()
	// Rows go first: a failure in what follows must discard them with the rest.
	if err := writeRows(u.b, parts.rows); err != nil {
		return fmt.Errorf("update index: %w", err)
	}
	if err := u.removeDocs(ctx, parts.remove); err != nil {
		return err
	}
	if err := u.putDocs(ctx, parts.put); err != nil {
		return err
	}
	return u.publish(ctx, batch.Commit, parts.remove)
}

// update is an Update in progress: the pebble batch it fills, and what changes in
// memory once that batch is committed.
type update struct {
	ix *Index
	dt *docTable // only writers change it, and Update holds writeMu
	st stats     // dt's stats as they will be
	b  *pebble.Batch
	// changes are the postings to write, by term; removed the doc ids dropped
	// (and not put again); puts the doc records put.
	changes map[string][]change
	removed map[uint32]bool
	puts    []putDoc
	// The link graph's side: the node records put, and the attachments.
	nodes []nodeRec
	atts  []note.Path
	// ctx holds the context records of the notes put, by path.
	ctx map[note.Path][]byte
	buf []byte
}

type putDoc struct {
	id  uint32
	rec docRecord
}

func (ix *Index) newUpdate() *update {
	return &update{ix: ix, dt: ix.docs, st: ix.docs.stats, b: ix.db.NewBatch(),
		changes: map[string][]change{}, removed: map[uint32]bool{}, ctx: map[note.Path][]byte{}}
}

// dropDoc removes a doc's postings (its forward list: terms, the hash of each
// posting), except those in keep (a re-put doc's postings that did not change:
// term → hash), which it deletes from keep.
func (u *update) dropDoc(id uint32, terms []fwdTerm, keep map[string]uint32) {
	for _, t := range terms {
		if h, ok := keep[t.term]; ok && h == t.hash {
			delete(keep, t.term)
			continue
		}
		u.changes[t.term] = append(u.changes[t.term], change{doc: id})
	}
	info := u.dt.docs[id]
	u.st.docs--
	for f := range u.st.total {
		u.st.total[f] -= uint64(info.lens[f])
	}
	for k := range u.st.in {
		u.st.in[k] -= uint64(info.in[k])
	}
	u.removed[id] = true
}

// removeDocs drops the records of the paths in remove: a note's postings, doc
// record, forward list and text; its or an attachment's link records.
func (u *update) removeDocs(ctx context.Context, remove []note.Path) error {
	for _, p := range remove {
		if err := ctx.Err(); err != nil {
			return err
		}
		u.b.Delete(nodeKey(prefixNode, p), nil)
		u.b.Delete(nodeKey(prefixContext, p), nil)
		u.b.Delete(nodeKey(prefixAttachment, p), nil)
		id, ok := u.dt.byPath[p]
		if !ok {
			continue
		}
		terms, err := u.ix.forward(id)
		if err != nil {
			return fmt.Errorf("update index: remove %s: %w", p, err)
		}
		u.dropDoc(id, terms, nil)
		if err := u.dropInbound(id); err != nil {
			return fmt.Errorf("update index: remove %s: %w", p, err)
		}
		u.b.Delete(docKey(prefixDoc, id), nil)
		u.b.Delete(docKey(prefixFwd, id), nil)
		u.b.Delete(docKey(prefixText, id), nil)
	}
	return nil
}

// putDocs analyses the notes of put (on several cores when there are many) and
// writes their records: link records for notes and attachments; for notes, the
// postings that changed, doc record, forward list and stored text.
func (u *update) putDocs(ctx context.Context, put []Doc) error {
	ads, err := u.ix.prepareDocs(ctx, u.dt, put)
	if err != nil {
		return fmt.Errorf("update index: %w", err)
	}
	for i, d := range put {
		if d.Note == nil {
			u.atts = append(u.atts, d.Path)
			u.b.Set(nodeKey(prefixAttachment, d.Path), nil, nil)
			continue
		}
		r := ads[i].ad.node
		u.buf = r.encode(u.buf[:0])
		u.b.Set(nodeKey(prefixNode, d.Path), u.buf, nil)
		u.b.Set(nodeKey(prefixContext, d.Path), ads[i].ad.contexts, nil)
		u.ctx[d.Path] = ads[i].ad.contexts
		u.nodes = append(u.nodes, r)
	}
	u.puts = make([]putDoc, 0, len(put))
	for i, d := range put {
		if err := ctx.Err(); err != nil {
			return err
		}
		if ads[i].ad != nil { // not an attachment: searched
			u.putNote(d.Path, &ads[i])
		}
	}
	return nil
}

// putNote writes the search records of one analysed note at path.
func (u *update) putNote(path note.Path, pd *preparedDoc) {
	ad, fresh := pd.ad, pd.fresh
	id, ok := u.dt.byPath[path]
	if ok {
		u.dropDoc(id, pd.old, fresh)
	} else {
		id = u.st.next
		u.st.next++
	}
	rec := ad.rec
	u.st.docs++
	for f := range u.st.total {
		u.st.total[f] += uint64(rec.lens[f])
	}
	for _, e := range ad.entries {
		if _, ok := fresh[e.term]; !ok {
			continue // unchanged
		}
		u.changes[e.term] = append(u.changes[e.term], change{doc: id, put: true, head: e.head, pos: e.pos})
	}
	u.b.Set(docKey(prefixDoc, id), rec.encode(), nil)
	u.buf = forwardList(u.buf[:0], ad.entries)
	u.b.Set(docKey(prefixFwd, id), u.buf, nil)
	u.b.Set(docKey(prefixText, id), ad.text, nil)
	u.puts = append(u.puts, putDoc{id, rec})
	delete(u.removed, id)
}

// publish brings the link graph to the batch, adds the inbound fields that
// change with it, writes the postings, commits the batch and brings the in-memory
// tables to it — all under ix.mu, so a search or link query sees the index
// before or after, never between. A failure after the graph changed drops the
// graph, to be read again from the records.
func (u *update) publish(ctx context.Context, commit string, remove []note.Path) error {
	ix := u.ix
	ix.mu.Lock()
	defer ix.mu.Unlock()
	lg, err := ix.graph()
	if err != nil {
		return fmt.Errorf("update index: %w", err)
	}
	done := false
	defer func() {
		if !done {
			ix.links = &lazyGraph{load: ix.loadLinks}
		}
	}()
	marked, pub, err := u.applyGraph(lg, remove)
	if err != nil {
		return fmt.Errorf("update index: %w", err)
	}
	if err := u.inbound(ctx, lg, pub, marked); err != nil {
		return fmt.Errorf("update index: %w", err)
	}
	if err := ix.writeTerms(ctx, u.b, u.changes); err != nil {
		return fmt.Errorf("update index: %w", err)
	}
	u.b.Set([]byte(keyStats), u.st.encode(), nil)
	u.b.Set([]byte(keyCommit), []byte(commit), nil)
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := u.b.Commit(pebble.NoSync); err != nil {
		return fmt.Errorf("update index: %w", corrupt(err))
	}
	done = true
	dt := u.dt
	for id := range u.removed {
		dt.remove(id)
	}
	for _, p := range u.puts {
		dt.set(p.id, p.rec)
	}
	dt.grow(u.st.next)
	dt.stats = u.st
	ix.commit = commit
	return nil
}

// preparedDoc is a note of an Update, analysed: its postings (fresh: term →
// hash of the posting, for every term) and, when it is indexed already, its
// old forward list.
type preparedDoc struct {
	ad    *analysedDoc // nil for an attachment
	fresh map[string]uint32
	old   []fwdTerm
}

// prepareDocs analyses the notes of docs and reads the forward lists of those dt
// holds, on up to GOMAXPROCS goroutines when there are enough of them to be
// worth it (dt does not change meanwhile: the caller holds writeMu).
func (ix *Index) prepareDocs(ctx context.Context, dt *docTable, docs []Doc) ([]preparedDoc, error) {
	out := make([]preparedDoc, len(docs))
	errs := make([]error, len(docs))
	err := parallel(ctx, len(docs), 8, func() func(i int) {
		da := newDocAnalyzer(ix.an)
		return func(i int) {
			d := docs[i]
			if d.Note == nil {
				return
			}
			p := &out[i]
			p.ad = analyseForRebuild(da, d)
			p.fresh = make(map[string]uint32, len(p.ad.entries))
			for _, e := range p.ad.entries {
				p.fresh[e.term] = entryHash(e)
			}
			if id, ok := dt.byPath[d.Path]; ok {
				if p.old, errs[i] = ix.forward(id); errs[i] != nil {
					errs[i] = fmt.Errorf("put %s: %w", d.Path, errs[i])
				}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return out, errors.Join(errs...)
}

// forward reads and decodes doc id's forward list.
func (ix *Index) forward(id uint32) ([]fwdTerm, error) {
	fwd, err := ix.get(docKey(prefixFwd, id))
	if err != nil {
		return nil, err
	}
	terms, err := decodeForward(fwd)
	if err != nil {
		return nil, corrupt(err)
	}
	return terms, nil
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
// written into its own batch, which b then takes in (in term order, so b is the
// same whatever the split).
func (ix *Index) writeTerms(ctx context.Context, b *pebble.Batch, changes map[string][]change) error {
	terms := make([]string, 0, len(changes))
	total := 0
	for t, chs := range changes {
		terms = append(terms, t)
		total += len(chs)
	}
	slices.Sort(terms)
	// Twice as many parts as cores, so that a core another process holds
	// leaves less of the work waiting on it.
	parts := 1
	if total >= 512 {
		parts = max(1, min(2*runtime.GOMAXPROCS(0), 8, total/256))
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
		if err := checkPut(d, seen); err != nil {
			return err
		}
	}
	for _, p := range remove {
		if seen[p] {
			return fmt.Errorf("%w: %s both put and removed", ErrInvalidBatch, p)
		}
	}
	return nil
}

// checkPut checks d's path, not empty and not in seen, and adds it to seen.
func checkPut(d Doc, seen map[note.Path]bool) error {
	if d.Path == "" {
		return fmt.Errorf("%w: put: empty path", ErrInvalidBatch)
	}
	if seen[d.Path] {
		return fmt.Errorf("%w: put %s twice", ErrInvalidBatch, d.Path)
	}
	seen[d.Path] = true
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
		var v []byte
		w.key = termKey(w.key[:0], term, d)
		if w.it.SeekGE(w.key) {
			if t, k, ok := parseTermKey(w.it.Key()); ok && string(t) == term {
				var err error
				if v, err = w.it.ValueAndErr(); err != nil {
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
		if v != nil {
			// Most rewrites keep the block whole: copy its unchanged postings
			// as they are.
			val, ok, err := w.splice(v, chs[:n])
			if err != nil {
				return corrupt(err)
			}
			if ok {
				chs = chs[n:]
				if err := w.b.Set(w.bkey, val, nil); err != nil {
					return err
				}
				continue
			}
		}
		var old []entry
		if v != nil {
			var err error
			if old, err = appendBlock(w.old[:0], v); err != nil {
				return corrupt(err)
			}
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

// splice returns the block value v with chs (sorted by doc, one per doc)
// applied: byte for byte what decoding v, mergeEntries and writeBlocks would
// write, but runs of unchanged postings are copied as they are (only the first
// of a run gets a new doc delta). ok is false when the block would come out
// empty or with more than blockMax postings (to be split): the caller then
// merges entry by entry. The value is valid until the next call.
func (w *termWriter) splice(v []byte, chs []change) (val []byte, ok bool, err error) {
	var r blockReader
	if err := r.init(v); err != nil {
		return nil, false, err
	}
	docs, pos := w.bw.docs[:0], w.bw.pos[:0]
	count := 0
	var first, last uint32
	// A run of old postings copied as they are: docs bytes [rs, re), positions
	// [ps, pe); rs < 0 when there is none.
	rs, re, ps, pe := -1, 0, 0, 0
	flush := func() {
		if rs >= 0 {
			docs = append(docs, r.docsAll[rs:re]...)
			pos = append(pos, r.pos[ps:pe]...)
			rs = -1
		}
	}
	delta := func(doc uint32) uint64 {
		if count == 0 {
			first = doc
			return 0
		}
		return uint64(doc - last)
	}
	emit := func(c change) {
		flush()
		docs = binary.AppendUvarint(docs, delta(c.doc))
		docs = append(docs, c.head...)
		docs = binary.AppendUvarint(docs, uint64(len(c.pos)))
		pos = append(pos, c.pos...)
		count++
		last = c.doc
	}
	follows := false // the last posting out is the old one before r's current
	ci := 0
	for {
		start := len(r.docsAll) - len(r.docs)
		if !r.next() {
			break
		}
		d := r.cur.doc
		for ci < len(chs) && chs[ci].doc < d {
			if chs[ci].put {
				emit(chs[ci])
				follows = false
			}
			ci++
		}
		if ci < len(chs) && chs[ci].doc == d {
			if chs[ci].put {
				emit(chs[ci])
			}
			ci++
			follows = false
			continue
		}
		end := len(r.docsAll) - len(r.docs)
		if follows {
			// Its delta is from the posting before it, which is the last out.
			if rs < 0 {
				rs, ps = start, r.posOff
			}
			re, pe = end, r.posOff+r.posLen
		} else {
			flush()
			docs = binary.AppendUvarint(docs, delta(d))
			docs = append(docs, r.docsAll[r.headFrom:end]...) // head and positions length
			pos = append(pos, r.rawPos()...)
		}
		count++
		last = d
		follows = true
	}
	if r.err != nil {
		return nil, false, r.err
	}
	if r.n != r.count {
		return nil, false, fmt.Errorf("%w: %d of %d postings", errBadBlock, r.n, r.count)
	}
	for ; ci < len(chs); ci++ {
		if chs[ci].put {
			emit(chs[ci])
		}
	}
	flush()
	w.bw.docs, w.bw.pos = docs, pos // keep the buffers
	if count == 0 || count > blockMax {
		return nil, false, nil
	}
	val = binary.AppendUvarint(w.val[:0], uint64(count))
	val = binary.AppendUvarint(val, uint64(first))
	val = binary.AppendUvarint(val, uint64(len(docs)))
	val = append(append(val, docs...), pos...)
	w.val = val
	return val, true, nil
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
