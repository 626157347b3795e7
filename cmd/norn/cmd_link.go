package main

import (
	"context"
	"fmt"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

func runLink(ctx context.Context, e *env, g *globals, args []string) error {
	return runEdge(ctx, e, g, "link", args)
}

func runUnlink(ctx context.Context, e *env, g *globals, args []string) error {
	return runEdge(ctx, e, g, "unlink", args)
}

// runEdge is `norn link FROM TO --type T --why W` and `norn unlink FROM TO [--type T]`.
func runEdge(ctx context.Context, e *env, g *globals, name string, args []string) error {
	fs := newFlags(name, g)
	var w writer
	w.register(fs, g)
	typ := fs.String("type", "", "the edge type, one of the vault's edges.types (link: required; unlink: default every type)")
	why := new(string)
	if name == "link" {
		why = fs.String("why", "", "why the link holds, in a sentence (at least edges.min_why characters)")
	}
	expected := revisionFlag(fs, "write only if FROM is still at this revision")
	dry := fs.Bool("dry-run", false, "show what would change; write nothing")
	args, err := parseArgs(fs, args, 2, 2)
	if err != nil {
		return err
	}
	if name == "link" && *typ == "" {
		return usagef("--type is required")
	}
	v, err := openWired(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	from, _, err := noteArg(ctx, e, g, v, args[0])
	if err != nil {
		return refusedDryRun(ctx, e, g, *dry, err)
	}
	tx := w.tx(v, repo.OpLink)
	r := vault.EdgeRequest{From: from, To: args[1], Type: *typ, Why: *why,
		ExpectedRevision: repo.Revision(*expected), Author: tx.Author, Roles: tx.Roles, DryRun: *dry, Message: tx.Message}
	var res *vault.EdgeResult
	if name == "link" {
		res, err = v.LinkNotes(ctx, r)
	} else {
		res, err = v.UnlinkNotes(ctx, r)
	}
	if res == nil {
		return refusedDryRun(ctx, e, g, *dry, err)
	}
	if g.json {
		return printMutation(ctx, e, g, res.Result, err, map[string]any{"target": res.Target})
	}
	verdict := printResult(ctx, e, g, res.Result, err)
	target := string(res.Target)
	if target == "" {
		target = args[1]
	}
	if name == "link" {
		fmt.Fprintf(e.stdout, "edge: %s -[%s]-> %s\n", r.From, r.Type, target)
	} else if *typ != "" {
		fmt.Fprintf(e.stdout, "removed the %s edges: %s -> %s\n", *typ, r.From, target)
	} else {
		fmt.Fprintf(e.stdout, "removed every edge: %s -> %s\n", r.From, target)
	}
	return verdict
}

// openWired opens the vault with its gates and its search index closed
// (openVault): a CLI process writes, and the next `norn search` catches the index
// up.
func openWired(ctx context.Context, e *env, g *globals) (*vault.Vault, error) {
	return openWriteVault(ctx, e, g)
}

// printMutation prints a mutation's result as JSON with extra top-level fields,
// and the dry run's verdict (with the error's fields when it is rejected: one
// document); it returns the verdict error, marked as printed.
func printMutation(ctx context.Context, e *env, g *globals, res *repo.Result, verdict error, extra map[string]any) error {
	var rem *vault.WriteRemote
	if verdict == nil && !res.DryRun && res.Commit != "" {
		// The write is done: where it stands against the remote (and, with
		// --wait pushed, a failure to push) is reported beside it, as printResult does.
		rem, verdict = writeRemote(ctx, e, g, res.Commit)
	}
	return printMutationWith(e, g, res, rem, verdict, extra)
}

// printMutationWith is printMutation with where the commit stands against the
// remote given (rem), whoever applied the mutation.
func printMutationWith(e *env, g *globals, res *repo.Result, rem *vault.WriteRemote, verdict error, extra map[string]any) error {
	out := map[string]any{"changes": res.Changes}
	if rem != nil {
		out["remote"] = rem
	}
	if res.Changes == nil {
		out["changes"] = []repo.FileChange{}
	}
	if res.Commit != "" {
		out["commit"] = res.Commit
	}
	if res.Parent != "" {
		out["parent"] = res.Parent
	}
	if res.DryRun {
		out["dry_run"] = true
		out["verdict"] = "pass"
		if verdict != nil {
			out["verdict"] = "rejected"
		}
	}
	if verdict != nil {
		ej, _ := classify(verdict)
		out["error"], out["code"] = ej.Error, ej.Code
		if ej.Path != "" {
			out["path"] = ej.Path
		}
		if ej.Current != "" {
			out["current_revision"] = ej.Current
		}
		if ej.Violations != nil {
			out["violations"] = ej.Violations
		}
	}
	for k, v := range extra {
		out[k] = v
	}
	if err := printJSON(e, out); err != nil {
		return err
	}
	return printed(verdict)
}
