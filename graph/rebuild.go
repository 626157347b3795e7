package graph

import (
	"context"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/objstorage/objstorageprovider"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/norn-vault/norn/note"
)

// Rebuild replaces the whole index with docs, recording commit. It builds every
// posting in memory (docs are analysed on all cores while the iterator produces
// them), writes the result as one sstable and ingests it in place of every old
// search key in one atomic, durable step, so the old index stays intact and
// searchable until the new one replaces it. progress, if not nil, is called from
// Rebuild's goroutine with the number of docs analysed so far, every 256 docs
// and once at the end. An error from docs aborts the rebuild and leaves the index
// as it was. Memory grows with the vault: about 7 times the notes' size at peak
// (cpp-docs, 45 MB of notes: 320 MB with the caller's copies).
func (ix *Index) Rebuild(ctx context.Context, commit string, docs iter.Seq2[Doc, error], progress func(done int)) error {
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	if err := ix.checkOpen(); err != nil {
		return err
	}
	start := time.Now()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	workers := max(1, min(runtime.GOMAXPROCS(0), 8))
	jobs := make(chan Doc, 64)
	results := make(chan *analysedDoc, 64)
	var prodErr error
	var atts []note.Path // attachments, read after wg.Wait
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // producer: runs the caller's iterator (which may parse)
		defer wg.Done()
		defer close(jobs)
		seen := map[note.Path]bool{}
		for d, err := range docs {
			if err == nil && d.Path == "" {
				err = fmt.Errorf("put: empty path")
			}
			if err == nil && seen[d.Path] {
				err = fmt.Errorf("put %s twice", d.Path)
			}
			if err != nil {
				prodErr = err
				cancel()
				return
			}
			seen[d.Path] = true
			if d.Note == nil {
				atts = append(atts, d.Path)
				continue
			}
			select {
			case jobs <- d:
			case <-ctx.Done():
				return
			}
		}
	}()
	var awg sync.WaitGroup
	for range workers {
		awg.Add(1)
		go func() {
			defer awg.Done()
			da := newDocAnalyzer(ix.an)
			for d := range jobs {
				r := analyseForRebuild(da, d)
				select {
				case results <- r:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() { awg.Wait(); close(results) }()

	bld := newBulkBuilder()
	done := 0
	for r := range results {
		if ctx.Err() != nil {
			continue // drain
		}
		bld.add(r)
		done++
		if progress != nil && done%256 == 0 {
			progress(done)
		}
	}
	wg.Wait()
	if prodErr != nil {
		return fmt.Errorf("rebuild index: %w", prodErr)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("rebuild index: %w", err)
	}
	if progress != nil {
		progress(done)
	}

	analysed := time.Now()

	// Write the new tables as one sstable, in key order, and ingest it while
	// excising every old search key: one atomic, durable step, without copying
	// the whole index through a batch, the WAL and a memtable flush.
	nterms := len(bld.terms)
	slices.Sort(atts)
	bld.atts = atts
	// The in-memory tables (doc table, resolved link graph) are built on another
	// core while the sstable is written: neither changes the builder.
	var dt *docTable
	var lg *linkGraph
	nodes := slices.Clone(bld.nodes) // writeTable drops the contexts of bld.nodes
	built := make(chan struct{})
	go func() {
		defer close(built)
		dt = newDocTable(ix.opts.FolderFactors)
		for id, rec := range bld.recs {
			dt.set(uint32(id), rec)
		}
		dt.stats = bld.stats
		dt.refresh(&ix.opts.Weights)
		dt.grow(bld.stats.next)
		lg = buildLinkGraph(nodes, atts)
	}()
	path := filepath.Join(ix.dir, "norn-rebuild.sst.tmp")
	defer os.Remove(path)
	err := ix.writeTable(path, commit, bld)
	<-built
	if err != nil {
		return fmt.Errorf("rebuild index: %w", err)
	}

	written := time.Now()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	span := pebble.KeyRange{Start: []byte(prefixGraph), End: searchEnd}
	if _, err := ix.db.IngestAndExcise(ctx, []string{path}, nil, nil, span); err != nil {
		return fmt.Errorf("rebuild index: ingest: %w", corrupt(err))
	}
	ix.docs = dt
	ix.links = builtGraph(lg)
	ix.commit = commit
	ix.log.Info("index rebuilt", "docs", done, "terms", nterms, "commit", commit, "elapsed", time.Since(start),
		"analyse", analysed.Sub(start), "write", written.Sub(analysed), "ingest", time.Since(written))
	return nil
}

// analysedDoc is a worker's output: everything the builder needs, in memory the
// worker no longer touches.
type analysedDoc struct {
	node    nodeRec
	rec     docRecord
	entries []termEntry // head/pos point into arena
	text    []byte      // encoded stored text
}

func analyseForRebuild(da *docAnalyzer, d Doc) *analysedDoc {
	da.analyse(d.Path, d.Note)
	r := &analysedDoc{
		rec:     docRecord{path: d.Path, revision: d.Revision, title: d.Note.Title, lens: da.lens},
		entries: make([]termEntry, len(da.entries)),
		text:    storedTextOf(d.Note, da.lines).encode(nil),
		node:    nodeRecOf(d.Note, d.Unparsed),
	}
	arena := make([]byte, 0, arenaSize(da.entries))
	for i, e := range da.entries {
		h0 := len(arena)
		arena = append(arena, e.head...)
		p0 := len(arena)
		arena = append(arena, e.pos...)
		r.entries[i] = termEntry{term: e.term, head: arena[h0:p0:p0], pos: arena[p0:len(arena):len(arena)]}
	}
	return r
}

// bulkBuilder accumulates a whole index in memory: per term, its finished
// blocks and the one being filled.
type bulkBuilder struct {
	terms map[string]*termBuild
	recs  []docRecord
	fwd   [][]byte
	texts [][]byte
	stats stats
	// The link graph: node records by doc id, and the attachments, sorted.
	nodes []nodeRec
	atts  []note.Path
}

type termBuild struct {
	blocks [][]byte // finished values
	lasts  []uint32 // their last docs
	cur    blockWriter
}

func newBulkBuilder() *bulkBuilder {
	return &bulkBuilder{terms: make(map[string]*termBuild, 1<<16)}
}

func (b *bulkBuilder) add(r *analysedDoc) {
	id := b.stats.next
	b.stats.next++
	b.stats.docs++
	for f := range b.stats.total {
		b.stats.total[f] += uint64(r.rec.lens[f])
	}
	for _, e := range r.entries {
		tb := b.terms[e.term]
		if tb == nil {
			tb = &termBuild{}
			b.terms[e.term] = tb
		}
		tb.cur.add(id, e.head, e.pos)
		if tb.cur.count == blockFill {
			tb.blocks = append(tb.blocks, tb.cur.value(nil))
			tb.lasts = append(tb.lasts, id)
			tb.cur.reset()
		}
	}
	b.recs = append(b.recs, r.rec)
	b.fwd = append(b.fwd, forwardList(nil, r.entries))
	b.texts = append(b.texts, r.text)
	b.nodes = append(b.nodes, r.node)
}

// writeTable writes the whole keyspace of bld (link graph and search tables), the
// format, stats and commit into a new sstable at path, in key order (g/a, g/c, g/n,
// s/d, s/f, s/m, s/t, s/x), dropping each part from the builder once written.
func (ix *Index) writeTable(path, commit string, bld *bulkBuilder) (err error) {
	f, err := vfs.Default.Create(path, vfs.WriteCategoryUnspecified)
	if err != nil {
		return err
	}
	w := sstable.NewWriter(objstorageprovider.NewFileWritable(f), ix.popts.MakeWriterOptions(0, ix.db.TableFormat()))
	defer func() {
		if cerr := w.Close(); err == nil {
			err = cerr
		}
	}()
	set := func(k, v []byte) {
		if err == nil {
			err = w.Set(k, v)
		}
	}
	for _, p := range bld.atts {
		set(nodeKey(prefixAttachment, p), nil)
	}
	order := make([]int, len(bld.nodes))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return strings.Compare(string(bld.nodes[a].names.path), string(bld.nodes[b].names.path))
	})
	var nb []byte
	for _, i := range order {
		r := &bld.nodes[i]
		nb = r.encodeContexts(nb[:0])
		set(nodeKey(prefixContext, r.names.path), nb)
		r.contexts = nil
	}
	for _, i := range order {
		r := &bld.nodes[i]
		nb = r.encode(nb[:0])
		set(nodeKey(prefixNode, r.names.path), nb)
	}
	for id, rec := range bld.recs {
		set(docKey(prefixDoc, uint32(id)), rec.encode())
	}
	for id := range bld.recs {
		set(docKey(prefixFwd, uint32(id)), bld.fwd[id])
		bld.fwd[id] = nil
	}
	set([]byte(keyCommit), []byte(commit))
	set([]byte(keyFormat), formatValue(ix.an))
	set([]byte(keyStats), bld.stats.encode())
	terms := make([]string, 0, len(bld.terms))
	for t := range bld.terms {
		terms = append(terms, t)
	}
	slices.Sort(terms)
	var key, val []byte
	for _, t := range terms {
		tb := bld.terms[t]
		for i, v := range tb.blocks {
			last := tb.lasts[i]
			if i == len(tb.blocks)-1 && tb.cur.count == 0 {
				last = lastBlock
			}
			key = termKey(key[:0], t, last)
			set(key, v)
		}
		if tb.cur.count > 0 {
			key = termKey(key[:0], t, lastBlock)
			val = tb.cur.value(val[:0])
			set(key, val)
		}
		delete(bld.terms, t)
	}
	for id := range bld.recs {
		set(docKey(prefixText, uint32(id)), bld.texts[id])
		bld.texts[id] = nil
	}
	return err
}
