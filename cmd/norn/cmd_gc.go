package main

import (
	"context"
	"fmt"
)

func runGC(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("gc", g)
	args, err := parseArgs(fs, args, 0, 0)
	if err != nil {
		return err
	}
	v, _, err := openVault(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	res, err := v.GC(ctx)
	if err != nil {
		return err
	}
	if g.json {
		return printJSON(e, res)
	}
	fmt.Fprintf(e.stdout, "packed with %s: %d loose objects before, %d after\n", res.Tool, res.LooseBefore, res.LooseAfter)
	return nil
}
