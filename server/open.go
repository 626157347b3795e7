package server

import (
	"context"
	"log/slog"

	"github.com/norn-vault/norn/repo"
)

// Vault is an open vault with everything wired: the write gates under the vault's
// settings, and the search index, which every write brings up to date before it is
// acknowledged.
type Vault struct {
	*repo.Vault
	Settings *Settings
	Index    *Indexer
}

// Open opens the vault at dir with its gates and index. Options' Gate and OnCommit
// are set here.
func Open(ctx context.Context, dir string, opts repo.Options) (*Vault, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	s := NewSettings()
	var x *Indexer
	opts.Gate = s.Gate
	opts.OnCommit = func([]repo.Commit) {
		if x != nil {
			x.catchUpNow()
		}
	}
	v, err := repo.Open(ctx, dir, opts)
	if err != nil {
		return nil, err
	}
	s.Bind(v)
	cfg, _, _ := s.Current(ctx)
	x = OpenIndexer(ctx, v, SearchOptionsFrom(cfg, opts.Logger), opts.Logger)
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
