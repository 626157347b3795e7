package remote

import (
	"container/heap"
	"context"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage"

	"github.com/norn-vault/norn/repo"
)

// AheadBehind counts the commits reachable from a and not from b (ahead) and
// from b and not from a (behind), as `git rev-list --left-right --count a...b`
// does. "" stands for no commit (an empty remote): everything on the other side
// counts. Both must be commits of the vault (fetch a remote's tip first).
func (r *Remotes) AheadBehind(ctx context.Context, a, b repo.CommitID) (ahead, behind int, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.storage()
	var starts [2]plumbing.Hash
	for i, c := range []repo.CommitID{a, b} {
		if c == "" {
			continue
		}
		if starts[i], err = commitHash(st, c); err != nil {
			return 0, 0, fmt.Errorf("ahead/behind: %w", err)
		}
	}
	return countApart(ctx, st, starts)
}

// The walk paints each commit with the sides it is reachable from, newest first
// (by committer time), and stops once every commit still queued is reachable from
// both: nothing older can be on one side only.
const (
	sideA = 1 << iota
	sideB
	both = sideA | sideB
)

func countApart(ctx context.Context, st storage.Storer, starts [2]plumbing.Hash) (ahead, behind int, err error) {
	paint := map[plumbing.Hash]uint8{}
	q := &commitQueue{}
	for i, h := range starts {
		if h.IsZero() {
			continue
		}
		if paint[h] == 0 {
			c, err := object.GetCommit(st, h)
			if err != nil {
				return 0, 0, fmt.Errorf("ahead/behind: read %s: %w", h, err)
			}
			heap.Push(q, c)
		}
		paint[h] |= uint8(1 << i)
	}
	oneSided := func() bool {
		for _, c := range *q {
			if paint[c.Hash] != both {
				return true
			}
		}
		return false
	}
	for q.Len() > 0 && oneSided() {
		if err := ctx.Err(); err != nil {
			return 0, 0, fmt.Errorf("ahead/behind: %w", err)
		}
		c := heap.Pop(q).(*object.Commit)
		flags := paint[c.Hash]
		for _, p := range c.ParentHashes {
			old, seen := paint[p]
			if old|flags == old && seen {
				continue
			}
			paint[p] = old | flags
			if !seen {
				pc, err := object.GetCommit(st, p)
				if err != nil {
					return 0, 0, fmt.Errorf("ahead/behind: read %s: %w", p, err)
				}
				heap.Push(q, pc)
			} else {
				// Repaint what was already walked below p: its flags must follow.
				if err := repaint(st, paint, p, flags); err != nil {
					return 0, 0, err
				}
			}
		}
	}
	for _, f := range paint {
		switch f {
		case sideA:
			ahead++
		case sideB:
			behind++
		}
	}
	return ahead, behind, nil
}

// repaint adds flags to p's already-painted ancestors (a commit reached by the
// other side after its parents were walked: rare, with clock skew).
func repaint(st storage.Storer, paint map[plumbing.Hash]uint8, p plumbing.Hash, flags uint8) error {
	stack := []plumbing.Hash{p}
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		c, err := object.GetCommit(st, h)
		if err != nil {
			return fmt.Errorf("ahead/behind: read %s: %w", h, err)
		}
		for _, pp := range c.ParentHashes {
			if old, seen := paint[pp]; seen && old|flags != old {
				paint[pp] = old | flags
				stack = append(stack, pp)
			}
		}
	}
	return nil
}

// commitQueue is a max-heap of commits by committer time.
type commitQueue []*object.Commit

func (q commitQueue) Len() int { return len(q) }
func (q commitQueue) Less(i, j int) bool {
	return q[i].Committer.When.After(q[j].Committer.When)
}
func (q commitQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *commitQueue) Push(x any)   { *q = append(*q, x.(*object.Commit)) }
func (q *commitQueue) Pop() any {
	old := *q
	c := old[len(old)-1]
	*q = old[:len(old)-1]
	return c
}

// plumbingHash parses a full hex commit id.
func plumbingHash(c repo.CommitID) (plumbing.Hash, error) {
	if len(c) != 40 {
		return plumbing.ZeroHash, fmt.Errorf("%w: %q is not a full commit id", ErrNotCommit, clip(string(c)))
	}
	if _, err := hex.DecodeString(string(c)); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("%w: %q is not a full commit id", ErrNotCommit, clip(string(c)))
	}
	return plumbing.NewHash(string(c)), nil
}

// commitHash checks that c is a commit in st.
func commitHash(st storage.Storer, c repo.CommitID) (plumbing.Hash, error) {
	h, err := plumbingHash(c)
	if err != nil {
		return h, err
	}
	if _, err := object.GetCommit(st, h); errors.Is(err, plumbing.ErrObjectNotFound) {
		return h, fmt.Errorf("%w: %s", ErrNotCommit, c.Short())
	} else if err != nil {
		return h, fmt.Errorf("read commit %s: %w", c.Short(), err)
	}
	return h, nil
}
