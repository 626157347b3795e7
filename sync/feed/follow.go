package feed

import (
	"context"
	"fmt"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// Follow calls fn, on the calling goroutine, with every update the hub publishes
// from now on — the commits the websocket clients and long polls are told, in the
// same order, and the rewinds they are told as resyncs — until ctx ends (nil) or
// the hub closes (ErrClosed). It is Follower and Run in one call.
func (h *Hub) Follow(ctx context.Context, fn func(Update)) error {
	f, err := h.Follower()
	if err != nil {
		return err
	}
	return f.Run(ctx, fn)
}

// Follower is a client of the hub inside the process (MCP resource
// notifications): what it gets is every commit event, unfiltered, and every
// rewind; the caller applies its own privacy rule (Render). Like any client it
// never makes a writer wait; one that falls more than Options.QueueSize updates
// behind is not cut off but catches up from git (the commits it missed, or a
// rewind when the branch no longer contains the last one it got), so it is told
// every commit exactly once.
type Follower struct {
	h      *Hub
	c      *client
	cursor repo.CommitID
}

// Follower registers a follower: every update published from this moment on
// reaches it. The caller must call Run once (Hub.Close waits for it to return).
func (h *Hub) Follower() (*Follower, error) {
	c := newClient(h.opts.QueueSize)
	start, err := h.register(c)
	if err != nil {
		return nil, err
	}
	return &Follower{h: h, c: c, cursor: start}, nil
}

// Run calls fn, on the calling goroutine, with the follower's updates in order
// until ctx ends (nil) or the hub closes (ErrClosed), then unregisters it.
func (f *Follower) Run(ctx context.Context, fn func(Update)) error {
	h := f.h
	defer func() {
		if f.c != nil {
			h.unregister(f.c)
		}
	}()
	var batch []Update
	for {
		select {
		case <-f.c.wake:
			var slow bool
			batch, slow = f.c.take(batch[:0])
			for _, u := range batch {
				fn(u)
				f.cursor = u.cursor()
			}
			clear(batch)
			if !slow {
				continue
			}
			// Fell behind: take a fresh queue, then tell what was missed up
			// to the hub's head when it was taken (every later update is in
			// the new queue).
			h.unregister(f.c)
			f.c = newClient(h.opts.QueueSize)
			start, err := h.register(f.c)
			if err != nil {
				f.c = nil
				return err
			}
			if f.cursor, err = h.catchUp(ctx, f.cursor, start, fn); err != nil {
				return err
			}
		case <-ctx.Done():
			return nil
		case <-h.done:
			return ErrClosed
		}
	}
}

// catchUp tells fn what happened between from and to: the commits after from
// up to to, or a rewind to to when from is not one of its ancestors. It returns
// the cursor it leaves fn at.
func (h *Hub) catchUp(ctx context.Context, from, to repo.CommitID, fn func(Update)) (repo.CommitID, error) {
	if from == to {
		return to, nil
	}
	if detail, err := h.replayable(ctx, from, to); err != nil {
		return from, err
	} else if detail != "" {
		fn(Update{Rewind: &repo.Rewind{From: from, To: to}})
		return to, nil
	}
	after := repo.CommitID("")
	for {
		evs, next, err := h.src.CommitsBetween(ctx, from, to, after, h.opts.ReplayPage)
		if err != nil {
			return from, fmt.Errorf("catch up after %s: %w", from.Short(), err)
		}
		for i := range evs {
			fn(Update{Event: &evs[i]})
		}
		if next == "" {
			return to, nil
		}
		after = next
	}
}

// Render is what a client that sees only what visible allows (nil: everything)
// is told of ev: an event message with the changes it may see, or a head message
// when it may see none (see docs/feed.md). It is the rule the websocket and the
// long poll apply, for subscribers inside the process (Follow).
func Render(ev *repo.Event, visible func(note.Path, repo.Revision) bool) Message {
	return render(ev, &Query{}, visible)
}
