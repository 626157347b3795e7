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
	if *at == "" && looksLikePath(args[0]) {
		// A note's path at HEAD needs the trees on its path, not the vault opened
		// (HEAD's whole tree, git's index, the writer lock): the same cost at any
		// size. Anything else (a name, a path not at HEAD, git busy) opens it,
		// which resolves names and says what is wrong.
		if b, err := repo.ReadHead(ctx, vaultDir(e, g), note.Path(args[0])); err == nil {
			return printRead(e, g, b, b.Content, "")
		}
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
	return printRead(e, g, b, content, heading)
}

// printRead prints what norn read read: content (the note, or its section under
// heading), or with --json the note's path, revision and commit too.
func printRead(e *env, g *globals, b *repo.Blob, content []byte, heading string) error {
	if g.json {
		out := map[string]any{"path": b.Path, "revision": b.Revision, "commit": b.Commit, "content": string(content)}
		if heading != "" {
			out["section"] = heading
		}
		return printJSON(e, out)
	}
	_, err := e.stdout.Write(content)
	return err
}
