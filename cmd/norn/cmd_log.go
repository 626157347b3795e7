package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
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
	v, _, err := openVault(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	var p note.Path
	if len(args) == 1 {
		// A name resolves at HEAD; a path no longer there (archived, moved) keeps
		// its history.
		if p, err = noteArgOrPath(ctx, e, g, v, args[0]); err != nil {
			return err
		}
	}
	if p != "" {
		return printHistory(ctx, e, g, v, p, *limit)
	}
	commits, err := v.Log(ctx, "", *limit)
	if err != nil {
		return err
	}
	if g.json {
		if commits == nil {
			commits = []repo.Commit{}
		}
		return printJSON(e, map[string]any{"path": p, "commits": commits})
	}
	for _, c := range commits {
		fmt.Fprintf(e.stdout, "%s  %s  %s  %s  %s\n", c.ID.Short(), c.When.Format("2006-01-02 15:04"),
			column(opColumn(c.Op, c.Reason), logOpWidth), column(c.Author.Name, logAuthorWidth), c.Subject)
	}
	return nil
}

// printHistory prints the history of the note at p, following its moves
// (ledger.History): one line a commit, with the note's revision after it and,
// for a move, where it came from or went.
func printHistory(ctx context.Context, e *env, g *globals, v *vault.Vault, p note.Path, limit int) error {
	entries, err := v.History(ctx, p, limit)
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return fmt.Errorf("%w: no note %s, now or in the history", repo.ErrNotFound, p)
	}
	if g.json {
		return printJSON(e, map[string]any{"path": p, "commits": entries})
	}
	for _, c := range entries {
		rev := c.Revision
		if rev == "" {
			rev = c.OldRevision
		}
		what := string(c.Kind) + " " + string(c.Path)
		switch {
		case c.From != "":
			what = "moved " + string(c.From) + " -> " + string(c.Path)
		case c.To != "":
			what = "moved " + string(c.Path) + " -> " + string(c.To)
		}
		fmt.Fprintf(e.stdout, "%s  %s  %s  %s  %s  %s  %s\n", c.ID.Short(), c.When.Format("2006-01-02 15:04"),
			column(opColumn(c.Op, c.Reason), logOpWidth), column(c.Author.Name, logAuthorWidth), short(rev), what, c.Subject)
	}
	return nil
}

// opColumn is log's op column: the op with its reason ("archive (superseded)"),
// "-" for a commit without one.
func opColumn(op repo.Op, reason repo.Reason) string {
	s := string(op)
	if reason != "" {
		s += " (" + string(reason) + ")"
	}
	if s == "" {
		s = "-"
	}
	return s
}

// The widths of log's op and author columns: every op Norn writes, with its
// reason ("archive (superseded)"), fits.
const (
	logOpWidth     = 20
	logAuthorWidth = 16
)

// column fits s to width characters as git log --format's %<(N,trunc) does:
// padded with spaces when shorter, cut and ended with ".." when longer.
func column(s string, width int) string {
	r := []rune(s)
	if len(r) > width {
		return string(r[:width-2]) + ".."
	}
	return s + strings.Repeat(" ", width-len(r))
}
