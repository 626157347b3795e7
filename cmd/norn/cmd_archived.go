package main

import (
	"context"
	"fmt"

	"github.com/norn-vault/norn/vault"
)

// runArchived lists the archive catalog (vault.Viewer.Archived): the notes
// archived and not brought back, with what restore takes.
func runArchived(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("archived", g)
	folder := fs.String("folder", "", "only notes under this folder")
	since := fs.String("since", "", "only notes archived at or after this date (YYYY-MM-DD, UTC) or RFC 3339 time")
	limit := fs.Int("limit", 0, "at most this many notes (0: all)")
	if _, err := parseArgs(fs, args, 0, 0); err != nil {
		return err
	}
	if err := inRange("limit", *limit, 0, 1000000); err != nil {
		return err
	}
	v, _, err := openVault(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	c, err := v.Viewer(ctx, vault.Actor{Author: v.Owner(), Private: true})
	if err != nil {
		return err
	}
	cat, err := c.Archived(ctx, vault.ArchiveQuery{Folder: *folder, Since: *since, Limit: *limit})
	if err != nil {
		return err
	}
	if g.json {
		return printJSON(e, cat)
	}
	for _, a := range cat.Archived {
		fmt.Fprintf(e.stdout, "%s  %s  %s  %s  %s\n", short(a.Revision), a.When.Format("2006-01-02 15:04"),
			column(string(a.Reason), 10), column(a.Who, logAuthorWidth), a.Path)
	}
	if cat.Truncated {
		fmt.Fprintf(e.stdout, "(%d of %d shown)\n", len(cat.Archived), cat.Total)
	}
	return nil
}
