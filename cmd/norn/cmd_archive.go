package main

import (
	"context"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

func runArchive(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("archive", g)
	var w writer
	w.register(fs)
	reason := fs.String("reason", "", "why: archived, superseded or retracted (required)")
	expected := fs.String("expected-revision", "", "archive only if the note is still at this revision")
	dry := fs.Bool("dry-run", false, "show what would change; write nothing")
	args, err := parseArgs(fs, args, 1, 1)
	if err != nil {
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
	return applyAndPrint(ctx, e, g, v, tx)
}
