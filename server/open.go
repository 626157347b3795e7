package server

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/norn-vault/norn/repo"
)

// Vault is an open vault with everything wired: the write gates under the vault's
// settings, and the search index, which every write brings up to date before it is
// acknowledged.
type Vault struct {
	*repo.Vault
	Settings *Settings
	Index    *Indexer
	// writeMu: writes through this Vault (Apply) hold it shared; a move holds it
	// alone from its last check of the plan to its commit, so that no write of
	// this process lands in between (MoveNote).
	writeMu sync.RWMutex
	// captureMu serialises Capture: captures of a day all append to its inbox note.
	captureMu sync.Mutex
	// fileMu serialises FileNote: filings into one folder would conflict on its
	// index (another process's filings are retried).
	fileMu sync.Mutex
}

// Apply is repo.Vault.Apply, in turn with a move's commit (see writeMu).
func (v *Vault) Apply(ctx context.Context, tx repo.Tx) (*repo.Result, error) {
	v.writeMu.RLock()
	defer v.writeMu.RUnlock()
	return v.Vault.Apply(ctx, tx)
}

// Open opens the vault at dir with its gates and index. Options' Gate, PathGate and
// OnCommit are set here: the index catches up in step with every commit, before
// the writes are acknowledged, so commit events (Subscribe) come after it.
func Open(ctx context.Context, dir string, opts repo.Options) (*Vault, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	s := NewSettings()
	var ix atomic.Pointer[Indexer] // set once the index is open; the committer may call before
	opts.Gate, opts.PathGate = s.Gate, s.PathGate
	opts.OnCommit = func(repo.CommitID) {
		if x := ix.Load(); x != nil {
			x.catchUpNow()
		}
	}
	v, err := repo.Open(ctx, dir, opts)
	if err != nil {
		return nil, err
	}
	s.Bind(v)
	cfg, _, _ := s.Current(ctx)
	x := OpenIndexer(ctx, v, SearchOptionsFrom(cfg, opts.Logger), opts.Logger)
	ix.Store(x)
	s.resolveEdges(x.edgeTargets)
	if err := x.CatchUp(ctx); err != nil {
		opts.Logger.Warn("catch up index", "err", err)
	}
	return &Vault{Vault: v, Settings: s, Index: x}, nil
}

// Close closes the vault, then its index.
func (v *Vault) Close() error {
	err := v.Vault.Close()
	if ierr := v.Index.Close(); err == nil {
		err = ierr
	}
	return err
}
