package main

import (
	"context"
	"fmt"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

func runRead(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("read", g)
	at := fs.String("at", "", "read at this commit (id, short id, branch or HEAD, optionally with ~N / ^N) or as it was at this date (YYYY-MM-DD: the end of that day, UTC; or an RFC 3339 time)")
	args, err := parseArgs(fs, args, 1, 1)
	if err != nil {
		return err
	}
	rv, _, err := openVault(ctx, e, g)
	if err != nil {
		return err
	}
	defer rv.Close()
	// At a commit a path is taken as given (the note may be gone from HEAD); a
	// name resolves at HEAD.
	p, heading := note.Path(args[0]), ""
	if *at == "" || repo.ValidPath(args[0]) != nil {
		if p, heading, err = noteArg(ctx, e, g, rv, args[0]); err != nil {
			return err
		}
	}
	b, err := rv.Read(ctx, p, *at)
	if err != nil {
		return err
	}
	content := b.Content
	if heading != "" {
		n, err := note.Parse(p, content)
		if err != nil {
			return fmt.Errorf("%w: %s does not parse (%v), so its sections cannot be read: read it whole", repo.ErrInvalid, p, err)
		}
		s, end, ok := note.Section(n, heading)
		if !ok {
			return fmt.Errorf("%w: %s has no heading %q", repo.ErrNotFound, p, heading)
		}
		content = content[s:end]
	}
	if g.json {
		out := map[string]any{"path": b.Path, "revision": b.Revision, "commit": b.Commit, "content": string(content)}
		if heading != "" {
			out["section"] = heading
		}
		return printJSON(e, out)
	}
	_, err = e.stdout.Write(content)
	return err
}
