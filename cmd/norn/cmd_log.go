package main

import (
	"context"
	"fmt"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

func runLog(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("log", g)
	limit := fs.Int("limit", 20, "at most this many commits")
	args, err := parseArgs(fs, args, 0, 1)
	if err != nil {
		return err
	}
	if err := inRange("limit", *limit, 1, 10000); err != nil {
		return err
	}
	v, settings, err := openVault(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	var p note.Path
	if len(args) == 1 {
		// A name resolves at HEAD; a path no longer there (archived, moved) keeps
		// its history.
		if p, err = noteArgOrPath(ctx, wired(v, settings), args[0]); err != nil {
			return err
		}
	}
	commits, err := v.Log(ctx, p, *limit)
	if err != nil {
		return err
	}
	if p != "" && len(commits) == 0 {
		return fmt.Errorf("%w: no note %s, now or in the history", repo.ErrNotFound, p)
	}
	if g.json {
		if commits == nil {
			commits = []repo.Commit{}
		}
		return printJSON(e, map[string]any{"path": p, "commits": commits})
	}
	for _, c := range commits {
		op := string(c.Op)
		if c.Reason != "" {
			op += " (" + string(c.Reason) + ")"
		}
		if op == "" {
			op = "-"
		}
		fmt.Fprintf(e.stdout, "%s  %s  %-10s %-16s %s\n", c.ID.Short(), c.When.Format("2006-01-02 15:04"), op, c.Author.Name, c.Subject)
	}
	return nil
}
