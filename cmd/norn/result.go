package main

import (
	"context"
	"fmt"

	"github.com/norn-vault/norn/errcode"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// applyAndPrint applies a transaction and prints its result (also for a dry run or
// a rejection with a dry run's result).
func applyAndPrint(ctx context.Context, e *env, g *globals, v *vault.Vault, tx repo.Tx) error {
	res, err := v.Apply(ctx, tx)
	if res == nil {
		return refusedDryRun(ctx, e, g, tx.DryRun, err)
	}
	return printResult(ctx, e, g, res, err)
}

// refusedDryRun answers a command whose run failed before it had a result (a
// conflict, an unknown note). For a dry run that is what a gate rejection gives:
// with --json a dry run's document, verdict "rejected" and the failure's fields,
// else the "would be refused" line before the error; otherwise just err.
func refusedDryRun(ctx context.Context, e *env, g *globals, dry bool, err error) error {
	if !dry || err == nil {
		return err
	}
	return printResult(ctx, e, g, &repo.Result{DryRun: true, Changes: []repo.FileChange{}}, err)
}

// printResult prints what a mutation did (or would do, for a dry run).
func printResult(ctx context.Context, e *env, g *globals, res *repo.Result, verdict error) error {
	var rem *vault.WriteRemote
	if verdict == nil && !res.DryRun && res.Commit != "" {
		// The write is done: where it stands against the remote (and, with
		// --wait pushed, a failure to push) is reported beside it.
		rem, verdict = writeRemote(ctx, e, g, res.Commit)
	}
	return printResultWith(e, g, res, rem, verdict)
}

// printResultWith prints res, where its commit stands against the remote (rem) and
// the verdict: printResult's output, whoever applied the transaction.
func printResultWith(e *env, g *globals, res *repo.Result, rem *vault.WriteRemote, verdict error) error {
	if g.json {
		type out struct {
			*repo.Result
			Verdict string             `json:"verdict,omitempty"`
			Remote  *vault.WriteRemote `json:"remote,omitempty"`
			*errorJSON
		}
		o := out{Result: res, Remote: rem}
		if res.DryRun {
			o.Verdict = "pass"
			if verdict != nil {
				o.Verdict = "rejected"
			}
		}
		if verdict != nil {
			ej, _ := classify(verdict)
			o.errorJSON = &ej
		}
		if err := printJSON(e, o); err != nil {
			return err
		}
		return printed(verdict)
	}
	if res.Unchanged {
		// The bytes given are the note's current ones: no commit.
		if res.DryRun {
			fmt.Fprintln(e.stdout, "dry run, nothing written; unchanged: would commit nothing")
		} else {
			fmt.Fprintln(e.stdout, "unchanged: the content is the note's current bytes; nothing committed")
		}
		if res.DryRun && verdict == nil {
			fmt.Fprintln(e.stdout, "gates: pass")
		}
		return verdict
	}
	if res.DryRun && verdict != nil {
		fmt.Fprintln(e.stdout, "dry run, nothing written; it would be refused:")
		return verdict
	}
	verb := "committed"
	if res.DryRun {
		verb = "dry run, nothing written; would commit"
	}
	if res.Commit != "" {
		fmt.Fprintf(e.stdout, "%s %s\n", verb, res.Commit.Short())
	} else {
		fmt.Fprintln(e.stdout, verb)
	}
	for _, c := range res.Changes {
		switch c.Kind {
		case repo.Archive:
			fmt.Fprintf(e.stdout, "  archived %s (was %s)\n", c.Path, short(c.OldRevision))
		case repo.Move:
			fmt.Fprintf(e.stdout, "  moved %s -> %s revision %s\n", c.From, c.Path, c.Revision)
		default:
			was := "new"
			if c.OldRevision != "" {
				was = "was " + short(c.OldRevision)
			}
			fmt.Fprintf(e.stdout, "  %s %s revision %s (%s)\n", c.Kind, c.Path, c.Revision, was)
		}
	}
	if res.DryRun && verdict == nil {
		fmt.Fprintln(e.stdout, "gates: pass")
	}
	if rem != nil && rem.Pushed && g.wait != "" {
		fmt.Fprintf(e.stdout, "pushed to %s\n", rem.Remote)
	}
	return verdict
}

// writeRemote reports where commit stands against the vault's default remote
// (vault.Syncer.WriteRemote), nil without a remote; with --wait pushed it syncs
// until the commit is there (vault.Syncer.WaitPushed), and a commit still not
// there is an error with the failed sync's code, beside the report.
func writeRemote(ctx context.Context, e *env, g *globals, commit repo.CommitID) (*vault.WriteRemote, error) {
	if g.v == nil {
		return nil, nil
	}
	s, err := newSyncer(e, g, g.v)
	if err != nil {
		return nil, err
	}
	vw, err := g.v.Viewer(ctx, vault.Actor{Author: g.v.Owner(), Private: true})
	if err != nil {
		return nil, err
	}
	if g.wait == "" {
		wr, err := s.WriteRemote(ctx, vw, commit)
		if err != nil {
			logger(e, g).Warn("where the write stands against the remote is unknown", "err", err)
			return nil, nil
		}
		return wr, nil
	}
	wr, err := s.WaitPushed(ctx, vw, commit)
	switch {
	case err != nil:
		return nil, fmt.Errorf("committed %s, but waiting for the push failed: %w", commit.Short(), err)
	case wr == nil:
		return nil, usagef("--wait pushed: the vault has no remote to push to (norn remote add NAME URL)")
	case !wr.Pushed:
		code := errcode.Code(wr.LastErrorCode)
		if code == "" {
			code = errcode.Internal
		}
		return wr, errcode.New(code, fmt.Sprintf("committed %s, but it is not on %s: %s", commit.Short(), wr.Remote, wr.LastError))
	}
	return wr, nil
}

// waitFlag checks --wait's value.
func waitFlag(s string) error {
	if s != "pushed" {
		return fmt.Errorf("want pushed, not %q", s)
	}
	return nil
}

// printed marks a verdict that is already in the printed JSON document, so that
// report does not print a second one.
func printed(verdict error) error {
	if verdict == nil {
		return nil
	}
	return &printedError{verdict}
}

func short(r repo.Revision) string {
	if len(r) > 12 {
		return string(r[:12])
	}
	return string(r)
}
