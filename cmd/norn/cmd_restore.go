package main

import (
	"context"
	"regexp"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// hexID is an object id, full or abbreviated (repo.MinPrefix digits or more).
var hexID = regexp.MustCompile(`^[0-9a-fA-F]{7,40}$`)

func runRestore(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("restore", g)
	var w writer
	w.register(fs, g)
	from := fs.String("from", "", "a commit (id, short id, branch or HEAD, optionally with ~N / ^N) holding the note, or the note's revision, full or abbreviated to 7+ digits as archive prints it (required)")
	dry := fs.Bool("dry-run", false, "show what would change; write nothing")
	args, err := parseArgs(fs, args, 1, 1)
	if err != nil {
		return err
	}
	if *from == "" {
		return usagef("--from is required")
	}
	v, err := openWriteVault(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	r := vault.RestoreRequest{Path: note.Path(args[0]), From: *from, DryRun: *dry}
	if hexID.MatchString(*from) {
		// An id, full or as archive and log print it, names a commit or the
		// note's revision (a blob) itself.
		commit, rev, err := v.ResolvePrefix(*from)
		if err != nil {
			return err
		}
		r.From, r.Revision = string(commit), rev
	}
	tx := w.tx(v, repo.OpRestore)
	r.Author, r.Roles, r.Message = tx.Author, tx.Roles, tx.Message
	res, err := v.RestoreNote(ctx, r)
	if res == nil {
		return refusedDryRun(ctx, e, g, *dry, err)
	}
	return printResult(ctx, e, g, res.Result, err)
}
