package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// synthesisAnswer is `norn synthesis status --json`: the status with the budget
// the walk drew on.
type synthesisAnswer struct {
	*vault.SynthesisStatus
	Budget *vault.SynthesisBudget `json:"budget"`
}

// runSynthesis registers a summary's sources (register SUMMARY SOURCE…) or says
// whether it is still faithful to them (status SUMMARY): docs/ledger.md.
func runSynthesis(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("synthesis", g)
	var w writer
	w.register(fs, g)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("missing subcommand: register SUMMARY SOURCE… or status SUMMARY")
	}
	sub, pos := pos[0], pos[1:]
	switch sub {
	case "register":
		err = wantArgs(pos, 2, 1+64)
	case "status":
		err = wantArgs(pos, 1, 1)
	default:
		return usagef("unknown subcommand %q: register or status", sub)
	}
	if err != nil {
		return err
	}
	v, err := openWired(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	tx := w.tx(v, "")
	// A person at the command line is the vault's owner and sees every note.
	c, err := v.Viewer(ctx, vault.Actor{Author: tx.Author, Roles: tx.Roles, Private: true})
	if err != nil {
		return err
	}
	paths := make([]note.Path, len(pos))
	for i, a := range pos {
		p, _, err := noteArg(ctx, e, g, v, a)
		if err != nil {
			return err
		}
		paths[i] = p
	}
	if sub == "register" {
		return synthesisRegister(ctx, e, g, c, tx, paths)
	}
	return synthesisStatus(ctx, e, g, c, paths[0])
}

// synthesisRegister is `norn synthesis register SUMMARY SOURCE…`.
func synthesisRegister(ctx context.Context, e *env, g *globals, c *vault.Viewer, tx repo.Tx, paths []note.Path) error {
	r, err := c.RegisterSynthesis(ctx, vault.SynthesisRequest{Summary: paths[0], Sources: paths[1:], Author: tx.Author, Roles: tx.Roles})
	if err != nil {
		return err
	}
	// Where the commit stands against the remote (and, with --wait pushed, a
	// failure to push), as every write reports it.
	var rem *vault.WriteRemote
	if r.Commit != "" {
		rem, err = writeRemote(ctx, e, g, r.Commit)
	}
	if g.json {
		o := struct {
			*vault.SynthesisRegistered
			Remote *vault.WriteRemote `json:"remote,omitempty"`
			*errorJSON
		}{SynthesisRegistered: r, Remote: rem}
		if err != nil {
			ej, _ := classify(err)
			o.errorJSON = &ej
		}
		if perr := printJSON(e, o); perr != nil {
			return perr
		}
		return printed(err)
	}
	verb := "registered"
	if r.Unchanged {
		verb = "already registered (nothing committed)"
	}
	fmt.Fprintf(e.stdout, "%s %s with %d sources in %s %s\n", verb, r.Summary, len(r.Sources), r.File, r.Commit.Short())
	if rem != nil && rem.Pushed && g.wait != "" {
		fmt.Fprintf(e.stdout, "pushed to %s\n", rem.Remote)
	}
	return err
}

// synthesisStatus is `norn synthesis status SUMMARY`.
func synthesisStatus(ctx context.Context, e *env, g *globals, c *vault.Viewer, summary note.Path) error {
	b := c.SynthesisBudget()
	st, err := c.SynthesisStatus(ctx, summary, b)
	if err != nil {
		return err
	}
	if g.json {
		return printJSON(e, synthesisAnswer{st, b})
	}
	fmt.Fprintf(e.stdout, "%s: %s (%s checked, depth %d", st.Summary, st.Status, plural(st.Checked, "source"), st.Depth)
	if !st.Complete && st.Status != vault.SynthesisUnregistered {
		fmt.Fprintf(e.stdout, "; the budget ran out: %s", b.Exhausted)
	}
	fmt.Fprintln(e.stdout, ")")
	for _, d := range st.Drifted {
		now := short(d.NewRevision)
		switch {
		case d.MovedTo != "":
			now = "moved to " + string(d.MovedTo)
		case d.NewRevision == "":
			now = "gone (archived or moved)"
		}
		fmt.Fprintf(e.stdout, "  %s  %s -> %s  via %s\n", d.Path, short(d.OldRevision), now, joinPaths(d.Via))
	}
	fmt.Fprintf(e.stdout, "budget: %d/%d checks, %d/%d bytes, deadline %gms\n", b.UsedChecks, b.Checks, b.UsedBytes, b.Bytes, b.DeadlineMS)
	return nil
}

func joinPaths(ps []note.Path) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = string(p)
	}
	return strings.Join(s, " > ")
}
