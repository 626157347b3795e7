package feed

import (
	"context"
	"fmt"
	"time"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// MaxPollWait bounds how long one long poll may wait for a change.
const MaxPollWait = 60 * time.Second

// PollRequest is one long poll of the feed (Hub.Poll): the same query as the
// websocket's, the caller's privacy rule, and how long to wait.
type PollRequest struct {
	// Query is what the caller asks for; Since "" is "from the head now".
	Query Query
	// Visible is the caller's privacy rule, as Access.Visible (nil: everything).
	Visible func(p note.Path, rev repo.Revision) bool
	// Wait is how long to wait for a change when none is waiting (0: answer at
	// once; at most MaxPollWait).
	Wait time.Duration
	// Limit bounds the events of one answer (default and at most 256).
	Limit int
}

// Poll is one answer of a long poll.
type Poll struct {
	// Messages are the event messages after Since the caller may see, in commit
	// order, or one resync message. A commit whose every change is hidden or
	// filtered out sends no message: it only moves Cursor (the feed's head
	// message, folded in).
	Messages []Message
	// Cursor is the commit the caller is at now: the Since of its next poll.
	Cursor repo.CommitID
	// More: commits after Cursor were left for the next poll (Limit reached, or
	// the wait's queue overflowed); poll again at once.
	More bool
	// TimedOut: the wait ended with nothing to tell.
	TimedOut bool
}

// maxPollLimit is the most events one poll answers with.
const maxPollLimit = 256

// Poll answers a client that cannot hold a socket with what a websocket client
// with the same query would be sent after Since: the replay of the commits after
// it (at once, when one is visible), else the next visible commits as they land,
// waiting up to r.Wait. An unknown Since, or one no longer an ancestor of the
// head, is answered at once with a resync message naming the head, as the
// websocket is. The replay reaches the vault's head even when the hub has not
// published its last commits yet, so a caller that just made a commit can poll
// from it. Poll never makes a writer wait; it returns early when ctx ends or the hub closes
// (with what it has).
func (h *Hub) Poll(ctx context.Context, r PollRequest) (Poll, error) {
	if r.Wait < 0 || r.Wait > MaxPollWait {
		return Poll{}, badQueryf("wait %s: want 0 to %s", r.Wait, MaxPollWait)
	}
	if r.Limit <= 0 || r.Limit > maxPollLimit {
		r.Limit = maxPollLimit
	}
	c := newClient(h.opts.QueueSize)
	start, err := h.register(c)
	if err != nil {
		return Poll{}, err
	}
	defer h.unregister(c)
	// The answer is as of the vault's head, which may be ahead of the hub's
	// (events on their way): a caller that just made a commit finds it, and the
	// queued events up to that head are skipped.
	target := h.src.Head()
	p := &poller{h: h, r: &r, out: Poll{Cursor: target, Messages: []Message{}}}
	if target != start {
		p.skipTo = target
	}
	if since := r.Query.Since; since != "" && since != target {
		if err := p.place(ctx, since, target); err != nil || p.done() {
			return p.out, err
		}
	}
	if p.done() || r.Wait == 0 {
		p.out.TimedOut = len(p.out.Messages) == 0 && !p.out.More
		return p.out, nil
	}
	return p.wait(ctx, c)
}

// poller gathers one poll's answer.
type poller struct {
	h   *Hub
	r   *PollRequest
	out Poll
	// skipTo: queued events at or before this commit (the vault's head when the
	// poll began) were replayed already; "" once one after it was seen.
	skipTo repo.CommitID
}

// done reports whether the answer is ready without waiting.
func (p *poller) done() bool { return len(p.out.Messages) > 0 || p.out.More }

// add renders ev for the caller: an event message, or only a cursor move.
func (p *poller) add(ev *repo.Event) {
	m := render(ev, &p.r.Query, p.r.Visible)
	if m.Type == TypeEvent {
		p.out.Messages = append(p.out.Messages, m)
	}
	p.out.Cursor = ev.ID
}

// place starts the answer from since: its replay up to target, or a resync.
func (p *poller) place(ctx context.Context, since, target repo.CommitID) error {
	h := p.h
	detail, err := h.replayable(ctx, since, target)
	if err != nil {
		return err
	}
	if detail != "" {
		p.out.Messages = append(p.out.Messages, Message{Type: TypeResync, Head: target, Detail: detail})
		return nil
	}
	p.out.Cursor = since
	after := repo.CommitID("")
	for {
		evs, next, err := h.src.CommitsBetween(ctx, since, target, after, h.opts.ReplayPage)
		if err != nil {
			return fmt.Errorf("replay after %s: %w", since.Short(), err)
		}
		for i := range evs {
			if len(p.out.Messages) == p.r.Limit {
				p.out.More = true
				return nil
			}
			p.add(&evs[i])
		}
		if next == "" {
			return nil
		}
		after = next
	}
}

// wait takes the commits published after the poll registered, until one is
// visible, the wait ends, ctx ends or the hub closes.
func (p *poller) wait(ctx context.Context, c *client) (Poll, error) {
	timer := time.NewTimer(p.r.Wait)
	defer timer.Stop()
	var batch []Update
	for {
		select {
		case <-c.wake:
			var slow bool
			batch, slow = c.take(batch[:0])
			for _, u := range batch {
				if len(p.out.Messages) == p.r.Limit {
					p.out.More = true
					break
				}
				if u.Rewind != nil {
					// The branch moved back: what came before is void; the
					// caller reloads as of the new head and polls from it.
					p.skipTo = ""
					p.out.Messages = append(p.out.Messages[:0], rewindMessage(u.Rewind))
					p.out.Cursor = u.Rewind.To
					break
				}
				if p.skip(ctx, u.Event) {
					continue
				}
				p.add(u.Event)
			}
			clear(batch)
			if slow {
				// The queue overflowed: what follows Cursor is replayed by the next poll.
				p.out.More = true
			}
			if p.done() {
				return p.out, nil
			}
		case <-timer.C:
			p.out.TimedOut = true
			return p.out, nil
		case <-ctx.Done():
			return p.out, ctx.Err()
		case <-p.h.done:
			return p.out, nil
		}
	}
}

// skip reports whether e is at or before the head the poll began at (replayed
// already).
func (p *poller) skip(ctx context.Context, e *repo.Event) bool {
	if p.skipTo == "" {
		return false
	}
	if p.h.atOrBefore(ctx, e, p.skipTo) {
		if e.ID == p.skipTo {
			p.skipTo = ""
		}
		return true
	}
	p.skipTo = ""
	return false
}
