package graph

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/norn-vault/norn/note"
)

// Index is the full-text index of a vault's notes, kept in a pebble database.
// It is safe for concurrent use: searches run in parallel; Update and Rebuild are
// serialised, and a search sees the index either before or after one of them.
type Index struct {
	dir string
	// opts' query-time settings change only in Reconfigure, which holds writeMu
	// and mu.
	opts Options
	an   *analyzer
	log  *slog.Logger
	db   *pebble.DB
	lock *pebble.Lock
	// popts are the pebble options the DB was opened with (defaults filled in):
	// Rebuild writes its sstables with them.
	popts *pebble.Options
	// runBytes is about how much memory a Rebuild's postings take before they
	// spill as a sorted run (defaultRunBytes; tests make it tiny).
	runBytes int

	writeMu sync.Mutex // serialises Update and Rebuild

	mu     sync.RWMutex // guards the fields below
	closed bool
	docs   *docTable
	links  *lazyGraph
	commit string

	scratch sync.Pool // *searchScratch
}

// Doc is one file to index: its path, its revision (the git blob id, stored and
// returned as is) and, for a note, the parsed note. A Doc without a Note is an
// attachment (an image, a PDF): it is not searched, but links to it resolve.
type Doc struct {
	Path     note.Path
	Revision string
	Note     *note.Note
	// Unparsed marks a note whose frontmatter broke the codec's rules; Note then
	// holds what could be read (its body's links).
	Unparsed bool
	// Private marks a note only callers with the private scope may see, as the
	// indexer judged it (the index does not interpret notes' privacy): a search
	// with SearchOptions.HidePrivate answers as if it were not indexed.
	Private bool
}

// Open opens the index in dir, creating dir and an empty index if needed. It
// returns an error matching ErrLocked when another handle holds the index,
// ErrFormat when the index was written by another FormatVersion or with other
// stop words or private folders or tags, and ErrCorrupt when its files are damaged; for those two the
// caller removes dir and rebuilds. ErrUnavailable (no file descriptors, memory or
// disk space to open it) means try again later.
func Open(dir string, opts Options) (*Index, error) {
	opts = opts.withDefaults()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("open index %s: %w", dir, err)
	}
	lock, err := pebble.LockDirectory(dir, vfs.Default)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("open index %s: %w", dir, err)
		}
		return nil, fmt.Errorf("open index %s: %w", dir, ErrLocked)
	}
	// Holding the lock, no rebuild is running: what one left is from a crash.
	stale, _ := filepath.Glob(filepath.Join(dir, rebuildTemp+"*"))
	for _, f := range stale {
		os.Remove(f)
	}
	ix := &Index{dir: dir, opts: opts, an: newAnalyzer(opts.StopWords), log: opts.Logger, lock: lock, runBytes: defaultRunBytes}
	ix.db, ix.popts, err = openPebble(dir, lock, opts)
	if err != nil {
		lock.Close()
		return nil, fmt.Errorf("open index %s: %w", dir, err)
	}
	if err := ix.load(); err != nil {
		ix.db.Close()
		lock.Close()
		return nil, fmt.Errorf("open index %s: %w", dir, err)
	}
	return ix, nil
}

// openPebble opens the database, translating its failures: a panic or an error
// while reading the MANIFEST or WAL is ErrCorrupt; a shortage of file descriptors,
// memory or disk space is ErrUnavailable (both through corrupt).
func openPebble(dir string, lock *pebble.Lock, opts Options) (db *pebble.DB, po *pebble.Options, err error) {
	defer func() {
		if r := recover(); r != nil {
			db, po, err = nil, nil, fmt.Errorf("%w: %v", ErrCorrupt, r)
		}
	}()
	po = &pebble.Options{
		FormatMajorVersion: pebble.FormatNewest,
		Logger:             pebbleLogger{opts.Logger},
		CacheSize:          opts.CacheSize,
		Lock:               lock,
		MemTableSize:       16 << 20,
		// pebble's default for a damaged block is Logger.Fatalf (a panic here); the
		// read that found it also returns a corruption error, which corrupt()
		// classifies, so a damaged index is rebuilt instead of crashing the process.
		EventListener: &pebble.EventListener{DataCorruption: func(info pebble.DataCorruptionInfo) {
			opts.Logger.Error("index damaged", "file", info.Path, "err", firstLine(info.Details))
		}},
	}
	po.EnsureDefaults()
	db, err = pebble.Open(dir, po)
	if err != nil {
		if errors.Is(err, os.ErrPermission) && !errors.Is(err, pebble.ErrCorruption) {
			return nil, nil, fmt.Errorf("%v", err)
		}
		return nil, nil, corrupt(err)
	}
	return db, po, nil
}

// load checks the format and reads the doc table, stats and commit.
func (ix *Index) load() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", ErrCorrupt, r)
		}
	}()
	v, err := ix.get([]byte(keyFormat))
	if err != nil {
		return err
	}
	want := formatValue(ix.an, ix.opts.PrivateFolders, ix.opts.PrivateTags)
	if v == nil {
		// A new index, or one with only other tables: nothing of ours may exist.
		it, err := ix.db.NewIter(&pebble.IterOptions{LowerBound: []byte(prefixGraph), UpperBound: searchEnd})
		if err != nil {
			return corrupt(err)
		}
		any := it.First()
		if err := it.Close(); err != nil {
			return corrupt(err)
		}
		if any {
			return fmt.Errorf("%w: search tables without a format record", ErrCorrupt)
		}
		if err := ix.db.Set([]byte(keyFormat), want, pebble.Sync); err != nil {
			return corrupt(err)
		}
		ix.docs = newDocTable(ix.opts.FolderFactors)
		ix.links = builtGraph(newLinkGraph(0))
		return nil
	}
	if !bytes.Equal(v, want) {
		ver, n := binary.Uvarint(v)
		if n > 0 && ver == FormatVersion {
			return fmt.Errorf("%w: built with other analysis settings (stop words, private folders or tags)", ErrFormat)
		}
		return fmt.Errorf("%w: format %d, want %d", ErrFormat, ver, FormatVersion)
	}
	commit, err := ix.get([]byte(keyCommit))
	if err != nil {
		return err
	}
	sv, err := ix.get([]byte(keyStats))
	if err != nil {
		return err
	}
	dt := newDocTable(ix.opts.FolderFactors)
	if sv != nil {
		if dt.stats, err = decodeStats(sv); err != nil {
			return corrupt(err)
		}
	}
	it, err := ix.db.NewIter(&pebble.IterOptions{LowerBound: []byte(prefixDoc), UpperBound: prefixEnd(prefixDoc)})
	if err != nil {
		return corrupt(err)
	}
	live := uint32(0)
	for ok := it.First(); ok; ok = it.Next() {
		k := it.Key()
		if len(k) != len(prefixDoc)+4 {
			it.Close()
			return fmt.Errorf("%w: bad doc key %q", ErrCorrupt, k)
		}
		rec, err := decodeDocRecord(it.Value())
		if err != nil {
			it.Close()
			return corrupt(err)
		}
		id := binary.BigEndian.Uint32(k[len(prefixDoc):])
		if id >= dt.stats.next {
			it.Close()
			return fmt.Errorf("%w: doc %d beyond next id %d", ErrCorrupt, id, dt.stats.next)
		}
		dt.set(id, rec)
		live++
	}
	if err := it.Close(); err != nil {
		return corrupt(err)
	}
	if live != dt.stats.docs {
		return fmt.Errorf("%w: %d doc records, stats say %d", ErrCorrupt, live, dt.stats.docs)
	}
	dt.grow(dt.stats.next)
	ix.docs = dt
	ix.links = &lazyGraph{load: ix.loadLinks}
	ix.commit = string(commit)
	return nil
}

// loadLinks reads and decodes the node and attachment records and builds the
// link graph from them.
func (ix *Index) loadLinks() (*linkGraph, error) {
	var recs []nodeRec
	var atts []note.Path
	intern := map[string]string{}
	err := ix.scanPrefix(prefixAttachment, func(k, _ []byte) error {
		atts = append(atts, note.Path(k))
		return nil
	})
	if err == nil {
		err = ix.scanPrefix(prefixNode, func(k, v []byte) error {
			r, err := decodeNodeRec(note.Path(k), v, intern)
			recs = append(recs, r)
			return err
		})
	}
	if err != nil {
		return nil, fmt.Errorf("read the link graph: %w", corrupt(err))
	}
	return buildLinkGraph(recs, atts), nil
}

// lazyGraph is the link graph, read from its records when first needed (a link
// query or LoadLinks), so that opening the index to search it, rebuild it or
// catch it up pays for neither reading nor resolving every link. A damaged record
// is found then, and every later use reports the same ErrCorrupt.
//
// Every use holds ix.mu: get holds it for reading at least (concurrent gets are
// safe). Update reads the graph too (holding ix.mu for writing), since the
// inbound fields of the notes a change links to or unlinks are worked out from
// it; an Update that fails after changing the graph replaces it with a new
// lazyGraph, read again from the records.
type lazyGraph struct {
	once sync.Once
	load func() (*linkGraph, error)
	g    *linkGraph
	err  error
}

func builtGraph(g *linkGraph) *lazyGraph {
	l := &lazyGraph{g: g}
	l.once.Do(func() {})
	return l
}

// get returns the graph, loading it the first time.
func (l *lazyGraph) get() (*linkGraph, error) {
	l.once.Do(func() {
		l.g, l.err = l.load()
		l.load = nil
	})
	return l.g, l.err
}

// graph returns the link graph; the caller holds ix.mu.
func (ix *Index) graph() (*linkGraph, error) {
	if ix.closed {
		return nil, ErrClosed
	}
	return ix.links.get()
}

// LoadLinks reads the link graph now if it has not been read yet, so that the
// first link query does not wait for it; it returns ErrCorrupt when a link record
// is damaged (as every link query and Update then will).
func (ix *Index) LoadLinks() error {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	_, err := ix.graph()
	return err
}

// scanPrefix calls fn with every key under prefix (without the prefix) and its value.
func (ix *Index) scanPrefix(prefix string, fn func(k, v []byte) error) error {
	it, err := ix.db.NewIter(&pebble.IterOptions{LowerBound: []byte(prefix), UpperBound: prefixEnd(prefix)})
	if err != nil {
		return err
	}
	for ok := it.First(); ok; ok = it.Next() {
		if err := fn(it.Key()[len(prefix):], it.Value()); err != nil {
			it.Close()
			return err
		}
	}
	return it.Close()
}

func formatValue(a *analyzer, privateFolders, privateTags []string) []byte {
	b := binary.AppendUvarint(nil, FormatVersion)
	b = append(b, a.fingerprint()...)
	return append(b, privacyFingerprint(privateFolders, privateTags)...)
}

// get returns a copy of key's value, nil if absent.
func (ix *Index) get(key []byte) ([]byte, error) {
	v, closer, err := ix.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, corrupt(err)
	}
	out := bytes.Clone(v)
	if out == nil {
		out = []byte{}
	}
	closer.Close()
	return out, nil
}

// corrupt classifies an error from pebble or from decoding a record: a shortage
// of a resource (file descriptors, memory, disk space) is ErrUnavailable, since
// removing and rebuilding an index cannot cure it; a context's error passes
// through; anything else — pebble's corruption, a record that does not decode,
// an unexpected read failure — is ErrCorrupt, without pebble's types.
func corrupt(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrCorrupt), errors.Is(err, ErrUnavailable),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case resourceShortage(err):
		return fmt.Errorf("%w: %s", ErrUnavailable, firstLine(err))
	}
	return fmt.Errorf("%w: %s", ErrCorrupt, firstLine(err))
}

// firstLine is err's message up to its first newline: pebble's corruption errors
// carry detail lines that do not belong in a one-line answer or label.
func firstLine(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}

// resourceShortage reports whether err is the system running short of something
// (not the index's files being wrong).
func resourceShortage(err error) bool {
	for _, e := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOSPC, syscall.EDQUOT, syscall.ENOMEM} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// Reconfigure applies o's query-time settings — Weights, FolderFactors,
// DiversityCap, ChunksPerFile — to the open index; the next search ranks with them
// (no rebuild). Settings fixed when the index was built are not changed: stop
// words or private folders or tags other than the index's are ErrFormat (reopening
// rebuilds); Logger and
// CacheSize keep their values from Open. It waits for an Update or Rebuild in
// progress.
func (ix *Index) Reconfigure(o Options) error {
	o = o.withDefaults()
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.closed {
		return ErrClosed
	}
	if newAnalyzer(o.StopWords).fingerprint() != ix.an.fingerprint() {
		return fmt.Errorf("reconfigure index: %w: other stop words need a rebuild", ErrFormat)
	}
	if privacyFingerprint(o.PrivateFolders, o.PrivateTags) != privacyFingerprint(ix.opts.PrivateFolders, ix.opts.PrivateTags) {
		return fmt.Errorf("reconfigure index: %w: other private folders or tags need a rebuild", ErrFormat)
	}
	ix.opts.Weights, ix.opts.FolderFactors = o.Weights, o.FolderFactors
	ix.opts.DiversityCap, ix.opts.ChunksPerFile = o.DiversityCap, o.ChunksPerFile
	ix.docs.setFactors(o.FolderFactors)
	return nil
}

// Close closes the index. Further calls return ErrClosed.
func (ix *Index) Close() error {
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.closed {
		return ErrClosed
	}
	ix.closed = true
	err := ix.db.Close()
	if lerr := ix.lock.Close(); err == nil {
		err = lerr
	}
	if err != nil {
		return fmt.Errorf("close index %s: %v", ix.dir, err)
	}
	return nil
}

// Commit returns the commit the index reflects, "" for an empty index.
func (ix *Index) Commit() string {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.commit
}

// Len returns the number of notes in the index.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.closed {
		return 0
	}
	return int(ix.docs.stats.docs)
}

func prefixEnd(p string) []byte {
	b := []byte(p)
	b[len(b)-1]++
	return b
}

// pebbleLogger sends pebble's messages to slog, Info at Debug level so a healthy
// index is silent.
type pebbleLogger struct{ l *slog.Logger }

func (p pebbleLogger) Infof(format string, args ...any) {
	p.l.Debug("pebble", "msg", fmt.Sprintf(format, args...))
}

func (p pebbleLogger) Errorf(format string, args ...any) {
	p.l.Error("pebble", "msg", fmt.Sprintf(format, args...))
}

func (p pebbleLogger) Fatalf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	p.l.Error("pebble fatal", "msg", msg)
	panic("pebble: " + msg)
}

// Verify reads every record of the index, so that pebble checks the checksum of
// every block, and decodes every posting block: the first damage found is
// ErrCorrupt. It reads the whole index once (about its size on disk) and holds
// off Update and Rebuild meanwhile.
func (ix *Index) Verify(ctx context.Context) error {
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.closed {
		return ErrClosed
	}
	it, err := ix.db.NewIter(nil)
	if err != nil {
		return corrupt(err)
	}
	var br blockReader
	var pos []uint32
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		if n++; n%4096 == 0 && ctx.Err() != nil {
			it.Close()
			return ctx.Err()
		}
		v, err := it.ValueAndErr()
		if err != nil {
			it.Close()
			return fmt.Errorf("verify index: %w", corrupt(err))
		}
		if _, _, term := parseTermKey(it.Key()); !term || !bytes.HasPrefix(it.Key(), []byte(prefixTerm)) {
			continue
		}
		err = br.init(v)
		for err == nil && br.next() {
			pos, err = br.positions(pos[:0])
		}
		if err == nil {
			err = br.err
		}
		if err != nil {
			it.Close()
			return fmt.Errorf("verify index: posting block %q: %w", it.Key(), corrupt(err))
		}
	}
	if err := it.Close(); err != nil {
		return fmt.Errorf("verify index: %w", corrupt(err))
	}
	return nil
}
