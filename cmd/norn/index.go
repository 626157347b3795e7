package main

import (
	"context"
	"errors"
	"log/slog"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server"
	"github.com/norn-vault/norn/vault"
)

// openIndexer opens the search index of a vault that init, clone or bench
// search has just made, with the vault's search settings (commands on an
// existing vault use its own index, vault.Vault.Index).
func openIndexer(ctx context.Context, e *env, g *globals, v *repo.Vault, s *vault.Settings) *vault.Indexer {
	cfg, _, _ := s.Current(ctx)
	log := logger(e, g)
	return vault.OpenIndexer(ctx, v, vault.SearchOptionsFrom(cfg, log), log)
}

// asker sends read-only queries to the norn serve that holds the index, when this
// process found it locked (server.AskLocal): that server answers from the index
// instead of this process scanning every note.
type asker struct {
	gitDir string
	on     bool
	log    *slog.Logger
}

func newAsker(e *env, g *globals, gitDir string, x *vault.Indexer) *asker {
	return &asker{gitDir: gitDir, on: x.Locked(), log: logger(e, g)}
}

// ask answers q from the server when there is one to ask, else by direct. A server
// that answers with a failure is the answer; one that does not answer at all is
// not asked again.
func ask[E any](ctx context.Context, a *asker, q server.Query, direct func() (*E, error)) (*E, error) {
	if a.on {
		out := new(E)
		err := server.AskLocal(ctx, a.gitDir, q, out)
		if !errors.Is(err, server.ErrNoLocalServer) {
			return out, err
		}
		a.log.Debug("index locked and no server to ask; answering here", "err", err)
		a.on = false
	}
	return direct()
}
