package repo

import (
	"container/heap"
	"context"
	"fmt"
	"slices"

	"github.com/norn-vault/norn/note"
)

// Source says who made a commit an Event reports.
type Source string

// The sources of a commit.
const (
	// SourceLocal: a commit Norn made (its committer is the vault's Committer),
	// in this process or in another one (a `norn` command beside a server); edits
	// a person made in the working tree and Norn committed are local too, with Op
	// external.
	SourceLocal Source = "local"
	// SourceExternal: a commit someone else made (the git CLI, another tool, a pull
	// made with git), found on the branch when it moved.
	SourceExternal Source = "external"
	// SourceSync: a commit Norn's sync took in from a remote (Vault.Advance), or
	// the merge commit it made of one (Vault.Merge) with the commits that merge
	// brought in.
	SourceSync Source = "sync"
)

// EventKind is what a commit did to one path.
type EventKind string

// The kinds of change an Event lists.
const (
	EventAdded    EventKind = "added"
	EventModified EventKind = "modified"
	EventArchived EventKind = "archived"
	EventRestored EventKind = "restored"
	// EventMoved: the note at From is now at Path (with the same or new bytes).
	EventMoved EventKind = "moved"
)

// EventChange is one path a commit changed, against the commit's first parent.
type EventChange struct {
	Kind EventKind `json:"kind"`
	Path note.Path `json:"path"`
	From note.Path `json:"from,omitempty"`
	// Revision is the new revision ("" for archived); OldRevision the one
	// replaced ("" for added and restored; for moved, From's).
	Revision    Revision `json:"revision,omitempty"`
	OldRevision Revision `json:"old_revision,omitempty"`
}

// Event is one commit on the vault's branch with what it changed. Observers
// (Options.OnEvent, Vault.Subscribe) get exactly one per commit, parents before
// children; a merge's Changes are what it brought in (against its first parent).
type Event struct {
	Commit
	Source  Source        `json:"source"`
	Changes []EventChange `json:"changes"`
}

// eventChanges turns what a transaction did (or a tree diff) into an event's
// changes, sorted by path. A diff knows no moves or restores: a removal and an
// addition of the same blob are a move; in a commit whose op is move, a lone
// removal and a lone addition are one too (the move rewrote the note's links);
// an addition in a restore commit is a restore.
func eventChanges(op Op, fcs []FileChange) []EventChange {
	out := make([]EventChange, 0, len(fcs))
	var removed, added []int // indexes into out, for a diff's moves
	for _, fc := range fcs {
		ec := EventChange{Path: fc.Path, From: fc.From, Revision: fc.Revision, OldRevision: fc.OldRevision}
		switch {
		case fc.Kind == Move:
			ec.Kind = EventMoved
		case fc.Kind == Restore:
			ec.Kind = EventRestored
		case fc.Kind == Archive:
			ec.Kind = EventArchived
			removed = append(removed, len(out))
		case fc.OldRevision != "":
			ec.Kind = EventModified
		case op == OpRestore:
			ec.Kind = EventRestored
		default:
			ec.Kind = EventAdded
			added = append(added, len(out))
		}
		out = append(out, ec)
	}
	drop := map[int]bool{}
	pair := func(r, a int) {
		out[a].Kind, out[a].From, out[a].OldRevision = EventMoved, out[r].Path, out[r].OldRevision
		drop[r] = true
	}
	paired := map[int]bool{}
	for _, r := range removed {
		for _, a := range added {
			if !paired[a] && out[a].Revision == out[r].OldRevision {
				paired[a] = true
				pair(r, a)
				break
			}
		}
	}
	if op == OpMove {
		var lr, la []int
		for _, r := range removed {
			if !drop[r] {
				lr = append(lr, r)
			}
		}
		for _, a := range added {
			if !paired[a] {
				la = append(la, a)
			}
		}
		if len(lr) == 1 && len(la) == 1 {
			pair(lr[0], la[0])
		}
	}
	kept := out[:0]
	for i, ec := range out {
		if !drop[i] {
			kept = append(kept, ec)
		}
	}
	slices.SortFunc(kept, func(a, b EventChange) int {
		if a.Path < b.Path {
			return -1
		}
		if a.Path > b.Path {
			return 1
		}
		return 0
	})
	return kept
}

// sourceOf classifies a commit read from git (see Source).
func (v *Vault) sourceOf(c *commitObj) Source {
	if c.committer == v.opts.Committer {
		return SourceLocal
	}
	return SourceExternal
}

// eventOf reads one commit's event: its changes against its first parent.
func (v *Vault) eventOf(id hash, c *commitObj) (Event, error) {
	var parentTree hash
	if len(c.parents) > 0 {
		pc, err := v.readCommit(c.parents[0])
		if err != nil {
			return Event{}, err
		}
		parentTree = pc.tree
	}
	var fcs []FileChange
	if err := v.diffTrees(parentTree, c.tree, "", &fcs); err != nil {
		return Event{}, fmt.Errorf("changes of %s: %w", id, err)
	}
	cm := toCommit(id, c)
	return Event{Commit: cm, Source: v.sourceOf(c), Changes: eventChanges(cm.Op, fcs)}, nil
}

// maxEventPage caps one page of CommitsBetween.
const maxEventPage = 1000

// CommitsBetween returns the commits reachable from to ("" for HEAD) and not from
// from ("" for none: the whole history), parents before children, each as an
// Event with its changes: the replay of what observers were told. It pages: up to
// limit events (default 100, at most 1000) after the commit after ("" for the
// first page); next is the id to pass as after for the following page, "" when
// this one is the last. An id that is not a commit's is ErrInvalid (malformed) or
// ErrNotFound; after not among the commits is ErrInvalid.
func (v *Vault) CommitsBetween(ctx context.Context, from, to, after CommitID, limit int) (events []Event, next CommitID, err error) {
	if limit <= 0 {
		limit = 100
	}
	limit = min(limit, maxEventPage)
	var old, tip hash
	if from != "" {
		if old, err = v.commitHash(from); err != nil {
			return nil, "", err
		}
	}
	if to == "" {
		tip = v.snap.Load().commit
	} else if tip, err = v.commitHash(to); err != nil {
		return nil, "", err
	}
	w, err := v.walkBetween(ctx, old, tip)
	if err != nil {
		return nil, "", fmt.Errorf("commits between %s and %s: %w", from.Short(), to.Short(), err)
	}
	start := 0
	if after != "" {
		a, ok := parseHash(string(after))
		i := slices.Index(w.order, a)
		if !ok || i < 0 {
			return nil, "", invalidf("after %q is not one of the commits between %s and %s", after, from.Short(), to.Short())
		}
		start = i + 1
	}
	end := min(start+limit, len(w.order))
	for _, id := range w.order[start:end] {
		ev, err := v.eventOf(id, w.objs[id])
		if err != nil {
			return nil, "", err
		}
		events = append(events, ev)
	}
	if end < len(w.order) {
		next = events[len(events)-1].ID
	}
	return events, next, nil
}

// CommitsOnly returns the commits reachable from to and not from from ("" for
// none), parents before children, at most limit of them (the oldest; limit <= 0:
// all) — CommitsBetween's commits without their changes, for a caller that
// only looks at some of them.
func (v *Vault) CommitsOnly(ctx context.Context, from, to CommitID, limit int) ([]Commit, error) {
	var old, tip hash
	var err error
	if from != "" {
		if old, err = v.commitHash(from); err != nil {
			return nil, err
		}
	}
	if tip, err = v.commitHash(to); err != nil {
		return nil, err
	}
	w, err := v.walkBetween(ctx, old, tip)
	if err != nil {
		return nil, fmt.Errorf("commits between %s and %s: %w", from.Short(), to.Short(), err)
	}
	order := w.order
	if limit > 0 && len(order) > limit {
		order = order[:limit]
	}
	out := make([]Commit, len(order))
	for i, id := range order {
		out[i] = toCommit(id, w.objs[id])
	}
	return out, nil
}

// commitHash checks that id names a commit of the repository.
func (v *Vault) commitHash(id CommitID) (hash, error) {
	h, ok := parseHash(string(id))
	if !ok {
		return zeroHash, invalidf("commit %q is not a 40-character hex id", id)
	}
	if _, err := v.readCommit(h); err != nil {
		return zeroHash, notFoundf("no commit %s", id)
	}
	return h, nil
}

// walk is the result of walkBetween: the commits in order, with their objects.
type walk struct {
	order []hash
	objs  map[hash]*commitObj
}

// Paint flags of walkBetween.
const (
	fromTip = 1 << iota
	fromOld
)

type walkItem struct {
	id hash
	c  *commitObj
	f  uint8 // the paint it was queued with
}

// walkQueue is a max-heap of commits by time, as git's revision walk keeps it.
// Of commits made in the same second (git's clock resolution), those painted from
// old come first: old's side then reaches a commit of the same second before it
// is taken for one reachable from tip alone.
type walkQueue []walkItem

func (q walkQueue) Len() int { return len(q) }
func (q walkQueue) Less(i, j int) bool {
	if !q[i].c.when.Equal(q[j].c.when) {
		return q[i].c.when.After(q[j].c.when)
	}
	return q[i].f&fromOld > q[j].f&fromOld
}
func (q walkQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *walkQueue) Push(x any)   { *q = append(*q, x.(walkItem)) }
func (q *walkQueue) Pop() any {
	old := *q
	it := old[len(old)-1]
	*q = old[:len(old)-1]
	return it
}

// walkBetween lists every commit reachable from tip and not from old (zero: none),
// following all parents, parents before children. Like git's `rev-list old..tip`
// it paints both sides newest first and stops once only old's side is left
// queued; a commit first painted from tip and later found under old (clocks out
// of order) is left out.
func (v *Vault) walkBetween(ctx context.Context, old, tip hash) (*walk, error) {
	w := &walk{objs: map[hash]*commitObj{}}
	if tip.isZero() || tip == old {
		return w, nil
	}
	flags := map[hash]uint8{}
	done := map[hash]uint8{}
	q := &walkQueue{}
	// interesting: some queued commit is painted from tip alone.
	interesting := func() bool {
		for _, it := range *q {
			if flags[it.id] == fromTip {
				return true
			}
		}
		return false
	}
	push := func(id hash, f uint8) error {
		c := w.objs[id]
		if c == nil {
			var err error
			if c, err = v.readCommit(id); err != nil {
				return err
			}
			w.objs[id] = c
		}
		flags[id] |= f
		heap.Push(q, walkItem{id, c, flags[id]})
		return nil
	}
	if err := push(tip, fromTip); err != nil {
		return nil, err
	}
	if !old.isZero() {
		if err := push(old, fromOld); err != nil {
			return nil, err
		}
	}
	for q.Len() > 0 && interesting() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		it := heap.Pop(q).(walkItem)
		f := flags[it.id]
		if done[it.id] == f {
			continue
		}
		done[it.id] = f
		for _, p := range it.c.parents {
			if flags[p]|f != flags[p] {
				if err := push(p, f); err != nil {
					return nil, err
				}
			}
		}
	}
	// Parents before children: a depth-first walk from tip over the commits painted
	// from tip alone, each emitted once its parents are.
	type frame struct {
		id hash
		i  int
	}
	emitted := map[hash]bool{}
	stack := []frame{{tip, 0}}
	if flags[tip] != fromTip {
		return w, nil
	}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		ps := w.objs[top.id].parents
		if top.i < len(ps) {
			p := ps[top.i]
			top.i++
			if flags[p] == fromTip && !emitted[p] {
				emitted[p] = true // on the stack: never pushed twice
				stack = append(stack, frame{p, 0})
			}
			continue
		}
		w.order = append(w.order, top.id)
		stack = stack[:len(stack)-1]
	}
	return w, nil
}
