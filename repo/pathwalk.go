package repo

import (
	"context"
	"fmt"
	"sort"

	"github.com/norn-vault/norn/note"
)

// PathStep is one commit that changed the path a WalkPath is following on its
// line of history.
type PathStep struct {
	Commit Commit
	// Path is the path followed; Revision its blob at Commit ("" when absent)
	// and ParentRevision its blob at Commit's first parent ("" when absent or at
	// a root commit).
	Path           note.Path
	Revision       Revision
	ParentRevision Revision
}

// WalkPath walks the commits reachable from HEAD newest first, as Log does, and
// calls visit for each commit that changed the path followed on its line of
// history (its entry differs from every parent's, Log's rule). It starts with p;
// visit returns the path to follow in the commit's parents — the same path to go
// on, another to follow a move, "" to stop that line — and whether to walk on at
// all. A commit reached under two paths (a move on one side of a merge) is
// walked once, under the first. It reads only the trees on the followed paths,
// each once per path.
func (v *Vault) WalkPath(ctx context.Context, p note.Path, visit func(PathStep) (next note.Path, more bool, err error)) error {
	if err := ValidPath(string(p)); err != nil {
		return fmt.Errorf("history of %s: %w", p, err)
	}
	head := v.snap.Load().commit
	if head.isZero() {
		return nil
	}
	type item struct {
		id   hash
		c    *commitObj
		path string
	}
	c0, err := v.readCommit(head)
	if err != nil {
		return err
	}
	looks := map[string]*pathLookup{}
	lookup := func(p string) *pathLookup {
		if l := looks[p]; l != nil {
			return l
		}
		l := v.pathLookup(p)
		looks[p] = l
		return l
	}
	seen := map[hash]bool{head: true}
	queue := []item{{head, c0, string(p)}}
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		// Newest first: take the queued commit with the latest time.
		sort.SliceStable(queue, func(i, j int) bool { return queue[i].c.when.After(queue[j].c.when) })
		it := queue[0]
		queue = queue[1:]
		look := lookup(it.path)
		mine, err := look.at(it.c.tree)
		if err != nil {
			return fmt.Errorf("history of %s: %w", it.path, err)
		}
		var parents []*commitObj
		touched, first := len(it.c.parents) == 0 && !mine.isZero(), zeroHash
		for i, pid := range it.c.parents {
			pc, err := v.readCommit(pid)
			if err != nil {
				return err
			}
			parents = append(parents, pc)
			theirs, err := look.at(pc.tree)
			if err != nil {
				return fmt.Errorf("history of %s: %w", it.path, err)
			}
			if i == 0 {
				first, touched = theirs, true
			}
			if theirs == mine {
				touched = false
			}
		}
		next := it.path
		if touched {
			step := PathStep{Commit: toCommit(it.id, it.c), Path: note.Path(it.path), Revision: revisionOf(mine), ParentRevision: revisionOf(first)}
			np, more, err := visit(step)
			if err != nil || !more {
				return err
			}
			next = string(np)
		}
		if next == "" {
			continue
		}
		for i, pid := range it.c.parents {
			if !seen[pid] {
				seen[pid] = true
				queue = append(queue, item{pid, parents[i], next})
			}
		}
	}
	return nil
}

// revisionOf is the Revision of a tree entry's id ("" for the zero id: absent).
func revisionOf(id hash) Revision {
	if id.isZero() {
		return ""
	}
	return Revision(id.String())
}

// CommitChanges returns what commit id changed against its first parent, as its Event
// lists them (a removal and an addition of the same blob, or the lone pair of a
// move commit, are one move). An id that names no commit is ErrNotFound.
func (v *Vault) CommitChanges(ctx context.Context, id CommitID) ([]EventChange, error) {
	h, err := v.commitHash(id)
	if err != nil {
		return nil, err
	}
	c, err := v.readCommit(h)
	if err != nil {
		return nil, err
	}
	ev, err := v.eventOf(h, c)
	if err != nil {
		return nil, err
	}
	return ev.Changes, nil
}
