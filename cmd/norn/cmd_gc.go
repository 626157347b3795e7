package main

import (
	"context"
	"flag"
	"fmt"
)

func runGC(ctx context.Context, e *env, g *globals, args []string) error {
	fs := flag.NewFlagSet("gc", flag.ContinueOnError)
	g.register(fs)
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
