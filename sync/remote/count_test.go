package remote_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/sync/remote"
)

// AheadBehind agrees with `git rev-list --left-right --count A...B` over a random
// history with branches and merges.
func TestRemotes_AheadBehind(t *testing.T) {
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	dir := newVault(t)
	commits := []repo.CommitID{head(t, dir)}
	for i := range 40 {
		from := commits[rng.IntN(len(commits))]
		git(t, dir, "checkout", "-q", "--detach", string(from))
		if rng.IntN(4) == 0 && len(commits) > 2 {
			other := commits[rng.IntN(len(commits))]
			if _, err := gitErr(dir, "merge", "-q", "--no-edit", "-m", "merge", string(other)); err != nil {
				git(t, dir, "merge", "--abort")
			} else {
				commits = append(commits, head(t, dir))
				continue
			}
		}
		commits = append(commits, commit(t, dir, fmt.Sprintf("n%d.md", i), fmt.Sprintf("# %d\n", i)))
	}
	r := open(t, dir, remote.Options{})
	for range 60 {
		a, b := commits[rng.IntN(len(commits))], commits[rng.IntN(len(commits))]
		ahead, behind, err := r.AheadBehind(t.Context(), a, b)
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(git(t, dir, "rev-list", "--left-right", "--count", string(a)+"..."+string(b)))
		wa, _ := strconv.Atoi(f[0])
		wb, _ := strconv.Atoi(f[1])
		if ahead != wa || behind != wb {
			t.Fatalf("AheadBehind(%s, %s) = %d, %d; git says %d, %d", a.Short(), b.Short(), ahead, behind, wa, wb)
		}
	}
	// "" is no commit: everything on the other side counts.
	all, _ := strconv.Atoi(git(t, dir, "rev-list", "--count", string(commits[len(commits)-1])))
	if ahead, behind, err := r.AheadBehind(t.Context(), commits[len(commits)-1], ""); err != nil || ahead != all || behind != 0 {
		t.Errorf("AheadBehind(tip, \"\") = %d, %d, %v; want %d, 0", ahead, behind, err, all)
	}
	if _, _, err := r.AheadBehind(t.Context(), "0123456789012345678901234567890123456789", commits[0]); !errors.Is(err, remote.ErrNotCommit) {
		t.Errorf("AheadBehind(unknown) = %v", err)
	}
}
