package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/norn-vault/norn/ledger"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// claimKey holds the --subject, --property and --scope flags.
type claimKey struct{ subject, property, scope string }

func (k *claimKey) register(fs *flag.FlagSet) {
	fs.StringVar(&k.subject, "subject", "", "what the claim is about (required)")
	fs.StringVar(&k.property, "property", "", "which property of the subject (required)")
	fs.StringVar(&k.scope, "scope", "", "where the value holds, e.g. prod, team-x, global (required)")
}

// runClaim asserts, asks, lists and retracts claims (docs/ledger.md).
func runClaim(ctx context.Context, e *env, g *globals, args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return usagef("missing subcommand: assert, value, history or retract")
	}
	sub, args := args[0], args[1:]
	switch sub {
	case "assert":
		return runClaimAssert(ctx, e, g, args)
	case "value":
		return runClaimRead(ctx, e, g, args, false)
	case "history":
		return runClaimRead(ctx, e, g, args, true)
	case "retract":
		return runClaimRetract(ctx, e, g, args)
	}
	return usagef("unknown subcommand %q: assert, value, history or retract", sub)
}

func runClaimAssert(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("claim assert", g)
	var w writer
	w.register(fs, g)
	var k claimKey
	k.register(fs)
	value := fs.String("value", "", "the value asserted (required)")
	source := fs.String("source", "", "the note the value was read from (required)")
	at := fs.String("at", "", "bind to this revision of the source, or the source at this commit (default: its current revision)")
	supersedes := fs.String("supersedes", "", "the id of the claim this one replaces (same subject, property and scope)")
	from := fs.String("valid-from", "", "the value holds from this time (RFC 3339 or YYYY-MM-DD, UTC)")
	to := fs.String("valid-to", "", "the value holds until this time (RFC 3339 or YYYY-MM-DD, UTC)")
	dry := fs.Bool("dry-run", false, "check everything, write nothing")
	if _, err := parseArgs(fs, args, 0, 0); err != nil {
		return err
	}
	r := vault.ClaimRequest{Subject: k.subject, Property: k.property, Scope: k.scope, Value: *value,
		Source: note.Path(*source), At: *at, DryRun: *dry}
	var err error
	if r.ValidFrom, err = timeFlag("valid-from", *from); err != nil {
		return err
	}
	if r.ValidTo, err = timeFlag("valid-to", *to); err != nil {
		return err
	}
	if *supersedes != "" {
		if r.Supersedes, err = ledger.ParseClaimID(*supersedes); err != nil {
			return usagef("--supersedes: %v", err)
		}
	}
	v, err := openWired(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	res, err := v.AssertClaim(ctx, cliActor(v, &w), r)
	return printClaimWrite(ctx, e, g, res, err, *dry)
}

func runClaimRetract(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("claim retract", g)
	var w writer
	w.register(fs, g)
	dry := fs.Bool("dry-run", false, "check everything, write nothing")
	args, err := parseArgs(fs, args, 1, 1)
	if err != nil {
		return err
	}
	id, err := ledger.ParseClaimID(args[0])
	if err != nil {
		return usagef("%v", err)
	}
	v, err := openWired(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	res, err := v.RetractClaim(ctx, cliActor(v, &w), vault.RetractRequest{ID: id, DryRun: *dry})
	return printClaimWrite(ctx, e, g, res, err, *dry)
}

// cliActor is the person at the command line: the owner (or --author), who
// sees every note.
func cliActor(v *vault.Vault, w *writer) vault.Actor {
	tx := w.tx(v, repo.OpClaim)
	return vault.Actor{Author: tx.Author, Roles: tx.Roles, Private: true}
}

func printClaimWrite(ctx context.Context, e *env, g *globals, w *vault.ClaimWrite, err error, dry bool) error {
	if w == nil {
		return refusedDryRun(ctx, e, g, dry, err)
	}
	if g.json {
		return printMutation(ctx, e, g, w.Result, nil, map[string]any{"claim": w.Claim, "path": w.Path})
	}
	verdict := printResult(ctx, e, g, w.Result, nil)
	fmt.Fprintf(e.stdout, "claim %s\n", w.Claim.ID)
	return verdict
}

// runClaimRead answers claim value (what holds now, or at --at) and claim
// history (the chain; or, given a claim id, that claim's chain).
func runClaimRead(ctx context.Context, e *env, g *globals, args []string, history bool) error {
	name := "claim value"
	if history {
		name = "claim history"
	}
	fs := newFlags(name, g)
	var k claimKey
	k.register(fs)
	var at *string
	if !history {
		at = fs.String("at", "", "judge the validity windows at this time (RFC 3339 or YYYY-MM-DD, UTC; default now)")
	}
	hi := 0
	if history {
		hi = 1
	}
	args, err := parseArgs(fs, args, 0, hi)
	if err != nil {
		return err
	}
	var id ledger.ClaimID
	if len(args) == 1 {
		if id, err = ledger.ParseClaimID(args[0]); err != nil {
			return usagef("%v", err)
		}
	}
	q := vault.ClaimQuery{Subject: k.subject, Property: k.property, Scope: k.scope}
	if at != nil {
		if q.At, err = timeFlag("at", *at); err != nil {
			return err
		}
	}
	v, _, err := openVault(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	vw, err := v.Viewer(ctx, vault.Actor{Author: v.Owner(), Roles: []string{"owner"}, Private: true})
	if err != nil {
		return err
	}
	if history {
		h, err := vw.ClaimHistory(ctx, q, id)
		if err != nil {
			return err
		}
		if g.json {
			return printJSON(e, h)
		}
		for _, l := range h.Claims {
			fmt.Fprintln(e.stdout, claimLine(l.BoundClaim))
			for _, by := range l.SupersededBy {
				fmt.Fprintf(e.stdout, "    superseded by %s\n", by)
			}
		}
		if len(h.Claims) == 0 {
			fmt.Fprintln(e.stdout, "no claims")
		}
		return nil
	}
	ans, err := vw.ClaimValue(ctx, q)
	if err != nil {
		return err
	}
	if g.json {
		return printJSON(e, ans)
	}
	if ans.Status == ledger.StatusCurrent {
		fmt.Fprintf(e.stdout, "%s: %s\n", ans.Status, ans.Value)
	} else {
		fmt.Fprintln(e.stdout, ans.Status)
	}
	for _, c := range ans.Claims {
		fmt.Fprintln(e.stdout, claimLine(c))
		if d := c.Diff; d != nil {
			fmt.Fprintf(e.stdout, "    source changed since: now %s (+%d -%d lines)\n", short(c.CurrentRevision), d.LinesAdded, d.LinesRemoved)
		} else if c.Kind == ledger.KindAssertion && c.CurrentRevision == "" {
			fmt.Fprintln(e.stdout, "    source no longer at HEAD")
		}
	}
	return nil
}

// claimLine is one claim on a line: id, who, when, what, from where.
func claimLine(c vault.BoundClaim) string {
	when := c.AssertedAt.Format(time.RFC3339)
	if c.Kind == ledger.KindRetraction {
		return fmt.Sprintf("  %s  %s  %s  retracts %s", c.ID, when, c.AssertedBy.Name, c.Supersedes)
	}
	fresh := "fresh"
	if !c.Fresh {
		fresh = "stale"
	}
	s := fmt.Sprintf("  %s  %s  %s  = %q  from %s@%s (%s)", c.ID, when, c.AssertedBy.Name, c.Value, c.Source.Path, short(c.Source.Revision), fresh)
	if !c.ValidFrom.IsZero() || !c.ValidTo.IsZero() {
		s += fmt.Sprintf("  valid [%s, %s)", stampOr(c.ValidFrom, "-"), stampOr(c.ValidTo, "-"))
	}
	return s
}

func stampOr(t time.Time, empty string) string {
	if t.IsZero() {
		return empty
	}
	return t.Format(time.RFC3339)
}

// timeFlag parses a time flag: RFC 3339, or a date (midnight UTC); "" is zero.
func timeFlag(name, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, usagef("--%s %q: want RFC 3339 (2026-01-02T15:04:05Z) or a date (2026-01-02)", name, s)
}
