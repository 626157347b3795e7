package main

import (
	"context"
	"flag"
	"fmt"
)

func runCommit(ctx context.Context, e *env, g *globals, args []string) error {
	fs := flag.NewFlagSet("commit", flag.ContinueOnError)
	g.register(fs)
	message := fs.String("message", "", "commit message subject")
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs(args, 0, 0); err != nil {
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
			return printJSON(e, map[string]any{"commit": nil, "changes": []any{}})
		}
		fmt.Fprintln(e.stdout, "nothing to commit: the working tree matches HEAD")
		return nil
	}
	return printResult(e, g, res, nil)
}
