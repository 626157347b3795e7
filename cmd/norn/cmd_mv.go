package main

import (
	"context"
	"flag"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

func runMv(ctx context.Context, e *env, g *globals, args []string) error {
	fs := flag.NewFlagSet("mv", flag.ContinueOnError)
	g.register(fs)
	var w writer
	w.register(fs)
	expected := fs.String("expected-revision", "", "move only if the note is still at this revision")
	dry := fs.Bool("dry-run", false, "show what would change; write nothing")
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs(args, 2, 2); err != nil {
		return err
	}
	v, _, err := openVault(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	tx := w.tx(v, repo.OpMove)
	tx.DryRun = *dry
	tx.Changes = []repo.Change{{Kind: repo.Move, From: note.Path(args[0]), Path: note.Path(args[1]), ExpectedRevision: repo.Revision(*expected)}}
	res, err := v.Apply(ctx, tx)
	if res == nil {
		return err
	}
	return printResult(e, g, res, err)
}
