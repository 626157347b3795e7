package graph

import (
	"bufio"
	"bytes"
	"context"
	"errors"
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

// Rebuild replaces the whole index with records, recording commit: its Docs
// and its Rows (every row of every table; rows not given are dropped). Remove
// records and Rows with Delete have no place in it (ErrInvalidBatch), nor has a
// path or a row given twice. Docs are analysed on all cores while the iterator
// produces them and added in the records' order (doc ids do not depend on the
// scheduling: the same records give the same index, byte for byte); forward
// lists and stored texts stream to sstables of their own (doc ids rise in key
// order), postings to a spill file as sorted runs of bounded size
// (postingRuns), link contexts to another. Then the rest — the posting blocks
// merged from the runs in term order, doc and link records — is written as two
// more sstables, and all four are ingested in place of every old search key in
// one atomic, durable step, so the old index stays intact and searchable until
// the new one replaces it. progress, if not nil, is called from Rebuild's
// goroutine with the number of docs analysed so far, every 256 docs and once at
// the end. An error from records aborts the rebuild and leaves the index as it
// was. Memory still grows with the vault: the doc records, the node records and
// the link graph built from them stay in memory until written.
func (ix *Index) Rebuild(ctx context.Context, commit string, records iter.Seq2[Record, error], progress func(done int)) error {
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	if err := ix.checkOpen(); err != nil {
		return err
	}
	start := time.Now()
	tables, err := ix.createRebuildTables()
	if err != nil {
		return fmt.Errorf("rebuild index: %w", err)
	}
	defer tables.remove()
	bld := newBulkBuilder(tables, ix.runBytes)
	in, err := ix.analyseAll(ctx, records, bld, progress)
	if err != nil {
		return fmt.Errorf("rebuild index: %w", err)
	}
	done := int(bld.stats.docs)
	analysed := time.Now()

	// Write the rest of the new tables, in key order, and ingest them while
	// excising every old search key: one atomic, durable step, without copying
	// the whole index through a batch, the WAL and a memtable flush.
	slices.Sort(in.atts)
	bld.atts = in.atts
	slices.SortFunc(in.rows, func(a, b Row) int { return bytes.Compare(a.Key, b.Key) })
	bld.rows = in.rows
	// The resolved link graph gives every note its inbound field. The link
	// graph's own records go to their table meanwhile, on another core, then
	// the doc records once the inbound pass has set their lengths; the doc
	// table is built and the postings merged into theirs at the same time.
	lg := buildLinkGraph(bld.nodes, bld.atts)
	if err := bld.tables.contexts.flush(); err != nil {
		return fmt.Errorf("rebuild index: link contexts: %w", err)
	}
	inbound := make(chan error, 1) // the inbound pass's outcome
	graphErr := make(chan error, 1)
	go func() { graphErr <- writeGraphTable(bld.tables, bld, inbound) }()
	if err := bld.inboundAll(ctx, ix.an, lg); err != nil {
		inbound <- err
		<-graphErr
		return fmt.Errorf("rebuild index: %w", err)
	}
	inbound <- nil
	var dt *docTable
	built := make(chan struct{})
	go func() {
		defer close(built)
		dt = newDocTable(ix.opts.FolderFactors)
		for id, rec := range bld.recs {
			dt.set(uint32(id), rec)
		}
		dt.stats = bld.stats
		dt.grow(bld.stats.next)
	}()
	err = writeMetaTable(bld.tables, commit, formatValue(ix.an, ix.opts.PrivateFolders, ix.opts.PrivateTags), bld)
	err = errors.Join(err, <-graphErr)
	<-built
	if err != nil {
		return fmt.Errorf("rebuild index: %w", err)
	}

	written := time.Now()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	span := pebble.KeyRange{Start: []byte(prefixGraph), End: searchEnd}
	if _, err := ix.db.IngestAndExcise(ctx, tables.paths(), nil, nil, span); err != nil {
		return fmt.Errorf("rebuild index: ingest: %w", corrupt(err))
	}
	ix.docs = dt
	ix.links = builtGraph(lg)
	ix.commit = commit
	ix.log.Info("index rebuilt", "docs", done, "terms", bld.nterms, "runs", len(bld.runs.runs), "commit", commit, "elapsed", time.Since(start),
		"analyse", analysed.Sub(start), "write", written.Sub(analysed), "ingest", time.Since(written))
	return nil
}

// analyseAll runs records through the analysers on all cores into bld, calling
// progress as Rebuild says, and returns what else they held (attachments, rows).
func (ix *Index) analyseAll(ctx context.Context, records iter.Seq2[Record, error], bld *bulkBuilder, progress func(done int)) (*rebuildInput, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	workers := max(1, min(runtime.GOMAXPROCS(0), 8))
	jobs := make(chan rebuildJob, 64)
	results := make(chan *analysedDoc, 64)
	// window holds a token for every note handed out and not yet added: the
	// analysers may finish notes out of order, and the builder adds them in
	// the order the records gave them (doc ids are the same whatever the
	// scheduling), holding at most len(window) aside.
	window := make(chan struct{}, rebuildWindow)
	in := rebuildInput{window: window} // read after wg.Wait
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // producer: runs the caller's iterator (which may parse)
		defer wg.Done()
		defer close(jobs)
		if err := in.read(ctx, records, jobs); err != nil {
			in.err = err
			cancel()
		}
	}()
	var awg sync.WaitGroup
	for range workers {
		awg.Add(1)
		go func() {
			defer awg.Done()
			da := newDocAnalyzer(ix.an)
			for j := range jobs {
				r := analyseForRebuild(da, j.doc)
				r.seq = j.seq
				select {
				case results <- r:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() { awg.Wait(); close(results) }()

	done := 0
	held := make([]*analysedDoc, rebuildWindow) // by seq % rebuildWindow
	for r := range results {
		if ctx.Err() != nil {
			continue // drain
		}
		held[r.seq%rebuildWindow] = r
		for held[done%rebuildWindow] != nil {
			r, held[done%rebuildWindow] = held[done%rebuildWindow], nil
			bld.add(r)
			<-window
			done++
			if progress != nil && done%256 == 0 {
				progress(done)
			}
		}
	}
	wg.Wait()
	if in.err != nil {
		return nil, in.err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if progress != nil {
		progress(done)
	}
	return &in, nil
}

// rebuildInput is what a Rebuild's producer keeps of the records besides the
// notes it hands to the analysers: attachments, rows, and the first error.
type rebuildInput struct {
	window chan<- struct{} // a token for each note sent
	atts   []note.Path
	rows   []Row // with their keys encoded (rowKey), in Key
	err    error
}

// read runs records, sending notes to jobs and keeping the rest, until they end,
// one is refused or ctx ends.
func (in *rebuildInput) read(ctx context.Context, records iter.Seq2[Record, error], jobs chan<- rebuildJob) error {
	seen := map[note.Path]bool{}
	seq := 0
	var rs rowSet
	for r, err := range records {
		if err != nil {
			return err
		}
		switch r := r.(type) {
		case Doc:
			if err := checkPut(r, seen); err != nil {
				return err
			}
			if r.Note == nil {
				in.atts = append(in.atts, r.Path)
				continue
			}
			select {
			case in.window <- struct{}{}:
			case <-ctx.Done():
				return nil // the consumer's error, or the caller's
			}
			select {
			case jobs <- rebuildJob{seq: seq, doc: r}:
				seq++
			case <-ctx.Done():
				return nil
			}
		case Row:
			if r.Delete {
				return fmt.Errorf("%w: row %s/%q: a delete in a rebuild", ErrInvalidBatch, r.Table, r.Key)
			}
			if err := rs.add(r); err != nil {
				return err
			}
			r.Key = rowKey(nil, r.Table, r.Key)
			in.rows = append(in.rows, r)
		case nil:
			return fmt.Errorf("%w: nil record", ErrInvalidBatch)
		default:
			return fmt.Errorf("%w: a %s record in a rebuild", ErrInvalidBatch, r.Kind())
		}
	}
	return nil
}

// rebuildWindow is how many notes a rebuild analyses ahead of the one it adds
// next.
const rebuildWindow = 256

// rebuildJob is a note to analyse, seq its place among the records' notes.
type rebuildJob struct {
	seq int
	doc Doc
}

// analysedDoc is a worker's output: everything the builder needs, in memory the
// worker no longer touches.
type analysedDoc struct {
	seq      int     // rebuildJob.seq
	node     nodeRec // without its contexts
	contexts []byte  // encoded context record
	rec      docRecord
	entries  []termEntry // head/pos point into arena
	text     []byte      // encoded stored text
}

func analyseForRebuild(da *docAnalyzer, d Doc) *analysedDoc {
	da.analyse(d.Path, d.Note)
	r := &analysedDoc{
		rec:     docRecord{path: d.Path, revision: d.Revision, title: d.Note.Title, lens: da.lens, private: d.Private},
		entries: make([]termEntry, len(da.entries)),
		text:    storedTextOf(d.Note, da.lines).encode(nil),
		node:    nodeRecOf(d.Note, d.Unparsed),
	}
	r.contexts = r.node.encodeContexts(nil)
	r.node.contexts = nil
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

// bulkBuilder accumulates an index: the postings in sorted runs, the doc
// records, the link graph's node records. The forward lists and stored texts go
// straight to their tables, since doc ids rise in key order as the docs arrive;
// postings (postingRuns) and link contexts, keyed by term and by path, to spill
// files they are read back from in key order.
type bulkBuilder struct {
	runs   *postingRuns // the postings, in sorted runs
	nterms int          // distinct terms, once written
	recs   []docRecord
	stats  stats
	tables *rebuildTables
	fbuf   []byte // forward list being encoded
	vbuf   []byte // block value being encoded
	// The link graph: node records by doc id, and the attachments, sorted.
	nodes []nodeRec
	atts  []note.Path
	// rows are the derived tables' rows, Key holding the whole pebble key, sorted.
	rows []Row
	// ctxAt[i] is where node i's context record sits in tables.contexts.
	ctxAt []spillSpan
}

func newBulkBuilder(tables *rebuildTables, runBytes int) *bulkBuilder {
	return &bulkBuilder{runs: newPostingRuns(tables.blocks, runBytes), tables: tables}
}

func (b *bulkBuilder) add(r *analysedDoc) {
	id := b.stats.next
	b.stats.next++
	b.stats.docs++
	for f := range b.stats.total {
		b.stats.total[f] += uint64(r.rec.lens[f])
	}
	b.addPostings(id, r.entries)
	b.recs = append(b.recs, r.rec)
	b.fbuf = forwardList(b.fbuf[:0], r.entries)
	b.tables.fwd.set(docKey(prefixFwd, id), b.fbuf)
	b.tables.text.set(docKey(prefixText, id), r.text)
	b.nodes = append(b.nodes, r.node)
	b.ctxAt = append(b.ctxAt, b.tables.contexts.write(r.contexts))
}

// addPostings adds doc id's postings; ids come in increasing order for each term.
func (b *bulkBuilder) addPostings(id uint32, entries []termEntry) { b.runs.add(id, entries) }

// rebuildTables are the files a rebuild writes: four sstables it ingests
// together and two spill files. Pebble ingests several tables at once only if
// their key ranges do not overlap, so the keyspace is cut where the streamed
// tables sit: g/*, r/* and s/d; s/f; s/m and s/t; s/x.
type rebuildTables struct {
	graph, fwd, meta, text *tableFile
	blocks, contexts       *spillFile
}

// rebuildTemp starts the name of every file a rebuild writes in the index's
// folder; Open removes those a crash left.
const rebuildTemp = "norn-rebuild-"

func (ix *Index) createRebuildTables() (*rebuildTables, error) {
	t := &rebuildTables{}
	var err error
	if t.blocks, err = createSpill(filepath.Join(ix.dir, rebuildTemp+"blocks.tmp")); err != nil {
		return nil, err
	}
	if t.contexts, err = createSpill(filepath.Join(ix.dir, rebuildTemp+"contexts.tmp")); err != nil {
		t.remove()
		return nil, err
	}
	for _, p := range []struct {
		dst  **tableFile
		name string
	}{{&t.graph, "graph"}, {&t.fwd, "fwd"}, {&t.meta, "meta"}, {&t.text, "text"}} {
		f, err := ix.createTable(filepath.Join(ix.dir, rebuildTemp+p.name+".sst.tmp"))
		if err != nil {
			t.remove()
			return nil, err
		}
		*p.dst = f
	}
	return t, nil
}

func (t *rebuildTables) all() []*tableFile { return []*tableFile{t.graph, t.fwd, t.meta, t.text} }

// paths returns the finished tables that hold keys, in key order.
func (t *rebuildTables) paths() []string {
	var out []string
	for _, f := range t.all() {
		if f != nil && f.n > 0 {
			out = append(out, f.path)
		}
	}
	return out
}

// remove closes (if need be) and deletes every table file; ingest has linked or
// copied what it took.
func (t *rebuildTables) remove() {
	for _, f := range t.all() {
		if f != nil {
			f.close()
			os.Remove(f.path)
		}
	}
	for _, s := range []*spillFile{t.blocks, t.contexts} {
		if s != nil {
			s.remove()
		}
	}
}

// tableFile is an sstable being written; the first error of any step sticks.
type tableFile struct {
	path string
	w    *sstable.Writer
	n    int // keys set
	err  error
}

func (ix *Index) createTable(path string) (*tableFile, error) {
	f, err := vfs.Default.Create(path, vfs.WriteCategoryUnspecified)
	if err != nil {
		return nil, err
	}
	w := sstable.NewWriter(objstorageprovider.NewFileWritable(f), ix.popts.MakeWriterOptions(0, ix.db.TableFormat()))
	return &tableFile{path: path, w: w}, nil
}

func (t *tableFile) set(k, v []byte) {
	if t.err == nil {
		t.err = t.w.Set(k, v)
		t.n++
	}
}

// close finishes the table and returns the first error met writing it.
func (t *tableFile) close() error {
	if t.w != nil {
		if err := t.w.Close(); t.err == nil {
			t.err = err
		}
		t.w = nil
	}
	return t.err
}

// writeGraphTable writes the link graph and the doc records into the graph
// table, in key order (g/a, g/c, g/n, r/, s/d), and finishes it. It runs beside
// the inbound pass, which sets the doc records' inbound lengths: it writes them
// only once inbound gives the pass's outcome, and not at all if it failed. It
// reads the context spill file (flushed) and the builder's nodes, attachments and
// rows, which nothing changes meanwhile.
func writeGraphTable(t *rebuildTables, bld *bulkBuilder, inbound <-chan error) error {
	set := t.graph.set
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
		var err error
		if nb, err = t.contexts.readAt(nb[:0], bld.ctxAt[i]); err != nil {
			return fmt.Errorf("link contexts: %w", err)
		}
		set(nodeKey(prefixContext, bld.nodes[i].names.path), nb)
	}
	for _, i := range order {
		r := &bld.nodes[i]
		nb = r.encode(nb[:0])
		set(nodeKey(prefixNode, r.names.path), nb)
	}
	for _, r := range bld.rows {
		set(r.Key, r.Value)
	}
	bld.rows = nil
	if err := <-inbound; err != nil {
		return nil // the inbound pass's error is the rebuild's
	}
	for id, rec := range bld.recs {
		set(docKey(prefixDoc, uint32(id)), rec.encode())
	}
	return t.graph.close()
}

// writeMetaTable writes the format, stats, commit and the postings merged from
// their runs into the meta table, in key order (s/m, s/t), and finishes it and
// the streamed tables (forward lists, stored texts).
func writeMetaTable(t *rebuildTables, commit string, format []byte, bld *bulkBuilder) error {
	set := t.meta.set
	set([]byte(keyCommit), []byte(commit))
	set([]byte(keyFormat), format)
	set([]byte(keyStats), bld.stats.encode())
	var err error
	if bld.nterms, err = bld.runs.merge(set); err != nil {
		return fmt.Errorf("posting runs: %w", err)
	}
	for _, f := range []*tableFile{t.meta, t.fwd, t.text} {
		if cerr := f.close(); err == nil {
			err = cerr
		}
	}
	return err
}

// spillFile holds records written once, in any order, and read back by their
// span: what a rebuild need not keep in memory until it can write it in key
// order. The first error sticks; read returns nothing after it.
type spillFile struct {
	f   *os.File
	w   *bufio.Writer
	off int64
	err error
}

type spillSpan struct{ off, n int64 }

func createSpill(path string) (*spillFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	return &spillFile{f: f, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

func (s *spillFile) write(b []byte) spillSpan {
	sp := spillSpan{s.off, int64(len(b))}
	if s.err == nil {
		_, s.err = s.w.Write(b)
		s.off += sp.n
	}
	return sp
}

// flush writes what is buffered to the file; reads may then run concurrently.
func (s *spillFile) flush() error {
	if s.err == nil && s.w.Buffered() > 0 {
		s.err = s.w.Flush()
	}
	return s.err
}

// readAt appends the record at sp to dst, from the file alone: the spill must
// have been flushed. It changes nothing, so reads may run concurrently.
func (s *spillFile) readAt(dst []byte, sp spillSpan) ([]byte, error) {
	dst = slices.Grow(dst, int(sp.n))
	b := dst[len(dst) : len(dst)+int(sp.n)]
	if _, err := s.f.ReadAt(b, sp.off); err != nil {
		return dst, err
	}
	return dst[:len(dst)+int(sp.n)], nil
}

func (s *spillFile) remove() {
	s.f.Close()
	os.Remove(s.f.Name())
}
