package vault

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/norn-vault/norn/repo"
)

// BenchmarkMaintainer_Round is one maintenance round of an idle norn serve (no
// edits), with Settle as serve sets it: without a watcher (full: every round
// walks the working tree, as before the watcher) and with one (watched: the
// round takes the watcher's empty report). 100,000 notes with NORN_BENCH_100K.
func BenchmarkMaintainer_Round(b *testing.B) {
	sizes := []int{1000, 10000}
	if os.Getenv("NORN_BENCH_100K") != "" {
		sizes = append(sizes, 100000)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, n := range sizes {
		dir := b.TempDir()
		body := strings.Repeat("lorem ipsum dolor sit amet ", 38)
		old := time.Now().Add(-time.Hour)
		for i := range n {
			p := filepath.Join(dir, fmt.Sprintf("f%03d", i/100), fmt.Sprintf("n%05d.md", i))
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(fmt.Sprintf("# Note %d\n%s\n", i, body)), 0o644); err != nil {
				b.Fatal(err)
			}
			if err := os.Chtimes(p, old, old); err != nil { // older than git's index: stat-clean
				b.Fatal(err)
			}
		}
		s := NewSettings()
		rv, _, err := repo.Init(context.Background(), dir, repo.InitOptions{Options: repo.Options{Gate: s.Gate, Logger: quiet, Owner: repo.Author{Name: "o", Email: "o@x"}}})
		if err != nil {
			b.Fatal(err)
		}
		s.Bind(rv)
		v := Assemble(rv, s, nil)
		ctx := context.Background()
		for _, watched := range []bool{false, true} {
			name := map[bool]string{false: "full", true: "watched"}[watched]
			b.Run(fmt.Sprintf("notes=%d/%s", n, name), func(b *testing.B) {
				m := &Maintainer{Vault: v, Logger: quiet, Settle: DefaultSettle}
				if watched {
					m.watcher = v.Watch(repo.WatchOptions{Logger: quiet})
					defer m.watcher.Close()
				}
				if err := m.Round(ctx); err != nil { // the start's full scan
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					if err := m.Round(ctx); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		v.Index.Close()
		rv.Close()
	}
}
