package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// runCapture appends a quick thought to today's inbox note (vault.Vault.Capture): the
// arguments joined by spaces, or stdin when there are none.
func runCapture(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("capture", g)
	var w writer
	w.register(fs, g)
	title := fs.String("title", "", "a short title for the entry")
	dry := fs.Bool("dry-run", false, "check the gates and show what would change; write nothing")
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	text := strings.Join(args, " ")
	if len(args) == 0 {
		b, err := io.ReadAll(io.LimitReader(e.stdin, maxStdin+1))
		if err != nil {
			return fmt.Errorf("read stdin: %w", err)
		}
		if len(b) > maxStdin {
			return fmt.Errorf("%w: text on stdin is over %d bytes", repo.ErrInvalid, maxStdin)
		}
		text = string(b)
	}
	if w.message != "" {
		return usagef("capture writes its own commit subject: drop --message")
	}
	tx := w.txAs(cliOwner(e, g), repo.OpCapture)
	r := vault.CaptureRequest{Text: text, Title: *title, Author: tx.Author, Roles: tx.Roles, DryRun: *dry}
	if ok, err := captureViaServer(ctx, e, g, r); ok {
		return err
	}
	v, err := openWired(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	r.Author = w.tx(v, repo.OpCapture).Author
	res, err := v.Capture(ctx, r)
	if res == nil {
		return refusedDryRun(ctx, e, g, *dry, err)
	}
	if g.json {
		return printMutation(ctx, e, g, res.Result, err, map[string]any{"path": res.Path, "revision": res.Revision, "created": res.Created})
	}
	return printResult(ctx, e, g, res.Result, err)
}
