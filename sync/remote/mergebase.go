package remote

import (
	"context"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/norn-vault/norn/repo"
)

// MergeBase returns the best common ancestor of two commits of the vault, ""
// when their histories share none. With several best ancestors (criss-cross
// merges) it returns the first git would list.
func (r *Remotes) MergeBase(ctx context.Context, a, b repo.CommitID) (repo.CommitID, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.storage()
	var cs [2]*object.Commit
	for i, c := range []repo.CommitID{a, b} {
		h, err := commitHash(st, c)
		if err != nil {
			return "", fmt.Errorf("merge base: %w", err)
		}
		if cs[i], err = object.GetCommit(st, h); err != nil {
			return "", fmt.Errorf("merge base: read %s: %w", c.Short(), err)
		}
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	bases, err := cs[0].MergeBase(cs[1])
	if err != nil {
		return "", fmt.Errorf("merge base of %s and %s: %w", a.Short(), b.Short(), err)
	}
	if len(bases) == 0 {
		return "", nil
	}
	return repo.CommitID(bases[0].Hash.String()), nil
}
