package main

import (
	"context"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server"
)

// openIndexer opens the vault's search index with the vault's search settings.
func openIndexer(ctx context.Context, e *env, g *globals, v *repo.Vault, s *server.Settings) *server.Indexer {
	cfg, _, _ := s.Current(ctx)
	log := logger(e, g)
	return server.OpenIndexer(ctx, v, server.SearchOptionsFrom(cfg, log), log)
}
