package main

import (
	"context"
	"fmt"
	"io"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// maxStdin bounds what `norn write` reads; the gates' size limit is usually lower.
const maxStdin = 64 << 20

func runWrite(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("write", g)
	var w writer
	w.register(fs, g)
	expected := revisionFlag(fs, "the revision you read; required to update an existing note")
	dry := fs.Bool("dry-run", false, "check revision and gates and show what would change; write nothing")
	args, err := parseArgs(fs, args, 1, 1)
	if err != nil {
		return err
	}
	content, err := io.ReadAll(io.LimitReader(e.stdin, maxStdin+1))
	if err != nil {
		return fmt.Errorf("read stdin: %w", err)
	}
	if len(content) > maxStdin {
		return fmt.Errorf("%w: content on stdin is over %d bytes", repo.ErrInvalid, maxStdin)
	}
	tx := w.txAs(cliOwner(e, g), repo.OpWrite)
	tx.DryRun = *dry
	tx.Changes = []repo.Change{{Kind: repo.Put, Path: note.Path(args[0]), Content: content, ExpectedRevision: repo.Revision(*expected)}}
	if ok, err := applyViaServer(ctx, e, g, tx); ok {
		return err
	}
	v, err := openWriteVault(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	tx.Author = w.tx(v, repo.OpWrite).Author
	return applyAndPrint(ctx, e, g, v, tx)
}
