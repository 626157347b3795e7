package main

import (
	"context"
	"fmt"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// runMv moves a note and rewrites every link to it in the same commit
// (vault.Vault.MoveNote).
func runMv(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("mv", g)
	var w writer
	w.register(fs, g)
	expected := revisionFlag(fs, "move only if the note is still at this revision")
	dry := fs.Bool("dry-run", false, "show what would change (the notes whose links would be rewritten); write nothing")
	args, err := parseArgs(fs, args, 2, 2)
	if err != nil {
		return err
	}
	v, err := openWired(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	from, _, err := noteArg(ctx, e, g, v, args[0])
	if err != nil {
		return refusedDryRun(ctx, e, g, *dry, err)
	}
	to := note.Path(args[1])
	tx := w.tx(v, repo.OpMove)
	res, err := v.MoveNote(ctx, vault.MoveRequest{From: from, To: to, ExpectedRevision: repo.Revision(*expected),
		Author: tx.Author, Roles: tx.Roles, Message: tx.Message, DryRun: *dry})
	if res == nil {
		return refusedDryRun(ctx, e, g, *dry, err)
	}
	rewritten := res.Rewritten
	if rewritten == nil {
		rewritten = []note.Path{}
	}
	if g.json {
		return printMutation(ctx, e, g, res.Result, err, map[string]any{"rewritten": rewritten})
	}
	verdict := printResult(ctx, e, g, res.Result, err)
	if len(rewritten) == 0 {
		fmt.Fprintln(e.stdout, "no links to rewrite")
	} else {
		fmt.Fprintf(e.stdout, "links rewritten in %s:\n", plural(len(rewritten), "note"))
		for _, p := range rewritten {
			fmt.Fprintf(e.stdout, "  %s\n", p)
		}
	}
	return verdict
}
