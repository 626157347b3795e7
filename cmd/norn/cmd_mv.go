package main

import (
	"context"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

func runMv(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("mv", g)
	var w writer
	w.register(fs)
	expected := fs.String("expected-revision", "", "move only if the note is still at this revision")
	dry := fs.Bool("dry-run", false, "show what would change; write nothing")
	args, err := parseArgs(fs, args, 2, 2)
	if err != nil {
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
	return applyAndPrint(ctx, e, g, v, tx)
}
