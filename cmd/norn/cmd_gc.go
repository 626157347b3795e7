package main

import (
	"context"
	"fmt"

	"github.com/norn-vault/norn/repo"
)

func runGC(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("gc", g)
	if _, err := parseArgs(fs, args, 0, 0); err != nil {
		return err
	}
	v, settings, err := openVault(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	cfg, _, _ := settings.Current(ctx)
	res, err := v.GC(ctx, repo.GCOptions{PackLimit: cfg.GC.Packs})
	if err != nil {
		return err
	}
	if g.json {
		return printJSON(e, res)
	}
	fmt.Fprintf(e.stdout, "packed with %s: %d loose objects before, %d after; %d packs before, %d after\n", res.Tool, res.LooseBefore, res.LooseAfter, res.PacksBefore, res.PacksAfter)
	return nil
}
