package main

import (
	"log/slog"
	"time"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/rerank"
)

// rerankOptions builds the reranker's options from this machine's settings (the
// endpoint, model, key and timeout) and the vault's (the gate's threshold), with
// egress records in the vault's git directory. ok is false when no endpoint is
// set: reranking is off.
func rerankOptions(m config.Machine, c config.Config, gitDir string, log *slog.Logger) (o rerank.Options, ok bool) {
	if m.Rerank.Endpoint == "" {
		return rerank.Options{}, false
	}
	return rerank.Options{
		Endpoint:   m.Rerank.Endpoint,
		Model:      m.Rerank.Model,
		APIKey:     m.Rerank.APIKey.Reveal(),
		Gate:       rerank.Gate{Threshold: c.Rerank.Threshold},
		Timeout:    time.Duration(m.Rerank.Timeout),
		EgressPath: egressPath(gitDir),
		Logger:     log,
	}, true
}
