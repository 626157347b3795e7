package main

import (
	"context"
	"flag"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

func runArchive(ctx context.Context, e *env, g *globals, args []string) error {
	fs := flag.NewFlagSet("archive", flag.ContinueOnError)
	g.register(fs)
	var w writer
	w.register(fs)
	reason := fs.String("reason", "", "why: archived, superseded or retracted (required)")
	expected := fs.String("expected-revision", "", "archive only if the note is still at this revision")
	dry := fs.Bool("dry-run", false, "show what would change; write nothing")
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs(args, 1, 1); err != nil {
		return err
	}
	if !repo.Reason(*reason).Valid() {
		return usagef("--reason must be archived, superseded or retracted")
	}
	v, _, err := openVault(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	tx := w.tx(v, repo.OpArchive)
	tx.Reason, tx.DryRun = repo.Reason(*reason), *dry
	tx.Changes = []repo.Change{{Kind: repo.Archive, Path: note.Path(args[0]), ExpectedRevision: repo.Revision(*expected)}}
	res, err := v.Apply(ctx, tx)
	if res == nil {
		return err
	}
	return printResult(e, g, res, err)
}
