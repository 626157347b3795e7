package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// runEdit changes part of a note in one commit (vault.Vault.EditNote): append,
// prepend, replace_section or find_replace. Content not given with --content is
// read from stdin, for the ops that take it.
func runEdit(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("edit", g)
	var w writer
	w.register(fs, g)
	op := fs.String("op", "", "append, prepend, replace_section or find_replace")
	expected := revisionFlag(fs, "the revision you read (required: norn read --json gives it)")
	content := fs.String("content", "", "the text to append or prepend, or the section's new content (default: stdin)")
	heading := fs.String("heading", "", "replace_section: the heading (Heading, ## Heading, Parent/Child)")
	find := fs.String("find", "", "find_replace: the exact text to find")
	replace := fs.String("replace", "", "find_replace: what replaces it")
	count := fs.Int("count", 0, "find_replace: how many times --find must occur (default 1)")
	dry := fs.Bool("dry-run", false, "check revision and gates and show what would change; write nothing")
	args, err := parseArgs(fs, args, 1, 1)
	if err != nil {
		return err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	text := *content
	switch vault.EditOp(*op) {
	case vault.EditAppend, vault.EditPrepend, vault.EditReplaceSection:
	default:
		given["content"] = true // find_replace takes none; a bad op is refused below
	}
	if !given["content"] {
		b, err := io.ReadAll(io.LimitReader(e.stdin, maxStdin+1))
		if err != nil {
			return fmt.Errorf("read stdin: %w", err)
		}
		if len(b) > maxStdin {
			return fmt.Errorf("%w: content on stdin is over %d bytes", repo.ErrInvalid, maxStdin)
		}
		text = string(b)
	}
	v, err := openWired(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	tx := w.tx(v, repo.OpEdit)
	p, section, err := noteArg(ctx, e, g, v, args[0])
	if err != nil {
		return refusedDryRun(ctx, e, g, *dry, err)
	}
	if *heading == "" && vault.EditOp(*op) == vault.EditReplaceSection {
		*heading = section // "[[Note#Heading]]"
	}
	res, err := v.EditNote(ctx, vault.EditRequest{Path: p, Op: vault.EditOp(*op), ExpectedRevision: repo.Revision(*expected),
		Content: text, Heading: *heading, Find: *find, Replace: *replace, Count: *count,
		Author: tx.Author, Roles: tx.Roles, Message: tx.Message, DryRun: *dry})
	if res == nil {
		return refusedDryRun(ctx, e, g, *dry, err)
	}
	if g.json {
		return printMutation(ctx, e, g, res.Result, err, map[string]any{"path": p, "revision": res.Revision})
	}
	return printResult(ctx, e, g, res.Result, err)
}
