package repo

import (
	"context"
	"fmt"
	"iter"
	"sort"
	"sync"

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
	c0, err := v.walks.commit(v, head)
	if err != nil {
		return err
	}
	looks := map[string]*pathLookup{}
	defer func() { v.walks.putLookups(looks) }()
	lookup := func(p string) *pathLookup {
		if l := looks[p]; l != nil {
			return l
		}
		l := v.walks.takeLookup(p)
		if l == nil {
			l = v.pathLookup(p)
		}
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
		if len(queue) > 1 {
			sort.SliceStable(queue, func(i, j int) bool { return queue[i].c.when.After(queue[j].c.when) })
		}
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
			pc, err := v.walks.commit(v, pid)
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

// CommitChange returns the change of commit id that added or removed path p —
// the one at p, or a move from p — as the commit's Event lists it against its
// first parent (a removal and an addition of the same blob, or the lone pair of
// a move commit, are one move). ok is false when the commit
// did not change p against its first parent. It reads the cached list without
// copying it, so asking about one note of a commit of thousands costs no more
// than the scan.
func (v *Vault) CommitChange(ctx context.Context, id CommitID, p note.Path) (ch EventChange, ok bool, err error) {
	h, err := v.commitHash(id)
	if err != nil {
		return ch, false, err
	}
	v.walks.mu.Lock()
	chs, cached := v.walks.changed[h]
	v.walks.mu.Unlock()
	if !cached {
		c, err := v.walks.commit(v, h)
		if err != nil {
			return ch, false, err
		}
		ev, err := v.eventOf(h, c)
		if err != nil {
			return ch, false, err
		}
		v.walks.putChanges(h, ev.Changes)
		chs = ev.Changes
	}
	for _, c := range chs {
		if c.Path == p || c.Kind == EventMoved && c.From == p {
			return c, true, nil
		}
	}
	return ch, false, nil
}

// Bounds of a walkCache (a few tens of MB at most): past them it is emptied and
// starts again.
const (
	maxWalkCommits = 1 << 16
	maxWalkChanges = 1 << 12 // commits' changes (a move's list every path it rewrote)
	maxWalkMemo    = 1 << 18 // tree → entry pairs of all cached pathLookups
)

// walkCache keeps what history walks (WalkPath, CommitChange) read, for the
// next walk: the decoded commits, the changes of the commits asked about and, per
// path, which entry each tree it looked in holds (the
// pathLookup memo). Git objects never change, so nothing in it goes stale; a
// walk of a note's history after the first reads only the commits and trees
// that are new since. A pathLookup is taken out while a walk uses it, so no two
// walks share one.
type walkCache struct {
	mu      sync.Mutex
	commits map[hash]*commitObj
	changed map[hash][]EventChange
	lookups map[string]*pathLookup
	memo    int // the pairs in lookups
}

// commit reads commit id through the cache.
func (w *walkCache) commit(v *Vault, id hash) (*commitObj, error) {
	w.mu.Lock()
	c := w.commits[id]
	w.mu.Unlock()
	if c != nil {
		return c, nil
	}
	c, err := v.readCommit(id)
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	if w.commits == nil || len(w.commits) >= maxWalkCommits {
		w.commits = map[hash]*commitObj{}
	}
	w.commits[id] = c
	w.mu.Unlock()
	return c, nil
}

// putChanges caches a commit's changes.
func (w *walkCache) putChanges(id hash, chs []EventChange) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.changed == nil || len(w.changed) >= maxWalkChanges {
		w.changed = map[hash][]EventChange{}
	}
	w.changed[id] = chs
}

// takeLookup takes p's pathLookup out of the cache (nil when there is none).
func (w *walkCache) takeLookup(p string) *pathLookup {
	w.mu.Lock()
	defer w.mu.Unlock()
	l := w.lookups[p]
	if l != nil {
		delete(w.lookups, p)
		w.memo -= l.size()
	}
	return l
}

// putLookups returns a walk's pathLookups to the cache.
func (w *walkCache) putLookups(looks map[string]*pathLookup) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for p, l := range looks {
		n := l.size()
		if n > maxWalkMemo {
			continue
		}
		if w.lookups == nil || w.memo+n > maxWalkMemo {
			w.lookups, w.memo = map[string]*pathLookup{}, 0
		}
		if old := w.lookups[p]; old != nil {
			w.memo -= old.size()
		}
		w.lookups[p] = l
		w.memo += n
	}
}

// size is the number of tree → entry pairs l's memo holds.
func (l *pathLookup) size() int {
	n := 0
	for _, m := range l.memo {
		n += len(m)
	}
	return n
}

// EventsBetween yields the events of the commits CommitsBetween(from, to) lists,
// parents before children, without pages: one walk, then one tree diff a commit.
// For a caller that folds a whole range (an index table's rebuild).
func (v *Vault) EventsBetween(ctx context.Context, from, to CommitID) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		var old, tip hash
		var err error
		if from != "" {
			if old, err = v.commitHash(from); err != nil {
				yield(Event{}, err)
				return
			}
		}
		if to == "" {
			tip = v.snap.Load().commit
		} else if tip, err = v.commitHash(to); err != nil {
			yield(Event{}, err)
			return
		}
		w, err := v.walkBetween(ctx, old, tip)
		if err != nil {
			yield(Event{}, fmt.Errorf("commits between %s and %s: %w", from.Short(), to.Short(), err))
			return
		}
		for _, id := range w.order {
			if err := ctx.Err(); err != nil {
				yield(Event{}, err)
				return
			}
			ev, err := v.eventOf(id, w.objs[id])
			if !yield(ev, err) || err != nil {
				return
			}
		}
	}
}
