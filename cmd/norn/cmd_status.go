package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/norn-vault/norn/sync/remote"
)

// runStatus shows, per remote, how the vault stands (remote.Remotes.Status): it
// does not reach the remotes; ahead and behind are against the last fetch.
func runStatus(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("status", g)
	pos, err := parseArgs(fs, args, 0, 1)
	if err != nil {
		return err
	}
	v, rs, err := openRemotes(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	names := pos
	if len(names) == 0 {
		list, err := rs.List()
		if err != nil {
			return err
		}
		for _, r := range list {
			names = append(names, r.Name)
		}
	}
	out := []remote.Status{}
	for _, n := range names {
		st, err := rs.Status(ctx, n, v.Head())
		if err != nil {
			return err
		}
		out = append(out, st)
	}
	if g.json {
		return printJSON(e, map[string]any{"head": v.Head(), "remotes": out})
	}
	fmt.Fprintf(e.stdout, "head %s\n", v.Head().Short())
	if len(out) == 0 {
		fmt.Fprintln(e.stdout, "no remotes (add one with: norn remote add NAME URL)")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REMOTE\tAHEAD\tBEHIND\tLAST FETCH\tLAST PUSH\tLAST ERROR")
	for _, st := range out {
		lastErr := "-"
		if st.LastError != "" {
			lastErr = fmt.Sprintf("%s (since %s)", st.LastError, when(st.ErrorSince))
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\n", st.Remote, st.Ahead, st.Behind, when(st.LastFetch), when(st.LastPush), lastErr)
	}
	return tw.Flush()
}

func when(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.Local().Format(time.DateTime)
}
