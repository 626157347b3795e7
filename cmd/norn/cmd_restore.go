package main

import (
	"context"
	"regexp"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

var fullHex = regexp.MustCompile(`^[0-9a-f]{40}$`)

func runRestore(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("restore", g)
	var w writer
	w.register(fs)
	from := fs.String("from", "", "a commit (id, short id, branch or HEAD, optionally with ~N / ^N) holding the note, or the note's revision (required)")
	dry := fs.Bool("dry-run", false, "show what would change; write nothing")
	args, err := parseArgs(fs, args, 1, 1)
	if err != nil {
		return err
	}
	if *from == "" {
		return usagef("--from is required")
	}
	v, _, err := openVault(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	c := repo.Change{Kind: repo.Restore, Path: note.Path(args[0]), FromCommit: *from}
	if fullHex.MatchString(*from) {
		// A full id may name the commit or the blob itself.
		if _, err := v.ReadRevision(ctx, repo.Revision(*from)); err == nil {
			c.FromCommit, c.FromRevision = "", repo.Revision(*from)
		}
	}
	tx := w.tx(v, repo.OpRestore)
	tx.DryRun = *dry
	tx.Changes = []repo.Change{c}
	return applyAndPrint(ctx, e, g, v, tx)
}
