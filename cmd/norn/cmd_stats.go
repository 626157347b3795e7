package main

import (
	"context"
	"fmt"

	"github.com/norn-vault/norn/server"
)

func runStats(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("stats", g)
	limit := fs.Int("limit", 20, "rows per table (folders, tags, edge types), 1..1000")
	args, err := parseArgs(fs, args, 0, 0)
	if err != nil {
		return err
	}
	if err := inRange("limit", *limit, 1, 1000); err != nil {
		return err
	}
	v, _, err := openVault(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	st, err := server.VaultStats(ctx, v, *limit)
	if err != nil {
		return err
	}
	if g.json {
		return printJSON(e, st)
	}
	fmt.Fprintf(e.stdout, "%d notes (%d files) at %.12s\n", st.Notes, st.Files, st.Commit)
	fmt.Fprintf(e.stdout, "links: %d (%d resolved, %d broken, %d ambiguous)\n", st.Links.Total, st.Links.Resolved, st.Links.Broken, st.Links.Ambiguous)
	if st.Unparsed > 0 {
		fmt.Fprintf(e.stdout, "%s with frontmatter that does not parse (see norn doctor)\n", plural(st.Unparsed, "note"))
	}
	for _, t := range []struct {
		name string
		rows []server.Count
	}{{"folders", st.Folders}, {"tags", st.Tags}, {"edge types", st.EdgeTypes}} {
		if len(t.rows) == 0 {
			continue
		}
		fmt.Fprintf(e.stdout, "\n%s:\n", t.name)
		for _, r := range t.rows {
			fmt.Fprintf(e.stdout, "  %6d  %s\n", r.Notes, r.Name)
		}
	}
	if st.Truncated {
		fmt.Fprintf(e.stdout, "\n(tables cut at --limit %d)\n", *limit)
	}
	return nil
}
