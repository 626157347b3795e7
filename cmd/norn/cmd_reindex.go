package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/norn-vault/norn/server"
	"github.com/norn-vault/norn/vault"
)

func runReindex(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("reindex", g)
	if _, err := parseArgs(fs, args, 0, 0); err != nil {
		return err
	}
	v, _, err := openVault(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	x := v.Index
	start := time.Now()
	if x.Locked() {
		return reindexByServer(ctx, e, g, v.GitDir(), start)
	}
	if err := rebuildWithBar(ctx, e, x); err != nil {
		return err
	}
	commit, _ := x.Status()
	return printRebuilt(e, g, commit, start, "")
}

// rebuildWithBar rebuilds the index from HEAD, drawing a progress bar on stderr
// when it is a terminal.
func rebuildWithBar(ctx context.Context, e *env, x *vault.Indexer) error {
	tty := isTerminal(e.stderr)
	last := time.Time{}
	drawn, lastTotal := false, 0
	draw := func(done, total int) {
		const width = 30
		fill := 0
		if total > 0 {
			fill = min(done, total) * width / total
		}
		fmt.Fprintf(e.stderr, "\rindexing [%-*s] %d/%d", width, bar(fill), done, total)
		drawn, lastTotal = true, total
	}
	err := x.Rebuild(ctx, func(done, total int) {
		if tty && time.Since(last) >= 100*time.Millisecond {
			last = time.Now()
			draw(done, total)
		}
	})
	if drawn {
		// The bar ends full on success (files that are not indexed, such as
		// .norn/config.yaml, are in the total) and on its own line either way.
		if err == nil {
			draw(lastTotal, lastTotal)
		}
		fmt.Fprintln(e.stderr)
	}
	return err
}

// reindexByServer asks the norn serve that holds the index to rebuild it. Without
// one (the index is locked by another process that does not answer) it says what
// holds the index and how to get a rebuild.
func reindexByServer(ctx context.Context, e *env, g *globals, gitDir string, start time.Time) error {
	var a server.RebuildAnswer
	err := server.AskLocal(ctx, gitDir, server.Query{Op: "rebuild"}, &a)
	if errors.Is(err, server.ErrNoLocalServer) {
		return fmt.Errorf("%w: another process (a norn serve, or a norn command) holds the index and keeps it current; "+
			"to rebuild it, stop that process (Ctrl-C in its terminal) and run norn reindex again", vault.ErrIndexUnavailable)
	}
	if err != nil {
		return err
	}
	return printRebuilt(e, g, a.Commit, start, "by the running norn serve")
}

func printRebuilt(e *env, g *globals, commit string, start time.Time, by string) error {
	took := time.Since(start)
	if g.json {
		out := map[string]any{"index_commit": commit, "took_ms": took.Milliseconds()}
		if by != "" {
			out["via"] = "norn serve"
		}
		return printJSON(e, out)
	}
	if by != "" {
		by = " " + by
	}
	fmt.Fprintf(e.stdout, "index rebuilt%s at %.12s in %s\n", by, commit, took.Round(time.Millisecond))
	return nil
}

func bar(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = '='
	}
	return string(b)
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
