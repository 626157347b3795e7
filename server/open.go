package server

import (
	"context"
	"log/slog"
	"sort"
	"sync"

	"github.com/norn-vault/norn/repo"
)

// Vault is an open vault with everything wired: the write gates under the vault's
// settings, and the search index, which every write brings up to date before it is
// acknowledged.
type Vault struct {
	*repo.Vault
	Settings *Settings
	Index    *Indexer

	observers *commitObservers
	// writeMu: writes through this Vault (Apply) hold it shared; a move holds it
	// alone from its last check of the plan to its commit, so that no write of
	// this process lands in between (MoveNote).
	writeMu sync.RWMutex
}

// Apply is repo.Vault.Apply, in turn with a move's commit (see writeMu).
func (v *Vault) Apply(ctx context.Context, tx repo.Tx) (*repo.Result, error) {
	v.writeMu.RLock()
	defer v.writeMu.RUnlock()
	return v.Vault.Apply(ctx, tx)
}

// Open opens the vault at dir with its gates and index. Options' Gate, PathGate and
// OnCommit are set here.
func Open(ctx context.Context, dir string, opts repo.Options) (*Vault, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	s := NewSettings()
	var x *Indexer
	obs := &commitObservers{fns: map[int]func([]repo.Commit){}}
	opts.Gate, opts.PathGate = s.Gate, s.PathGate
	opts.OnCommit = func(commits []repo.Commit) {
		if x != nil {
			x.catchUpNow()
		}
		obs.notify(commits)
	}
	v, err := repo.Open(ctx, dir, opts)
	if err != nil {
		return nil, err
	}
	s.Bind(v)
	cfg, _, _ := s.Current(ctx)
	x = OpenIndexer(ctx, v, SearchOptionsFrom(cfg, opts.Logger), opts.Logger)
	s.resolveEdges(x.edgeTargets)
	if err := x.CatchUp(ctx); err != nil {
		opts.Logger.Warn("catch up index", "err", err)
	}
	return &Vault{Vault: v, Settings: s, Index: x, observers: obs}, nil
}

// OnCommit registers fn to be told about every new commit once it is durable, the
// working tree matches it and the index has caught up, before the writes are
// acknowledged. fn runs on the committer goroutine: it must be quick, must not block
// and must not write to the vault (that would deadlock). cancel removes fn; calling it
// again does nothing. Only a vault from Open reports commits: on a Vault built any
// other way fn is never called.
func (v *Vault) OnCommit(fn func([]repo.Commit)) (cancel func()) {
	if v.observers == nil || fn == nil {
		return func() {}
	}
	return v.observers.add(fn)
}

// commitObservers fans the committer's OnCommit out to the functions registered
// with Vault.OnCommit, in the order they were registered.
type commitObservers struct {
	mu   sync.Mutex
	next int
	fns  map[int]func([]repo.Commit)
}

func (o *commitObservers) add(fn func([]repo.Commit)) func() {
	o.mu.Lock()
	id := o.next
	o.next++
	o.fns[id] = fn
	o.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			o.mu.Lock()
			delete(o.fns, id)
			o.mu.Unlock()
		})
	}
}

func (o *commitObservers) notify(commits []repo.Commit) {
	o.mu.Lock()
	ids := make([]int, 0, len(o.fns))
	for id := range o.fns {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	fns := make([]func([]repo.Commit), len(ids))
	for i, id := range ids {
		fns[i] = o.fns[id]
	}
	o.mu.Unlock()
	for _, fn := range fns {
		fn(commits)
	}
}

// Close closes the vault, then its index.
func (v *Vault) Close() error {
	err := v.Vault.Close()
	if ierr := v.Index.Close(); err == nil {
		err = ierr
	}
	return err
}
