package main

import (
	"context"
	"flag"

	"github.com/norn-vault/norn/note"
)

func runRead(ctx context.Context, e *env, g *globals, args []string) error {
	fs := flag.NewFlagSet("read", flag.ContinueOnError)
	g.register(fs)
	at := fs.String("at", "", "read at this commit (id, short id, branch, HEAD~N)")
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs(args, 1, 1); err != nil {
		return err
	}
	v, _, err := openVault(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	b, err := v.Read(ctx, note.Path(args[0]), *at)
	if err != nil {
		return err
	}
	if g.json {
		return printJSON(e, map[string]any{"path": b.Path, "revision": b.Revision, "commit": b.Commit, "content": string(b.Content)})
	}
	_, err = e.stdout.Write(b.Content)
	return err
}
