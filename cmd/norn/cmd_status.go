package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/norn-vault/norn/vault"
)

// runStatus shows, per remote, how the vault stands (vault.Syncer.Status, as
// the vault's owner sees it): it does not reach the remotes; ahead and behind
// are against the last fetch.
func runStatus(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("status", g)
	pos, err := parseArgs(fs, args, 0, 1)
	if err != nil {
		return err
	}
	v, s, err := openSyncer(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	vw, err := v.Viewer(ctx, vault.Actor{Author: v.Owner(), Private: true})
	if err != nil {
		return err
	}
	var names []string // nil: every remote
	if len(pos) == 1 {
		names = pos
	}
	st, err := s.Status(ctx, vw, names)
	if err != nil {
		return err
	}
	if g.json {
		return printJSON(e, st)
	}
	fmt.Fprintf(e.stdout, "head %s\n", st.Head.Short())
	if len(st.Remotes) == 0 {
		fmt.Fprintln(e.stdout, "no remotes (add one with: norn remote add NAME URL)")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REMOTE\tAHEAD\tBEHIND\tLAST FETCH\tLAST PUSH\tLAST ERROR")
	for _, r := range st.Remotes {
		lastErr := "-"
		if r.LastError != "" {
			lastErr = fmt.Sprintf("%s (since %s)", r.LastError, when(r.ErrorSince))
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\n", r.Remote, r.Ahead, r.Behind, when(r.LastFetch), when(r.LastPush), lastErr)
	}
	return tw.Flush()
}

func when(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.Local().Format(time.DateTime)
}
