package main

import (
	"context"

	"github.com/norn-vault/norn/note"
)

func runRead(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("read", g)
	at := fs.String("at", "", "read at this commit (id, short id, branch or HEAD, optionally with ~N / ^N)")
	args, err := parseArgs(fs, args, 1, 1)
	if err != nil {
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
