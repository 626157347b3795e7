package remote_test

import (
	"fmt"
	"testing"

	"github.com/norn-vault/norn/sync/remote"
)

// BenchmarkRemotes_SyncNothingToDo: Sync of a vault already in step with a local
// bare remote (fetch, compare, state recorded), beside `git fetch && git push`
// doing the same in the same run.
func BenchmarkRemotes_SyncNothingToDo(b *testing.B) {
	for _, commits := range []int{1, 100} {
		bare := newBare(b)
		rp := newReplica(b, "bench", bare, true)
		for i := range commits - 1 {
			rp.put(b, fmt.Sprintf("n%d.md", i), fmt.Sprintf("# %d\n", i))
		}
		rp.sync(b)
		b.Run(fmt.Sprintf("commits=%d/norn", commits), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res, err := rp.r.Sync(b.Context(), rp.v, "origin", remote.SyncOptions{Machine: "bench"})
				if err != nil || res.Outcome != remote.UpToDate {
					b.Fatalf("Sync = %+v, %v", res, err)
				}
			}
		})
		b.Run(fmt.Sprintf("commits=%d/git-cli", commits), func(b *testing.B) {
			for b.Loop() {
				git(b, rp.v.Dir(), "fetch", "-q", "origin")
				git(b, rp.v.Dir(), "push", "-q", "origin", "main")
			}
		})
	}
}
