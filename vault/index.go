package vault

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/rerank"
)

// Engine names in search responses.
const (
	EngineBM25 = "bm25"
	EngineScan = "scan"
)

// Indexer is the bridge from the vault to the search index: it catches the index up
// with HEAD by diffing the commit the index reflects against HEAD (recursing only into
// subtrees whose ids differ), rebuilds it from HEAD when it is missing, corrupt or of
// an old format, and answers searches honestly: every response says which engine
// answered, the index and head commits and whether the index is stale. When the index
// cannot be used, searches fall back to a bounded substring scan of the notes at HEAD.
type Indexer struct {
	vault *repo.Vault
	dir   string
	opts  graph.Options
	log   *slog.Logger
	// derivers keep the derived tables (derive.go).
	derivers []deriver

	catchMu sync.Mutex // serialises catch-up and rebuild

	// lazy: the index is opened on first explicit use (load), not by OpenIndexer.
	lazy     bool
	loadOnce sync.Once
	unopened bool // lazy and not loaded yet (under mu)

	mu         sync.Mutex
	ix         *graph.Index
	problem    string // why the index is unusable ("" when it is fine)
	rebuilding bool   // a background recreate is running
	bg         sync.WaitGroup
	closed     bool
	// retryAt and retryWait pace Reopen after a failed attempt.
	retryAt   time.Time
	retryWait time.Duration
}

// IndexDir is where a vault's index lives.
func IndexDir(v *repo.Vault) string { return filepath.Join(v.GitDir(), "norn", "index") }

// SearchOptionsFrom turns the vault's search settings into index options.
func SearchOptionsFrom(cfg config.Config, log *slog.Logger) graph.Options {
	w := graph.DefaultWeights()
	s := cfg.Search
	w.Title.Weight, w.Aliases.Weight, w.Tags.Weight = s.Weights.Title, s.Weights.Aliases, s.Weights.Tags
	w.Headings.Weight, w.Body.Weight, w.Path.Weight = s.Weights.Headings, s.Weights.Body, s.Weights.Path
	w.Frontmatter.Weight = s.Weights.Frontmatter
	w.Prefix, w.Proximity = s.Prefix, s.Proximity
	w.FeedbackDocs, w.FeedbackTerms, w.Feedback = s.Feedback.Docs, s.Feedback.Terms, s.Feedback.Weight
	w.Inbound = graph.FieldWeight{Weight: s.Inbound.Weight, B: s.Inbound.B}
	return graph.Options{
		Logger: log, Weights: w, FolderFactors: s.FolderFactors, DiversityCap: s.DiversityCap,
		StopWords: s.StopWords, ChunksPerFile: s.ChunksPerFile, PrivateFolders: cfg.Privacy.Folders,
		PrivateTags: cfg.Privacy.Tags,
	}
}

// OpenIndexer opens the vault's index. It never fails for a damaged index: a corrupt
// or outdated one is removed and rebuilt in the background (searches scan meanwhile);
// a locked or unavailable one is used by scanning until Reopen gets it.
func OpenIndexer(ctx context.Context, v *repo.Vault, opts graph.Options, log *slog.Logger) *Indexer {
	x := newIndexer(v, opts, log)
	x.ix = x.open(ctx)
	return x
}

// newIndexer is an Indexer of v whose index is not open yet.
func newIndexer(v *repo.Vault, opts graph.Options, log *slog.Logger) *Indexer {
	if log == nil {
		log = slog.Default()
	}
	return &Indexer{vault: v, dir: IndexDir(v), opts: opts, log: log, derivers: derivers()}
}

// load opens a lazy index on its first explicit use (a search, catch-up, rebuild,
// status or verify); writes and link queries never do (they take index() as it
// is). It does nothing for an index OpenIndexer opened, or once closed.
func (x *Indexer) load() {
	if !x.lazy {
		return
	}
	x.loadOnce.Do(func() {
		x.mu.Lock()
		closed := x.closed
		x.mu.Unlock()
		if closed {
			return
		}
		ix := x.open(context.Background())
		x.mu.Lock()
		defer x.mu.Unlock()
		x.unopened = false
		switch {
		case ix == nil:
		case x.closed || x.ix != nil:
			if err := ix.Close(); err != nil {
				x.log.Warn("close index", "err", err)
			}
		default:
			x.ix = ix
		}
	})
}

// open opens the index, or records why it cannot: a damaged or outdated index is
// recreated in the background.
func (x *Indexer) open(ctx context.Context) *graph.Index {
	ix, err := graph.Open(x.dir, x.opts)
	if err == nil {
		return ix
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	switch {
	case errors.Is(err, graph.ErrLocked):
		x.problem = problemLocked
	case errors.Is(err, graph.ErrCorrupt), errors.Is(err, graph.ErrFormat):
		x.recreateInBackground(ctx, nil, err)
	default:
		x.problem = fmt.Sprintf("index unavailable: %v", err)
	}
	return nil
}

// Reopen tries again to use an index that is out of use for a reason that may have
// passed — another process held it, the system was short of file descriptors or
// disk space, a rebuild failed. It catches the index up with HEAD before searches
// use it. It does nothing while the index is in use or being rebuilt, and after a
// failed attempt waits twice as long as before (2 s, up to 2 min) before the next;
// it never waits for a catch-up or rebuild.
// The maintainer calls it each round, so a server started beside a `norn reindex`
// takes the index up once that ends.
func (x *Indexer) Reopen(ctx context.Context) error {
	x.load()
	idle := func() bool {
		x.mu.Lock()
		defer x.mu.Unlock()
		return x.ix == nil && !x.rebuilding && !x.closed && !time.Now().Before(x.retryAt)
	}
	if !idle() || !x.catchMu.TryLock() { // never wait for a rebuild or catch-up
		return nil
	}
	defer x.catchMu.Unlock()
	if !idle() {
		return nil
	}
	ix := x.open(ctx)
	var err error
	if ix != nil {
		err = x.catchUpLocked(ctx, ix)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	switch {
	case ix == nil:
		err = fmt.Errorf("reopen index: %s", x.problem)
	case x.closed:
		return ix.Close()
	case errors.Is(err, graph.ErrCorrupt):
		x.recreateInBackground(ctx, ix, err)
		return err
	case err != nil && ix.Commit() == "":
		// Never built: an empty index would answer every search with nothing.
		ix.Close()
		x.problem = fmt.Sprintf("index unavailable: %v", err)
	default:
		x.ix, x.problem = ix, "" // caught up, or behind HEAD and saying so
		x.retryWait, x.retryAt = 0, time.Time{}
		return err
	}
	x.retryWait = min(max(2*x.retryWait, 2*time.Second), 2*time.Minute)
	x.retryAt = time.Now().Add(x.retryWait)
	return err
}

// Reconfigure makes opts (SearchOptionsFrom the vault's settings) the index's: the
// ranking settings apply to the next search, other stop words rebuild the index
// from HEAD in the background (searches scan meanwhile), and an index opened or
// rebuilt later uses them; so do other private folders or tags, since the index's private
// bits were judged under the old ones. Settings equal to the current ones cost a
// comparison.
// Like Reopen it never waits: while a catch-up or rebuild runs it does nothing, and
// the maintainer's next round tries again. The Logger and CacheSize stay.
func (x *Indexer) Reconfigure(ctx context.Context, opts graph.Options) error {
	x.mu.Lock()
	opts.Logger, opts.CacheSize = x.opts.Logger, x.opts.CacheSize
	same := sameSearchOptions(x.opts, opts)
	x.mu.Unlock()
	if same || !x.catchMu.TryLock() {
		return nil
	}
	defer x.catchMu.Unlock()
	x.mu.Lock()
	x.opts = opts
	ix := x.ix
	x.mu.Unlock()
	if ix == nil {
		return nil // the next open or rebuild uses opts
	}
	err := ix.Reconfigure(opts)
	if errors.Is(err, graph.ErrFormat) {
		x.mu.Lock()
		defer x.mu.Unlock()
		if x.ix == ix && !x.closed {
			x.log.Info("search or privacy settings changed the stop words, private folders or private tags; rebuilding the index")
			x.recreateInBackground(ctx, ix, err)
		}
		return nil
	}
	if err != nil && !errors.Is(err, graph.ErrClosed) {
		return fmt.Errorf("apply search settings: %w", err)
	}
	return nil
}

// sameSearchOptions reports whether a and b configure the index alike.
func sameSearchOptions(a, b graph.Options) bool {
	return a.Weights == b.Weights && maps.Equal(a.FolderFactors, b.FolderFactors) &&
		a.DiversityCap == b.DiversityCap && a.ChunksPerFile == b.ChunksPerFile &&
		(a.StopWords == nil) == (b.StopWords == nil) && slices.Equal(a.StopWords, b.StopWords) &&
		slices.Equal(a.PrivateFolders, b.PrivateFolders) && slices.Equal(a.PrivateTags, b.PrivateTags)
}

// privacy is the privacy rule the index's private bits are judged by: the
// private folders and tags of its options (x.opts changes only under catchMu and mu).
func (x *Indexer) privacy() config.Privacy {
	x.mu.Lock()
	defer x.mu.Unlock()
	return config.Privacy{Folders: x.opts.PrivateFolders, Tags: x.opts.PrivateTags}
}

// judgedUnder reports whether the index's private bits were judged under the
// private tags tags (as the settings list them).
func (x *Indexer) judgedUnder(tags []string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return slices.Equal(x.opts.PrivateTags, tags)
}

// recreateInBackground takes the index out of use, saying why (cause), and
// recreates it from HEAD in the background; old, if not nil, is closed first.
// Searches and link queries scan meanwhile. The caller holds x.mu, or is
// OpenIndexer.
func (x *Indexer) recreateInBackground(ctx context.Context, old *graph.Index, cause error) {
	x.ix, x.problem, x.rebuilding = nil, fmt.Sprintf("%v; rebuilding", cause), true
	x.bg.Add(1)
	go func() {
		defer x.bg.Done()
		defer func() {
			x.mu.Lock()
			x.rebuilding = false
			x.mu.Unlock()
		}()
		if old != nil {
			if err := old.Close(); err != nil {
				x.log.Warn("close damaged index", "err", err)
			}
		}
		if err := x.recreate(context.WithoutCancel(ctx)); err != nil {
			x.log.Error("rebuild index", "err", err)
		}
	}()
}

// checked returns err, and first, when err says the index ix is damaged (a record
// that does not decode, found after the index opened), starts recreating it.
func (x *Indexer) checked(ix *graph.Index, err error) error {
	if !errors.Is(err, graph.ErrCorrupt) {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.ix == ix && !x.closed {
		x.log.Error("index damaged; rebuilding it from HEAD", "err", err)
		x.recreateInBackground(context.Background(), ix, err)
	}
	return err
}

// LoadLinks reads the index's link graph now (graph.Index.LoadLinks), so that a
// server's first link query does not wait for it and a damaged link record is
// found, and the index rebuilt, before anyone asks.
func (x *Indexer) LoadLinks() {
	x.load()
	if ix, _ := x.index(); ix != nil {
		if err := x.checked(ix, ix.LoadLinks()); err != nil {
			x.log.Warn("read link graph", "err", err)
		}
	}
}

// recreate removes a damaged index, opens a new one and rebuilds it from HEAD.
func (x *Indexer) recreate(ctx context.Context) error {
	x.catchMu.Lock()
	defer x.catchMu.Unlock()
	if err := os.RemoveAll(x.dir); err != nil {
		return fmt.Errorf("remove index: %w", err)
	}
	ix, err := graph.Open(x.dir, x.opts)
	if err != nil {
		x.setProblem(fmt.Sprintf("index unavailable: %v", err))
		return err
	}
	if err := x.rebuildLocked(ctx, ix, nil); err != nil {
		ix.Close()
		x.setProblem(fmt.Sprintf("index rebuild failed: %v", err))
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return ix.Close()
	}
	x.ix, x.problem = ix, ""
	return nil
}

func (x *Indexer) setProblem(p string) {
	x.mu.Lock()
	x.problem = p
	x.mu.Unlock()
}

func (x *Indexer) index() (*graph.Index, string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.unopened {
		return nil, problemUnopened
	}
	return x.ix, x.problem
}

// Close waits for a background rebuild and closes the index.
func (x *Indexer) Close() error {
	x.mu.Lock()
	x.closed = true
	x.mu.Unlock()
	x.bg.Wait()
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.ix != nil {
		err := x.ix.Close()
		x.ix = nil
		return err
	}
	return nil
}

// Verify reads the whole index (graph.Index.Verify) and its link graph. Damage
// starts a rebuild from HEAD, as a search meeting it would, and is returned.
func (x *Indexer) Verify(ctx context.Context) error {
	x.load()
	ix, _ := x.index()
	if ix == nil {
		return nil
	}
	err := ix.Verify(ctx)
	if err == nil {
		err = ix.LoadLinks()
	}
	return x.checked(ix, err)
}

// problemUnopened is the problem of a lazy index no one has asked for yet.
const problemUnopened = "this process has not opened the index"

// problemLocked is the problem of an index another process holds.
const problemLocked = "index locked by another process"

// Locked reports whether the index is out of use because another process holds it
// (then a norn serve, if that is who holds it, answers AskLocal).
func (x *Indexer) Locked() bool {
	x.load()
	ix, p := x.index()
	return ix == nil && p == problemLocked
}

// Status reports the index's commit and problem, if any.
func (x *Indexer) Status() (commit string, problem string) {
	x.load()
	ix, p := x.index()
	if ix == nil {
		return "", p
	}
	return ix.Commit(), p
}

// CatchUp brings the index to HEAD: nothing to do when it is there, a tree diff
// from its commit otherwise, a rebuild when it is empty or its commit is gone.
func (x *Indexer) CatchUp(ctx context.Context) error {
	x.load()
	ix, _ := x.index()
	if ix == nil {
		return nil
	}
	x.catchMu.Lock()
	defer x.catchMu.Unlock()
	return x.checked(ix, x.catchUpLocked(ctx, ix))
}

func (x *Indexer) catchUpLocked(ctx context.Context, ix *graph.Index) error {
	head := string(x.vault.Head())
	from := ix.Commit()
	if from == head {
		return nil
	}
	if from == "" || head == "" {
		return x.rebuildLocked(ctx, ix, nil)
	}
	changes, err := x.vault.Diff(ctx, from, head)
	if err != nil {
		if errors.Is(err, repo.ErrNotFound) {
			x.log.Warn("index commit not found; rebuilding", "commit", from)
			return x.rebuildLocked(ctx, ix, nil)
		}
		return fmt.Errorf("catch up index: %w", err)
	}
	var put []graph.Doc
	var remove []note.Path
	var files []repo.File
	for _, c := range changes {
		if !indexed(c.Path) {
			continue // the derivers' (changedRows)
		}
		if c.Kind == repo.Archive {
			remove = append(remove, c.Path)
		} else {
			files = append(files, repo.File{Path: c.Path, Revision: c.Revision})
		}
	}
	// Read and parse the changed notes on every core when there are many (a pull,
	// a rename that rewrote its links), in diff order.
	pv := x.privacy()
	put = make([]graph.Doc, len(files))
	if len(files) < 8 {
		for i, f := range files {
			if put[i], err = readDoc(ctx, x.vault, pv, f); err != nil {
				return fmt.Errorf("catch up index: %w", err)
			}
		}
	} else {
		i := 0
		for d, err := range readDocs(ctx, x.vault, pv, files) {
			if err != nil {
				return fmt.Errorf("catch up index: %w", err)
			}
			put[i] = d
			i++
		}
		order := make(map[note.Path]int, len(files))
		for i, f := range files {
			order[f.Path] = i
		}
		slices.SortFunc(put, func(a, b graph.Doc) int { return order[a.Path] - order[b.Path] })
	}
	b := graph.DocBatch(head, put, remove)
	if err := x.changedRows(ctx, &b, repo.CommitID(from), repo.CommitID(head), changes); err != nil {
		return fmt.Errorf("catch up index: %w", err)
	}
	if err := ix.Update(ctx, b); err != nil {
		return fmt.Errorf("catch up index: %w", err)
	}
	return nil
}

// catchUpNow catches up from the committer, before writes are acknowledged. It
// never waits: when a rebuild or another catch-up holds the index, it leaves the work
// to that one (or to the next search), and index_stale says so meanwhile.
func (x *Indexer) catchUpNow() {
	ix, _ := x.index()
	if ix == nil || !x.catchMu.TryLock() {
		return
	}
	defer x.catchMu.Unlock()
	if err := x.checked(ix, x.catchUpLocked(context.Background(), ix)); err != nil {
		x.log.Warn("catch up index", "err", err)
	}
}

// Rebuild rebuilds the index from HEAD; progress gets (done, total).
func (x *Indexer) Rebuild(ctx context.Context, progress func(done, total int)) error {
	x.load()
	ix, problem := x.index()
	if ix == nil {
		return fmt.Errorf("rebuild index: %s", problem)
	}
	x.catchMu.Lock()
	defer x.catchMu.Unlock()
	return x.rebuildLocked(ctx, ix, progress)
}

func (x *Indexer) rebuildLocked(ctx context.Context, ix *graph.Index, progress func(done, total int)) error {
	files, head, err := x.vault.Files(ctx, "")
	if err != nil {
		return fmt.Errorf("rebuild index: %w", err)
	}
	docs := DocFiles(files)
	var p func(int)
	if progress != nil {
		p = func(done int) { progress(done, len(docs)) }
	}
	records := x.withRows(ctx, head, files, graph.DocRecords(readDocs(ctx, x.vault, x.privacy(), docs)))
	if err := ix.Rebuild(ctx, string(head), records, p); err != nil {
		return fmt.Errorf("rebuild index: %w", err)
	}
	// A rebuild holds every posting in memory at once; give that back to the OS
	// now rather than keep a serving process at its peak.
	debug.FreeOSMemory()
	return nil
}

// readDocs reads and parses files on every core and yields them (in no fixed
// order), with their privacy judged by pv.
func readDocs(ctx context.Context, v *repo.Vault, pv config.Privacy, files []repo.File) iter.Seq2[graph.Doc, error] {
	return func(yield func(graph.Doc, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		jobs := make(chan repo.File)
		type result struct {
			doc graph.Doc
			err error
		}
		out := make(chan result, 64)
		var wg sync.WaitGroup
		for range max(1, runtime.GOMAXPROCS(0)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for f := range jobs {
					var r result
					r.doc, r.err = readDoc(ctx, v, pv, f)
					select {
					case out <- r:
					case <-ctx.Done():
						return
					}
				}
			}()
		}
		go func() {
			defer close(out)
			defer wg.Wait()
			defer close(jobs)
			for _, f := range files {
				select {
				case jobs <- f:
				case <-ctx.Done():
					return
				}
			}
		}()
		for r := range out {
			if !yield(r.doc, r.err) {
				cancel()
				for range out { // let the workers finish
				}
				return
			}
		}
	}
}

// readDoc reads and parses one file for the index (an attachment is not read),
// judging its privacy by pv.
func readDoc(ctx context.Context, v *repo.Vault, pv config.Privacy, f repo.File) (graph.Doc, error) {
	if !note.IsNote(f.Path) {
		return graph.Doc{Path: f.Path, Revision: string(f.Revision)}, nil
	}
	b, err := v.ReadRevision(ctx, f.Revision)
	if err != nil {
		return graph.Doc{}, err
	}
	return parseDoc(f.Path, f.Revision, b, pv), nil
}

// parseDoc parses a note for the index. A note whose frontmatter breaks the codec's
// rules is still indexed, by its path and its text, with the links of its body.
// A file that is not a note is an attachment (no Note). A note private under pv
// is marked so (Doc.Private).
func parseDoc(p note.Path, rev repo.Revision, b []byte, pv config.Privacy) graph.Doc {
	if !note.IsNote(p) {
		return graph.Doc{Path: p, Revision: string(rev)}
	}
	n, err := note.Parse(p, b)
	private := pv.NotePrivate(p, n, err, b)
	if err == nil {
		return graph.Doc{Path: p, Revision: string(rev), Note: n, Private: private}
	}
	n = &note.Note{Path: p, Raw: b, Title: note.Stem(p), TitleSource: note.TitleFromPath}
	if body := bodyAfterFrontmatter(b); body != nil {
		if bn, err := note.Parse(p, body); err == nil {
			off := len(b) - len(body)
			lines := bytes.Count(b[:off], []byte("\n"))
			for _, l := range bn.Links {
				l.Line, l.Start, l.End = l.Line+lines, l.Start+off, l.End+off
				n.Links = append(n.Links, l)
			}
		}
	}
	return graph.Doc{Path: p, Revision: string(rev), Note: n, Unparsed: true, Private: private}
}

// indexed reports whether the index holds the file at p as a note or an
// attachment: every file but Norn's own under .norn/ (the settings and the
// ledger's records, which only derivers read).
func indexed(p note.Path) bool { return !IsNornPath(p) }

// DocFiles are the files among files the index holds as notes and attachments
// (indexed).
func DocFiles(files []repo.File) []repo.File {
	out := files[:0:0]
	for _, f := range files {
		if indexed(f.Path) {
			out = append(out, f)
		}
	}
	return out
}

// NotesOnly is the notes among files.
func NotesOnly(files []repo.File) []repo.File {
	out := files[:0:0]
	for _, f := range files {
		if note.IsNote(f.Path) {
			out = append(out, f)
		}
	}
	return out
}

// SearchRequest is one search.
type SearchRequest struct {
	Query  string
	Limit  int
	Offset int
	Folder string
	// Literal takes the query as plain words (no operators).
	Literal bool
	// HidePrivate answers as if the private notes were not in the vault (for a
	// caller without the private scope): graph.SearchOptions.HidePrivate.
	HidePrivate bool
	// NoSnippets returns the hits without their snippets, sections, chunks and
	// inbound lines (graph.SearchOptions.NoSnippets): same hits, less work.
	NoSnippets bool
	// WaitForPendingWrites waits (up to Wait, default 2 s) for the index to reach HEAD,
	// with the commits other processes made.
	WaitForPendingWrites bool
	Wait                 time.Duration
	// Rerank is the query's rerank mode (Vault.Search): auto (the gate decides),
	// off or force. Indexer.Search never reranks.
	Rerank rerank.Mode
}

// SearchResponse is a search's answer, with what produced it.
type SearchResponse struct {
	Engine      string  `json:"engine"`
	IndexCommit string  `json:"index_commit"`
	HeadCommit  string  `json:"head_commit"`
	IndexStale  bool    `json:"index_stale"`
	TookMS      float64 `json:"took_ms"`
	Total       int     `json:"total"`
	Truncated   bool    `json:"truncated,omitempty"`
	// Via names the running server that answered for a command that could not
	// open the index itself (AskLocal); empty when this process answered.
	Via string `json:"via,omitempty"`
	// Rerank is what the reranker's call cost, when it was asked (Vault.Search).
	Rerank *RerankStats `json:"rerank,omitempty"`
	Hits   []graph.Hit  `json:"-"`
	// caughtUp: asked to wait for pending writes, the index reached the HEAD of
	// the moment the search began (commits landing during the search may still
	// make it stale, which says nothing about the caller's own writes).
	caughtUp bool
}

// Search answers a query from the index, or by scanning the notes at HEAD when the
// index is unusable. It never fails because of the index; it fails for a malformed
// CaughtUp reports whether, asked to wait for pending writes, the index reached
// the HEAD of the search's start.
func (r *SearchResponse) CaughtUp() bool { return r.caughtUp }

// query (graph.ErrQuery).
func (x *Indexer) Search(ctx context.Context, r SearchRequest) (*SearchResponse, error) {
	x.load()
	start := time.Now()
	caughtUp := false
	if r.WaitForPendingWrites {
		wait := r.Wait
		if wait <= 0 {
			wait = 2 * time.Second
		}
		wctx, cancel := context.WithTimeout(ctx, wait)
		// Commits another process made (the git CLI, a `norn` command) count too.
		if err := x.vault.Refresh(wctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			x.log.Warn("refresh vault", "err", err)
		}
		err := x.CatchUp(wctx)
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			x.log.Warn("catch up index", "err", err)
		}
		cancel()
		caughtUp = err == nil
	}
	head := string(x.vault.Head())
	o := graph.SearchOptions{Limit: r.Limit, Offset: r.Offset, Folder: r.Folder, Literal: r.Literal, HidePrivate: r.HidePrivate, NoSnippets: r.NoSnippets}
	resp := &SearchResponse{HeadCommit: head, caughtUp: caughtUp}
	ix, problem := x.index()
	var res *graph.Results
	var err error
	if ix != nil {
		res, err = ix.Search(ctx, r.Query, o)
		if err != nil && !errors.Is(err, graph.ErrQuery) && ctx.Err() == nil {
			x.checked(ix, err)
			problem = fmt.Sprintf("index failed: %v", err)
			if errors.Is(err, graph.ErrCorrupt) {
				problem += "; rebuilding"
			}
			res, err = nil, nil
		}
		if res != nil {
			resp.Engine, resp.IndexCommit = EngineBM25, res.Commit // the hits' commit, under the same lock
		}
	}
	if err != nil {
		return nil, err
	}
	if res == nil {
		files, _, ferr := x.vault.Files(ctx, "")
		if ferr != nil {
			return nil, ferr
		}
		res, err = graph.Scan(ctx, r.Query, readDocs(ctx, x.vault, x.privacy(), NotesOnly(files)), o)
		if err != nil {
			return nil, err
		}
		resp.Engine = EngineScan + " (" + problem + ")"
		resp.Truncated = res.Truncated
	}
	resp.IndexStale = resp.IndexCommit != head
	resp.Total, resp.Hits = res.Total, res.Hits
	resp.TookMS = float64(time.Since(start).Microseconds()) / 1000
	return resp, nil
}
