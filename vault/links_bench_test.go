package vault_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/internal/testvault"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// BenchmarkLinkGraph measures the link queries of the server on obsidian-hub
// (6,571 notes), answered from the index and, for comparison, from a scan of the
// notes at HEAD (what they cost before the index held the link graph, and what
// they cost now when the index is locked by another process):
//
//   - links/index, links/scan: NoteLinks (limit 50) of the 100 notes with the most
//     backlinks, in turn; p50 and p95 per call;
//   - stats/index, stats/scan: VaultStats (limit 50);
//   - move-plan/index: a dry-run MoveNote of a rename that rewrites exactly 50
//     other notes (a real note with 44 rewritable backlinks, linked by path from
//     6 more notes in a setup commit), and of one that rewrites 139 (the plan
//     reads only the notes involved);
//   - catchup-after-rename: that rename committed, then Indexer.CatchUp (tree
//     diff, parse of the moved and rewritten notes, index and link-graph
//     update), p50 and p95 of the catch-up alone and the median CPU time the
//     process spends during one; it renames back and forth.
//
// The vault (copy, git import, index rebuild: about 10 s) is built once per run.
func BenchmarkLinkGraph(b *testing.B) {
	root := filepath.Join("..", "..", "shared", "corpora", "vault-obsidian-hub", "notes")
	if _, err := os.Stat(root); err != nil {
		b.Skipf("obsidian-hub corpus not found at %s (see ../shared/corpora/README.md, relative to the repository): %v", root, err)
	}
	ctx := context.Background()
	dir := b.TempDir()
	linkBenchRun(b, "", "cp", "-R", root+string(filepath.Separator)+".", dir)
	// The corpus breaks the default profile's content rules; a rename judges
	// every rewritten note whole.
	if err := os.MkdirAll(filepath.Join(dir, ".norn"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".norn", "config.yaml"), []byte("gates:\n  profile: \"off\"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	linkBenchRun(b, dir, "git", "init", "-q", "-b", "main")
	linkBenchRun(b, dir, "git", "add", "-A")
	linkBenchRun(b, dir, "git", "-c", "user.name=o", "-c", "user.email=o@x", "commit", "-q", "-m", "import")
	// The vault without the commit hook: the index catches up only when asked,
	// so that the catch-up after a rename can be timed alone.
	settings := vault.NewSettings()
	rv, err := repo.Open(ctx, dir, repo.Options{Owner: repo.Author{Name: "o", Email: "o@x"}, Gate: settings.Gate})
	if err != nil {
		b.Fatal(err)
	}
	defer rv.Close()
	settings.Bind(rv)
	x := vault.OpenIndexer(ctx, rv, graph.Options{}, nil)
	defer x.Close()
	if err := x.CatchUp(ctx); err != nil {
		b.Fatal(err)
	}
	v := vault.Assemble(rv, settings, x)
	locked := vault.OpenIndexer(ctx, rv, graph.Options{}, nil) // a second handle: the index is locked
	defer locked.Close()
	scan := vault.Assemble(rv, settings, locked)

	ix, err := x.Graph(ctx)
	if err != nil {
		b.Fatal(err)
	}
	hubs, err := ix.Hubs(100, 0)
	if err != nil {
		b.Fatal(err)
	}
	var busy []note.Path
	for _, n := range hubs.Nodes {
		busy = append(busy, n.ID)
	}
	slices.Sort(busy)

	latency := func(b *testing.B, op func(i int) error) {
		b.ReportAllocs()
		var took []time.Duration
		for i := 0; b.Loop(); i++ {
			start := time.Now()
			if err := op(i); err != nil {
				b.Fatal(err)
			}
			took = append(took, time.Since(start))
		}
		slices.Sort(took)
		b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
		b.ReportMetric(float64(took[len(took)*95/100].Microseconds()), "p95-µs")
	}
	for _, tc := range []struct {
		name string
		v    *vault.Vault
	}{{"index", v}, {"scan", scan}} {
		b.Run("links/"+tc.name, func(b *testing.B) {
			latency(b, func(i int) error {
				_, err := vault.NoteLinks(ctx, tc.v, busy[i%len(busy)], 50)
				return err
			})
		})
		b.Run("stats/"+tc.name, func(b *testing.B) {
			latency(b, func(int) error {
				_, err := vault.VaultStats(ctx, tc.v, 50, 0)
				return err
			})
		})
	}

	// Renames (same folder) that rewrite about 50 notes: obsidian-hub has none
	// between 44 and 139 (links by title or alias stay as they are), so both
	// sides: the rename rewriting the most notes up to 50, and the one rewriting
	// the fewest above 50, of the notes with 40 to 150 linking notes. The smaller
	// is then made to rewrite exactly 50 (below).
	all, err := ix.Hubs(1000, 0)
	if err != nil {
		b.Fatal(err)
	}
	agent := repo.Author{Name: "bench"}
	var small, large *vault.MoveResult
	var smallReq, largeReq vault.MoveRequest
	for _, n := range all.Nodes {
		if n.Backlinks < 40 || n.Backlinks > 150 {
			continue
		}
		r := vault.MoveRequest{From: n.ID, To: note.Path(strings.TrimSuffix(string(n.ID), ".md") + " renamed.md"), Author: agent, Roles: []string{"owner"}, DryRun: true}
		p, err := v.MoveNote(ctx, r)
		if err != nil {
			continue // a name that the rename would make ambiguous somewhere
		}
		if k := len(p.Rewritten); k <= 50 && (small == nil || k > len(small.Rewritten)) {
			small, smallReq = p, r
		} else if k > 50 && (large == nil || k < len(large.Rewritten)) {
			large, largeReq = p, r
		}
	}
	if small == nil || large == nil {
		b.Fatal("no notes to rename")
	}
	// Make the smaller rename rewrite exactly 50 notes: link it by path from as
	// many more notes (the first by path that do not link to it yet), in one
	// commit, and plan it again.
	if k := len(small.Rewritten); k < 50 {
		target := strings.TrimSuffix(string(smallReq.From), ".md")
		tx := repo.Tx{Author: agent, Roles: []string{"owner"}, Op: repo.OpWrite, Message: "bench: link " + target}
		files, _, err := rv.Files(ctx, "")
		if err != nil {
			b.Fatal(err)
		}
		for _, f := range files {
			if len(tx.Changes) == 50-k {
				break
			}
			if !strings.HasSuffix(string(f.Path), ".md") || f.Path == smallReq.From || slices.Contains(small.Rewritten, f.Path) {
				continue
			}
			old, err := rv.ReadRevision(ctx, f.Revision)
			if err != nil {
				b.Fatal(err)
			}
			content := append(bytes.Clone(old), fmt.Sprintf("\nSee also [[%s]].\n", target)...)
			tx.Changes = append(tx.Changes, repo.Change{Kind: repo.Put, Path: f.Path, Content: content, ExpectedRevision: f.Revision})
		}
		if _, err := rv.Apply(ctx, tx); err != nil {
			b.Fatal(err)
		}
		if err := x.CatchUp(ctx); err != nil {
			b.Fatal(err)
		}
		if small, err = v.MoveNote(ctx, smallReq); err != nil || len(small.Rewritten) != 50 {
			b.Fatalf("after linking %s from %d more notes the rename rewrites %v notes: %v", target, 50-k, small, err)
		}
	}
	// The scan plans the same move (it reads every note; about as slow as the
	// link queries' scan).
	if sp, err := scan.MoveNote(ctx, smallReq); err != nil || !reflect.DeepEqual(sp.Rewritten, small.Rewritten) || !reflect.DeepEqual(sp.Changes, small.Changes) {
		b.Fatalf("the scan plans another move: %v\nindex %v\nscan  %v", err, small.Rewritten, sp)
	}
	for _, m := range []struct {
		req  vault.MoveRequest
		plan *vault.MoveResult
	}{{smallReq, small}, {largeReq, large}} {
		size := fmt.Sprintf("rewritten=%d", len(m.plan.Rewritten))
		b.Run("move-plan/index/"+size, func(b *testing.B) {
			latency(b, func(int) error {
				_, err := v.MoveNote(ctx, m.req)
				return err
			})
		})
		b.Run("catchup-after-rename/"+size, func(b *testing.B) {
			b.ReportAllocs()
			r := m.req
			r.DryRun = false
			var took, cpu []time.Duration
			for b.Loop() {
				b.StopTimer()
				if _, err := v.MoveNote(ctx, r); err != nil {
					b.Fatal(err)
				}
				r.From, r.To = r.To, r.From // and back, next time
				b.StartTimer()
				cpu0, _ := testvault.ProcessCPU()
				start := time.Now()
				if err := x.CatchUp(ctx); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(start))
				if cpu1, ok := testvault.ProcessCPU(); ok {
					cpu = append(cpu, cpu1-cpu0)
				}
			}
			b.StopTimer()
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(took[len(took)*95/100].Microseconds()), "p95-µs")
			if len(cpu) > 0 {
				// CPU of the whole process during the catch-up (every core; the
				// index's background compactions included): steadier than the
				// latency on a shared machine.
				slices.Sort(cpu)
				b.ReportMetric(float64(cpu[len(cpu)/2].Microseconds()), "cpu-p50-µs")
			}
			if r.From != m.req.From { // leave the vault as it was
				if _, err := v.MoveNote(ctx, r); err != nil {
					b.Fatal(err)
				}
				if err := x.CatchUp(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func linkBenchRun(b *testing.B, dir, name string, args ...string) {
	b.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}
