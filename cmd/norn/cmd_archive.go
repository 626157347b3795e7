package main

import (
	"context"
	"fmt"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// runArchive archives a note and lists the links other notes have to it, which
// the archive leaves dangling (vault.Vault.ArchiveNote).
func runArchive(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("archive", g)
	var w writer
	w.register(fs, g)
	reason := fs.String("reason", "", "why: archived, superseded or retracted (required)")
	expected := revisionFlag(fs, "archive only if the note is still at this revision")
	dry := fs.Bool("dry-run", false, "show what would change and the links it would leave dangling; write nothing")
	args, err := parseArgs(fs, args, 1, 1)
	if err != nil {
		return err
	}
	if !repo.Reason(*reason).Valid() {
		return usagef("--reason must be archived, superseded or retracted")
	}
	v, err := openWired(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	p, _, err := noteArg(ctx, e, g, v, args[0])
	if err != nil {
		return refusedDryRun(ctx, e, g, *dry, err)
	}
	tx := w.tx(v, repo.OpArchive)
	res, err := v.ArchiveNote(ctx, vault.ArchiveRequest{Path: p, Reason: repo.Reason(*reason),
		ExpectedRevision: repo.Revision(*expected), Author: tx.Author, Roles: tx.Roles, Message: tx.Message, DryRun: *dry})
	if res == nil {
		return refusedDryRun(ctx, e, g, *dry, err)
	}
	if g.json {
		return printMutation(ctx, e, g, res.Result, err, map[string]any{"dangling": res.Dangling})
	}
	verdict := printResult(ctx, e, g, res.Result, err)
	if len(res.Dangling) == 0 {
		fmt.Fprintln(e.stdout, "no other note links to it")
		return verdict
	}
	verb := "left dangling"
	if res.DryRun {
		verb = "would be left dangling"
	}
	fmt.Fprintf(e.stdout, "%s %s:\n", plural(len(res.Dangling), "link"), verb)
	for _, d := range res.Dangling {
		now := ""
		switch d.Status {
		case "resolved":
			now = "  (now → " + string(d.To) + ")"
		case "ambiguous":
			now = fmt.Sprintf("  (now ambiguous: %v)", d.Candidates)
		}
		fmt.Fprintf(e.stdout, "  %s:%d  %s %s%s  | %s\n", d.From, d.Line, d.Kind, d.Target, now, d.Context)
	}
	return verdict
}
