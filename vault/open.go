package vault

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/rerank"
)

// Vault is an open vault with everything wired: the write gates under the vault's
// settings, and the search index, which every write brings up to date before it is
// acknowledged.
type Vault struct {
	repo     *repo.Vault
	Settings *Settings
	Index    *Indexer
	// writeMu: writes through this Vault (Apply) hold it shared; a move holds it
	// alone from its last check of the plan to its commit, so that no write of
	// this process lands in between (MoveNote).
	writeMu sync.RWMutex
	// captureMu serialises Capture: captures of a day all append to its inbox note.
	captureMu sync.Mutex
	// priv follows the notes private by their frontmatter at HEAD, for viewers
	// that may not see them.
	priv privacySet
	// rerank is this machine's reranker (Options.Rerank), nil without an endpoint.
	rerank *rerank.Reranker
	// fileMu serialises FileNote: filings into one folder would conflict on its
	// index (another process's filings are retried).
	fileMu sync.Mutex
}

// Apply is repo.Vault.Apply, in turn with a move's commit (see writeMu).
func (v *Vault) Apply(ctx context.Context, tx repo.Tx) (*repo.Result, error) {
	v.writeMu.RLock()
	defer v.writeMu.RUnlock()
	return v.repo.Apply(ctx, tx)
}

// Options configure Open.
type Options struct {
	// Repo are the repository's options. Open sets Gate and PathGate to the
	// vault's gates; Repo.OnCommit, when set, is told of every commit after the
	// index has caught up with it.
	Repo repo.Options
	// LazyIndex defers opening the search index until a search, catch-up,
	// rebuild or status asks for it (Indexer): a CLI command that only reads notes
	// or writes does not pay for opening pebble, nor contend with a running
	// `norn serve` for the index's lock. Writes and link queries never open it;
	// they scan the notes at HEAD while it is closed, as a second process does.
	LazyIndex bool
	// Lean opens the repository for one command in a short-lived process
	// (repo.Options.Lean): HEAD's tree is read only along the paths the command
	// touches. With LazyIndex, a CLI write then costs about what its paths cost,
	// not what the vault's size does.
	Lean bool
	// Rerank builds this machine's reranker once the vault's git directory is
	// known (the per-machine settings and the egress log live there): the caller
	// builds it from those settings and the environment (the vault reads
	// neither); nil, or a nil reranker, when no endpoint is set. An error fails
	// Open. Search calls the reranker after BM25, gated by the threshold of the
	// vault's settings.
	Rerank func(gitDir string) (*rerank.Reranker, error)
}

// Open opens the vault at dir with its gates and index. The index catches up in
// step with every commit, before the writes are acknowledged, so commit events
// (Subscribe) come after it.
func Open(ctx context.Context, dir string, o Options) (*Vault, error) {
	opts := o.Repo
	opts.Lean = opts.Lean || o.Lean
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	s := NewSettings()
	var ix atomic.Pointer[Indexer] // set once the index is open; the committer may call before
	opts.Gate, opts.PathGate = s.Gate, s.PathGate
	onCommit := opts.OnCommit
	opts.OnCommit = func(head repo.CommitID) {
		if x := ix.Load(); x != nil {
			x.catchUpNow()
		}
		if onCommit != nil {
			onCommit(head)
		}
	}
	v, err := repo.Open(ctx, dir, opts)
	if err != nil {
		return nil, err
	}
	var rr *rerank.Reranker
	if o.Rerank != nil {
		if rr, err = o.Rerank(v.GitDir()); err != nil {
			if cerr := v.Close(); cerr != nil {
				opts.Logger.Warn("close vault", "err", cerr)
			}
			return nil, err
		}
	}
	s.Bind(v)
	cfg, _, _ := s.Current(ctx)
	sopts := SearchOptionsFrom(cfg, opts.Logger)
	var x *Indexer
	if o.LazyIndex {
		x = newIndexer(v, sopts, opts.Logger)
		x.lazy, x.unopened = true, true
	} else {
		x = OpenIndexer(ctx, v, sopts, opts.Logger)
	}
	ix.Store(x)
	s.resolveEdges(x.edgeTargets)
	if !o.LazyIndex {
		if err := x.CatchUp(ctx); err != nil {
			opts.Logger.Warn("catch up index", "err", err)
		}
	}
	return &Vault{repo: v, Settings: s, Index: x, rerank: rr}, nil
}

// OpenIndexer opens a second handle on the vault's search index with the vault's
// current search settings, for a caller that closes one and looks again (norn
// doctor after a repair). The caller closes it.
func (v *Vault) OpenIndexer(ctx context.Context) *Indexer {
	cfg, _, _ := v.Settings.Current(ctx)
	return OpenIndexer(ctx, v.repo, SearchOptionsFrom(cfg, v.Index.log), v.Index.log)
}

// Close closes the vault, then its index.
func (v *Vault) Close() error {
	err := v.repo.Close()
	if ierr := v.Index.Close(); err == nil {
		err = ierr
	}
	return err
}
