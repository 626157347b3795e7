package main

import (
	"context"
	"fmt"
	"path"
)

func runLs(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("ls", g)
	at := fs.String("at", "", "list at this commit")
	args, err := parseArgs(fs, args, 0, 1)
	if err != nil {
		return err
	}
	folder := ""
	if len(args) == 1 {
		folder = args[0]
	}
	v, _, err := openVault(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	entries, err := v.List(ctx, folder, *at)
	if err != nil {
		return err
	}
	if g.json {
		return printJSON(e, map[string]any{"folder": folder, "entries": entries})
	}
	for _, en := range entries {
		if en.Dir {
			fmt.Fprintf(e.stdout, "%s/\n", path.Base(string(en.Path)))
			continue
		}
		fmt.Fprintf(e.stdout, "%s  %s\n", short(en.Revision), path.Base(string(en.Path)))
	}
	return nil
}
