package main

import (
	"context"
	"fmt"
)

func runCommit(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("commit", g)
	message := fs.String("message", "", "commit message subject")
	if _, err := parseArgs(fs, args, 0, 0); err != nil {
		return err
	}
	v, _, err := openVault(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	res, err := v.CommitExternal(ctx, "", *message)
	if err != nil {
		return err
	}
	if res == nil {
		if g.json {
			// The shape of a commit's result, with no commit: parent is HEAD.
			head, err := v.ResolveCommit("HEAD")
			if err != nil {
				return err
			}
			return printJSON(e, map[string]any{"commit": nil, "parent": string(head), "changes": []any{}})
		}
		fmt.Fprintln(e.stdout, "nothing to commit: the working tree matches HEAD")
		return nil
	}
	return printResult(ctx, e, g, res, nil)
}
