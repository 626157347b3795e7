package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/norn-vault/norn/server"
)

func runReindex(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("reindex", g)
	if _, err := parseArgs(fs, args, 0, 0); err != nil {
		return err
	}
	v, settings, err := openVault(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	x := openIndexer(ctx, e, g, v, settings)
	defer x.Close()
	start := time.Now()
	if err := rebuildWithBar(ctx, e, x); err != nil {
		return err
	}
	commit, _ := x.Status()
	took := time.Since(start)
	if g.json {
		return printJSON(e, map[string]any{"index_commit": commit, "took_ms": took.Milliseconds()})
	}
	fmt.Fprintf(e.stdout, "index rebuilt at %.12s in %s\n", commit, took.Round(time.Millisecond))
	return nil
}

// rebuildWithBar rebuilds the index from HEAD, drawing a progress bar on stderr
// when it is a terminal.
func rebuildWithBar(ctx context.Context, e *env, x *server.Indexer) error {
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
