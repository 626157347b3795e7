package repo_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// seedVault makes a vault of n notes in folders of 100, imported in one commit.
func seedVault(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	body := strings.Repeat("lorem ipsum dolor sit amet ", 38) // ~1 KiB
	old := time.Now().Add(-time.Hour)
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("f%03d", i/100), fmt.Sprintf("n%05d.md", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(fmt.Sprintf("# Note %d\n%s\n", i, body)), 0o644); err != nil {
			b.Fatal(err)
		}
		// A vault's notes are older than git's index: stat-clean, not racily so.
		if err := os.Chtimes(p, old, old); err != nil {
			b.Fatal(err)
		}
	}
	v, _, err := repo.Init(context.Background(), dir, repo.InitOptions{Options: repo.Options{Owner: repo.Author{Name: "o", Email: "o@x"}}})
	if err != nil {
		b.Fatal(err)
	}
	v.Close()
	// Flush the seed's dirty pages now, so that their writeback is not charged to
	// the first measured writes (a sync makes every dirty page durable).
	if err := exec.Command("sync").Run(); err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkWrite measures one durable write (commit, fsync, ref, working tree, git
// index) of a 1 KiB note, sequentially and with 8 concurrent writers, against the git
// CLI doing the same change with `git add` + `git commit`, at 1,000 and 10,000
// notes (and 100,000 with NORN_BENCH_100K).
func BenchmarkWrite(b *testing.B) {
	body := strings.Repeat("the quick brown fox jumps over the lazy dog ", 23)
	for _, n := range benchSizes() {
		// Seeding is inside the size's own benchmark, so -bench picks sizes cheaply.
		b.Run(fmt.Sprintf("notes=%d", n), func(b *testing.B) { benchWriteSize(b, n, body) })
	}
}

// benchWriteSize runs BenchmarkWrite's cases on a vault of n notes.
func benchWriteSize(b *testing.B, n int, body string) {
	dir := seedVault(b, n)
	for _, name := range []string{"norn", "norn-observer"} {
		benchWriteNorn(b, dir, n, name, body)
	}
	if _, err := exec.LookPath("git"); err != nil {
		return
	}
	b.Run("git-cli/seq", func(b *testing.B) {
		i := 0
		for b.Loop() {
			rel := fmt.Sprintf("f%03d/n%05d.md", i%(n/100), i%n)
			if err := os.WriteFile(filepath.Join(dir, rel), []byte(fmt.Sprintf("%s git %d\n", body, i)), 0o644); err != nil {
				b.Fatal(err)
			}
			for _, args := range [][]string{{"add", "--", rel}, {"commit", "-q", "-m", "write " + rel, "--", rel}} {
				cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=b", "-c", "user.email=b@x", "-c", "core.fsync=committed", "-c", "gc.auto=0"}, args...)...)
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("git %v: %v %s", args, err, out)
				}
			}
			i++
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/write")
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
	})
}

// benchWriteNorn runs BenchmarkWrite's Norn cases on the vault at dir; with name
// "norn-observer" an event observer sleeps 10 ms on every commit: it must not
// slow the writers (events are delivered off the committer).
func benchWriteNorn(b *testing.B, dir string, n int, name, body string) {
	opts := repo.Options{}
	if name == "norn-observer" {
		opts.OnEvent = func(repo.Event) { time.Sleep(10 * time.Millisecond) }
	}
	v, err := repo.Open(context.Background(), dir, opts)
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	// round makes each repetition's bytes new (-count repeats a sub-benchmark on
	// the same vault; a write of a note's current bytes commits nothing).
	round := 0
	b.Run(name+"/seq", func(b *testing.B) {
		b.ReportAllocs()
		round++
		i := 0
		for b.Loop() {
			p := note.Path(fmt.Sprintf("f%03d/n%05d.md", i%(n/100), i%n))
			_, err := v.Apply(context.Background(), repo.Tx{Author: repo.Author{Name: "bench"}, Op: repo.OpWrite,
				Changes: []repo.Change{put(string(p), fmt.Sprintf("%s %s %d %d\n", body, name, round, i), v.Revision(p))}})
			if err != nil {
				b.Fatal(err)
			}
			i++
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/write")
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
	})
	b.Run(name+"/writers=8", func(b *testing.B) {
		b.ReportAllocs()
		round++
		var next atomic.Int64
		var wg sync.WaitGroup
		var ops atomic.Int64
		b.ResetTimer()
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := next.Add(1)
					if i > int64(b.N) {
						return
					}
					p := note.Path(fmt.Sprintf("f%03d/n%05d.md", w, (int(i)*8+w)%n))
					_, err := v.Apply(context.Background(), repo.Tx{Author: repo.Author{Name: "bench"}, Op: repo.OpWrite,
						Changes: []repo.Change{put(string(p), fmt.Sprintf("%s %s %d %d\n", body, name, round, i), v.Revision(p))}})
					if err == nil {
						ops.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		b.StopTimer()
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/write")
		b.ReportMetric(float64(ops.Load())/b.Elapsed().Seconds(), "writes/s")
	})
}
