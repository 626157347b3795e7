package main

import (
	"context"
	"fmt"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/server"
	"github.com/norn-vault/norn/vault"
)

func runLinks(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("links", g)
	limit := fs.Int("limit", 50, "at most this many entries per list, 1..1000")
	args, err := parseArgs(fs, args, 1, 1)
	if err != nil {
		return err
	}
	if err := inRange("limit", *limit, 1, 1000); err != nil {
		return err
	}
	v, err := openGraphVault(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	p, _, err := noteArg(ctx, e, g, v, args[0])
	if err != nil {
		return err
	}
	l, err := ask(ctx, newAsker(e, g, v.GitDir(), v.Index), server.Query{Op: "links", Note: p, Limit: *limit},
		func() (*vault.Links, error) { return vault.NoteLinks(ctx, v, p, *limit) })
	if err != nil {
		return err
	}
	if g.json {
		return printJSON(e, l)
	}
	fmt.Fprintf(e.stdout, "%s: %d outgoing, %d backlinks, %d notes sharing a tag\n", l.Note, l.OutgoingTotal, l.BacklinksTotal, l.SameTagsTotal)
	if len(l.Outgoing) > 0 {
		fmt.Fprintln(e.stdout, "\noutgoing:")
	}
	for _, o := range l.Outgoing {
		edge := ""
		if o.Kind == graph.EdgeKindTyped {
			edge = " (" + o.Type + " edge)"
		}
		switch o.Status {
		case graph.LinkResolved:
			extra := ""
			if o.HeadingMissing {
				extra = fmt.Sprintf("  (no heading %q there)", o.Heading)
			}
			fmt.Fprintf(e.stdout, "  %4d  → %s%s%s\n", o.Line, o.To, edge, extra)
		case graph.LinkAmbiguous:
			fmt.Fprintf(e.stdout, "  %4d  ? %s%s: ambiguous, one of %v\n", o.Line, o.Target, edge, o.Candidates)
		default:
			fmt.Fprintf(e.stdout, "  %4d  ✗ %s%s: broken\n", o.Line, o.Target, edge)
		}
	}
	if len(l.Backlinks) > 0 {
		fmt.Fprintln(e.stdout, "\nbacklinks:")
	}
	for _, b := range l.Backlinks {
		if b.Kind == graph.EdgeKindTyped {
			fmt.Fprintf(e.stdout, "  %s:%d  %s edge: %s\n", b.From, b.Line, b.Type, b.Context)
			continue
		}
		fmt.Fprintf(e.stdout, "  %s:%d  %s\n", b.From, b.Line, b.Context)
	}
	if len(l.SameTags) > 0 {
		fmt.Fprintln(e.stdout, "\nsharing a tag:")
	}
	for _, p := range l.SameTags {
		fmt.Fprintf(e.stdout, "  %s\n", p)
	}
	if l.Truncated {
		fmt.Fprintf(e.stdout, "\n(lists cut at --limit %d)\n", *limit)
	}
	return nil
}
