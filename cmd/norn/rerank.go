package main

import (
	"fmt"
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

// machineReranker is vault.Options.Rerank for this machine: once the vault's git
// directory is known it loads the per-machine settings (machine.yaml, then the
// environment) and builds the reranker when they name an endpoint. The settings
// loaded are kept in *m when m is not nil (norn serve reads its own part).
func machineReranker(e *env, g *globals, m *config.Machine) func(gitDir string) (*rerank.Reranker, error) {
	return func(gitDir string) (*rerank.Reranker, error) {
		ms, err := loadMachine(e, gitDir)
		if err != nil {
			return nil, err
		}
		if m != nil {
			*m = ms
		}
		// The gate's threshold here is a default: the vault passes the one of its
		// current settings with every search.
		o, ok := rerankOptions(ms, config.Default(), gitDir, logger(e, g))
		if !ok {
			return nil, nil
		}
		r, err := rerank.New(o)
		if err != nil {
			return nil, fmt.Errorf("rerank endpoint %s: %w", ms.Rerank.Endpoint, err)
		}
		return r, nil
	}
}
