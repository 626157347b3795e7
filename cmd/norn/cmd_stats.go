package main

import (
	"context"
	"fmt"

	"github.com/norn-vault/norn/server"
	"github.com/norn-vault/norn/vault"
)

func runStats(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("stats", g)
	limit := fs.Int("limit", 20, "rows per table (folders, tags, edge types), 1..1000")
	offset := fs.Int("offset", 0, "skip this many rows of each table (a next offset of the previous page)")
	if _, err := parseArgs(fs, args, 0, 0); err != nil {
		return err
	}
	if err := inRange("limit", *limit, 1, 1000); err != nil {
		return err
	}
	if err := inRange("offset", *offset, 0, 1<<31-1); err != nil {
		return err
	}
	v, err := openGraphVault(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	st, err := ask(ctx, newAsker(e, g, v.GitDir(), v.Index), server.Query{Op: "stats", Limit: *limit, Offset: *offset},
		func() (*vault.Stats, error) { return vault.VaultStats(ctx, v, *limit, *offset) })
	if err != nil {
		return err
	}
	if g.json {
		return printJSON(e, st)
	}
	fmt.Fprintf(e.stdout, "%d notes (%d files) at %.12s\n", st.Notes, st.Files, st.Commit)
	fmt.Fprintf(e.stdout, "links: %d (%d resolved, %d broken, %d ambiguous)\n", st.Links.Total, st.Links.Resolved, st.Links.Broken, st.Links.Ambiguous)
	if st.Edges.Total > 0 {
		fmt.Fprintf(e.stdout, "typed edges: %d (%d resolved, %d broken, %d ambiguous)\n", st.Edges.Total, st.Edges.Resolved, st.Edges.Broken, st.Edges.Ambiguous)
	}
	fmt.Fprintf(e.stdout, "orphans: %d\n", st.Orphans)
	if st.Unparsed > 0 {
		fmt.Fprintf(e.stdout, "%s with frontmatter that does not parse (see norn doctor)\n", plural(st.Unparsed, "note"))
	}
	for _, t := range []struct {
		name        string
		rows        []vault.Count
		total, next int
	}{{"folders", st.Folders, st.FoldersTotal, st.FoldersNextOffset}, {"tags", st.Tags, st.TagsTotal, st.TagsNextOffset},
		{"edge types", st.EdgeTypes, st.EdgeTypesTotal, st.EdgeTypesNextOffset}} {
		if len(t.rows) == 0 {
			continue
		}
		fmt.Fprintf(e.stdout, "\n%s (%d-%d of %d):\n", t.name, *offset+1, *offset+len(t.rows), t.total)
		for _, r := range t.rows {
			fmt.Fprintf(e.stdout, "  %6d  %s\n", r.Notes, r.Name)
		}
		if t.next > 0 {
			fmt.Fprintf(e.stdout, "  (more: --offset %d)\n", t.next)
		}
	}
	return nil
}
