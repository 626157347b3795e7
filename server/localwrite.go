package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// A one-shot command that writes (`norn write`, `norn capture`) beside a running norn serve sends
// its transaction here ("apply") instead of opening the vault: the server's
// committer makes the commit (one writer, its group commit), with the author and
// roles the command put in the transaction, through the same gates. The command
// prints the answer as it would its own result.

// ApplyAnswer is the answer to "apply": what v.Apply returned (a dry run that the
// gates refuse has both a Result and an Error), and, after a commit, where it
// stands against the vault's default remote.
//
// For "capture", Captured is the rest of what v.Capture returned.
type ApplyAnswer struct {
	Result   *repo.Result       `json:"result,omitempty"`
	Error    *LocalError        `json:"error,omitempty"`
	Remote   *vault.WriteRemote `json:"remote,omitempty"`
	Captured *Captured          `json:"captured,omitempty"`
}

// Captured is what a capture answers beside its Result (vault.Captured).
type Captured struct {
	Path     note.Path     `json:"path"`
	Revision repo.Revision `json:"revision"`
	Created  bool          `json:"created"`
}

// Err is the answer's failure, nil when there is none.
func (a *ApplyAnswer) Err() error {
	if a.Error == nil {
		return nil
	}
	return a.Error
}

// apply applies tx on v for a command; s, when not nil, reports where the commit
// stands against the default remote.
func apply(ctx context.Context, v *vault.Vault, s *vault.Syncer, log *slog.Logger, tx *repo.Tx) (*ApplyAnswer, error) {
	if tx == nil {
		return nil, fmt.Errorf("local apply: no transaction: %w", repo.ErrInvalid)
	}
	res, err := v.Apply(ctx, *tx)
	return applied(ctx, v, s, log, res, err), nil
}

// capture is apply for `norn capture` (v.Capture).
func capture(ctx context.Context, v *vault.Vault, s *vault.Syncer, log *slog.Logger, r *vault.CaptureRequest) (*ApplyAnswer, error) {
	if r == nil {
		return nil, fmt.Errorf("local capture: no request: %w", repo.ErrInvalid)
	}
	c, err := v.Capture(ctx, *r)
	if c == nil {
		return applied(ctx, v, s, log, nil, err), nil
	}
	a := applied(ctx, v, s, log, c.Result, err)
	a.Captured = &Captured{Path: c.Path, Revision: c.Revision, Created: c.Created}
	return a, nil
}

// applied is the answer to a mutation that returned res and err.
func applied(ctx context.Context, v *vault.Vault, s *vault.Syncer, log *slog.Logger, res *repo.Result, err error) *ApplyAnswer {
	a := &ApplyAnswer{Result: res}
	if err != nil {
		a.Error = localErrorOf(err)
		return a
	}
	if s != nil && res != nil && !res.DryRun && res.Commit != "" {
		a.Remote = ownerWriteRemote(ctx, v, s, log, res.Commit)
	}
	return a
}

// ownerWriteRemote is Syncer.WriteRemote as the vault's owner sees it (what norn
// write reports); a failure to tell is logged and reported as nothing.
func ownerWriteRemote(ctx context.Context, v *vault.Vault, s *vault.Syncer, log *slog.Logger, commit repo.CommitID) *vault.WriteRemote {
	vw, err := v.Viewer(ctx, vault.Actor{Author: v.Owner(), Private: true})
	if err == nil {
		var wr *vault.WriteRemote
		if wr, err = s.WriteRemote(ctx, vw, commit); err == nil {
			return wr
		}
	}
	log.Warn("where the write stands against the remote is unknown", "err", err)
	return nil
}

// typedCause is what a LocalError carries of its cause's typed error, so that the
// asking command renders it as its own (conflict fields, gate violations).
func typedCause(err error) (*repo.ConflictError, []hooks.Violation) {
	var ce *repo.ConflictError
	var rej *hooks.Rejection
	errors.As(err, &ce)
	if errors.As(err, &rej) {
		return ce, rej.Violations
	}
	return ce, nil
}
