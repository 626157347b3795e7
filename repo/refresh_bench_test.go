package repo_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/norn-vault/norn/repo"
)

// BenchmarkRefresh_HandCommit is what a running vault pays to take in a commit
// another process made — here `git commit` by hand of 100 changed notes: Refresh
// after the commit (the first half of the end-to-end catch-up a server does before
// its index catches up). It should follow the 100 notes, not the vault's size.
func BenchmarkRefresh_HandCommit(b *testing.B) {
	for _, n := range benchSizes() {
		b.Run(fmt.Sprintf("notes=%d", n), func(b *testing.B) {
			dir := seedVault(b, n)
			ctx := context.Background()
			v, err := repo.Open(ctx, dir, repo.Options{Owner: repo.Author{Name: "o", Email: "o@x"}})
			if err != nil {
				b.Fatal(err)
			}
			defer v.Close()
			git := func(args ...string) {
				cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=b", "-c", "user.email=b@x", "-c", "core.fsync=committed", "-c", "gc.auto=0"}, args...)...)
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("git %v: %v %s", args, err, out)
				}
			}
			round := 0
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				round++
				for k := range 100 {
					i := (round*100 + k) % n
					rel := fmt.Sprintf("f%03d/n%05d.md", i/100, i)
					f, err := os.OpenFile(filepath.Join(dir, rel), os.O_APPEND|os.O_WRONLY, 0)
					if err != nil {
						b.Fatal(err)
					}
					fmt.Fprintf(f, "hand edit %d\n", round)
					f.Close()
				}
				git("commit", "-q", "-a", "-m", fmt.Sprintf("hand %d", round))
				b.StartTimer()
				if err := v.Refresh(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
