package vault_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/norn-vault/norn/internal/testvault"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// BenchmarkArchived measures the archive catalog lookup on a vault of 10,000
// notes in 100 folders, 1,000 of them archived (ten commits of 100 archives):
// the whole catalog (1,000 entries), one folder's (10 entries), and the whole
// catalog as a caller without the private scope sees it (each entry's last
// revision judged for privacy).
func BenchmarkArchived(b *testing.B) {
	const notes, archived = 10000, 1000
	ctx := context.Background()
	files := map[string]string{}
	for i := range notes {
		files[fmt.Sprintf("f%02d/n%05d.md", i%100, i)] = fmt.Sprintf("# Note %d\n\nbody %d\n", i, i)
	}
	v := testvault.Served(b, files)
	for k := range archived / 100 {
		var changes []repo.Change
		for j := range 100 {
			i := k*100 + j
			changes = append(changes, repo.Change{Kind: repo.Archive, Path: note.Path(fmt.Sprintf("f%02d/n%05d.md", i%100, i))})
		}
		if _, err := v.Apply(ctx, repo.Tx{Author: testvault.Owner, Op: repo.OpArchive, Reason: repo.ReasonArchived, Changes: changes}); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range []struct {
		name   string
		actor  vault.Actor
		folder string
		want   int
	}{{"all", vault.Actor{Private: true}, "", archived}, {"folder", vault.Actor{Private: true}, "f07", archived / 100}, {"all-agent", vault.Actor{}, "", archived}} {
		b.Run(fmt.Sprintf("notes=%d/archived=%d/%s", notes, archived, c.name), func(b *testing.B) {
			b.ReportAllocs()
			cpu0, _ := testvault.ProcessCPU()
			for b.Loop() {
				viewer, err := v.Viewer(ctx, c.actor)
				if err != nil {
					b.Fatal(err)
				}
				cat, err := viewer.Archived(ctx, vault.ArchiveQuery{Folder: c.folder})
				if err != nil || len(cat.Archived) != c.want || cat.Source != "index" {
					b.Fatalf("Archived: %d entries from %s, %v", len(cat.Archived), cat.Source, err)
				}
			}
			if cpu1, ok := testvault.ProcessCPU(); ok {
				b.ReportMetric(float64(cpu1-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
			}
		})
	}
}
