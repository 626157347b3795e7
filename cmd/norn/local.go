package main

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server"
	"github.com/norn-vault/norn/vault"
)

// A one-shot command beside a running norn serve asks that server (found by the
// vault's .git/norn/serve.json, server.AskLocal) before it opens the vault: the
// server has the vault open, and a write it makes goes through its committer. The
// functions here are called before openVault; when no server answers (none
// advertised, or a stale advertisement) they return false and the command goes
// on by itself, as it would without a server.

// askServer asks q of the norn serve running on the vault and decodes its answer
// into out. It reports false, with a debug log line, when there is no server to
// ask; otherwise the server's answer or failure is the command's.
func askServer(ctx context.Context, e *env, g *globals, q server.Query, out any) (bool, error) {
	err := server.AskLocal(ctx, localGitDir(e, g), q, out)
	if errors.Is(err, server.ErrNoLocalServer) {
		logger(e, g).Debug("no norn serve to ask; doing it here", "op", q.Op, "err", err)
		return false, nil
	}
	logger(e, g).Debug("asked norn serve", "op", q.Op, "err", err)
	return true, err
}

// applyViaServer has the norn serve running on the vault apply tx and prints
// what it did as applyAndPrint would. It reports false when there is no server
// to ask, and with --wait (which syncs from this process): the command then
// applies tx itself.
func applyViaServer(ctx context.Context, e *env, g *globals, tx repo.Tx) (bool, error) {
	if g.wait != "" {
		return false, nil
	}
	var a server.ApplyAnswer
	if ok, err := askServer(ctx, e, g, server.Query{Op: "apply", Tx: &tx}, &a); !ok || err != nil {
		return ok, err
	}
	if a.Result == nil {
		return true, refusedDryRun(ctx, e, g, tx.DryRun, a.Err())
	}
	return true, printResultWith(e, g, a.Result, a.Remote, a.Err())
}

// captureViaServer is applyViaServer for norn capture: it prints what the
// server's capture did as runCapture prints its own.
func captureViaServer(ctx context.Context, e *env, g *globals, r vault.CaptureRequest) (bool, error) {
	if g.wait != "" {
		return false, nil
	}
	var a server.ApplyAnswer
	if ok, err := askServer(ctx, e, g, server.Query{Op: "capture", Capture: &r}, &a); !ok || err != nil {
		return ok, err
	}
	if a.Result == nil || a.Captured == nil {
		return true, refusedDryRun(ctx, e, g, r.DryRun, a.Err())
	}
	if g.json {
		c := a.Captured
		return true, printMutationWith(e, g, a.Result, a.Remote, a.Err(), map[string]any{"path": c.Path, "revision": c.Revision, "created": c.Created})
	}
	return true, printResultWith(e, g, a.Result, a.Remote, a.Err())
}

// localGitDir is the vault's git folder as opening the vault would find it.
func localGitDir(e *env, g *globals) string {
	dir, err := filepath.Abs(vaultDir(e, g))
	if err != nil {
		dir = vaultDir(e, g)
	}
	return filepath.Join(dir, ".git")
}

// cliOwner is the vault's owner as opening the vault would find it (the git
// identity of its folder), for a command that has not opened it.
func cliOwner(e *env, g *globals) repo.Author {
	dir, err := filepath.Abs(vaultDir(e, g))
	if err != nil {
		dir = vaultDir(e, g)
	}
	return repo.GitIdentity(dir)
}
