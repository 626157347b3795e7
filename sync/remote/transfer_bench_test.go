package remote_test

import (
	"fmt"
	"testing"

	"github.com/norn-vault/norn/sync/remote"
)

// BenchmarkRemotes_NothingToDo: a fetch and a push with nothing to send against a
// local bare remote (the floor of a no-op sync), beside the git CLI doing the same.
func BenchmarkRemotes_NothingToDo(b *testing.B) {
	for _, commits := range []int{1, 100} {
		dir, bare := newVault(b), newBare(b)
		for i := range commits - 1 {
			commit(b, dir, fmt.Sprintf("n%d.md", i), fmt.Sprintf("# %d\n", i))
		}
		git(b, dir, "remote", "add", "origin", bare)
		git(b, dir, "push", "-q", "origin", "main")
		tip := head(b, dir)
		r := open(b, dir, remote.Options{})
		b.Run(fmt.Sprintf("commits=%d/norn", commits), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				got, err := r.Fetch(b.Context(), "origin", nil)
				if err != nil || got != tip {
					b.Fatalf("Fetch = %q, %v", got, err)
				}
				if err := r.Push(b.Context(), "origin", tip, got, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("commits=%d/git-cli", commits), func(b *testing.B) {
			for b.Loop() {
				git(b, dir, "fetch", "-q", "origin")
				git(b, dir, "push", "-q", "origin", "main")
			}
		})
	}
}
