package main

import (
	"context"
	"fmt"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// applyAndPrint applies a transaction and prints its result (also for a dry run or
// a rejection with a dry run's result).
func applyAndPrint(ctx context.Context, e *env, g *globals, v *vault.Vault, tx repo.Tx) error {
	res, err := v.Apply(ctx, tx)
	if res == nil {
		return refusedDryRun(e, g, tx.DryRun, err)
	}
	return printResult(e, g, res, err)
}

// refusedDryRun answers a command whose run failed before it had a result (a
// conflict, an unknown note). For a dry run that is what a gate rejection gives:
// with --json a dry run's document, verdict "rejected" and the failure's fields,
// else the "would be refused" line before the error; otherwise just err.
func refusedDryRun(e *env, g *globals, dry bool, err error) error {
	if !dry || err == nil {
		return err
	}
	return printResult(e, g, &repo.Result{DryRun: true, Changes: []repo.FileChange{}}, err)
}

// printResult prints what a mutation did (or would do, for a dry run).
func printResult(e *env, g *globals, res *repo.Result, verdict error) error {
	if g.json {
		type out struct {
			*repo.Result
			Verdict string `json:"verdict,omitempty"`
			*errorJSON
		}
		o := out{Result: res}
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
	return verdict
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
