package feed

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/norn-vault/norn/repo"
)

// Source is the vault as the hub sees it: its events, its head and its history
// (*repo.Vault is one).
type Source interface {
	// Subscribe registers fn for every commit landing on the branch from now on.
	Subscribe(fn func(repo.Event)) (cancel func())
	// SubscribeRewinds registers fn for every move of the branch that is not a
	// fast-forward (a `git reset` to an older commit made by hand), in order
	// with the events (see repo.Vault.SubscribeRewinds).
	SubscribeRewinds(fn func(repo.Rewind)) (cancel func())
	// Head is the branch's current commit.
	Head() repo.CommitID
	// CommitsBetween pages through the commits reachable from to and not from
	// from, parents first (see repo.Vault.CommitsBetween).
	CommitsBetween(ctx context.Context, from, to, after repo.CommitID, limit int) ([]repo.Event, repo.CommitID, error)
}

// Options tune a Hub. Zero values take the defaults.
type Options struct {
	// QueueSize bounds the commits queued for one client; a client with more
	// waiting is cut off (default 4096: bursts of writes must not evict a
	// healthy client).
	QueueSize int
	// PingInterval is how often a connection is pinged (default 30 s); a client
	// that answers no ping for PongWait (default 2 × PingInterval) is dropped.
	PingInterval, PongWait time.Duration
	// HeadInterval is how often an idle client is told its cursor (default 30 s).
	HeadInterval time.Duration
	// WriteTimeout bounds one frame's write (default 10 s).
	WriteTimeout time.Duration
	// ReplayPage is how many commits a replay reads at a time (default 256).
	ReplayPage int
	Logger     *slog.Logger
}

func (o *Options) defaults() {
	if o.QueueSize <= 0 {
		o.QueueSize = 4096
	}
	if o.PingInterval <= 0 {
		o.PingInterval = 30 * time.Second
	}
	if o.PongWait <= 0 {
		o.PongWait = 2 * o.PingInterval
	}
	if o.HeadInterval <= 0 {
		o.HeadInterval = 30 * time.Second
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = 10 * time.Second
	}
	if o.ReplayPage <= 0 {
		o.ReplayPage = 256
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
}

// Hub fans commit events out to the feed's clients. Publish (which New
// subscribes to the source) never waits for a client: each has a bounded queue,
// and one that overflows is cut off with a resume hint.
type Hub struct {
	src  Source
	opts Options
	log  *slog.Logger

	mu      sync.Mutex
	clients map[*client]struct{}
	head    repo.CommitID // the last commit published (or the head at New)
	settled bool          // an event after the head at New has been published
	closed  bool
	cancel  func()

	conns   sync.WaitGroup // connections being served
	done    chan struct{}  // closed by Close
	evicted atomic.Uint64
}

// New starts a hub over src: it subscribes to src's events, which it delivers to
// clients from src's head at this moment on. Close stops it.
func New(src Source, opts Options) *Hub {
	opts.defaults()
	h := &Hub{src: src, opts: opts, log: opts.Logger, clients: map[*client]struct{}{}, done: make(chan struct{})}
	h.mu.Lock()
	defer h.mu.Unlock()
	// Subscribed first, then the head read: an event for a commit at or before
	// that head still queued in the source is dropped by Publish (see settle), so
	// no commit is missed and none told twice.
	cancelEvents, cancelRewinds := src.Subscribe(h.Publish), src.SubscribeRewinds(h.rewind)
	h.cancel = func() { cancelEvents(); cancelRewinds() }
	h.head = src.Head()
	return h
}

// Update is one thing the hub tells its clients, in order: a commit (Event), or
// that the branch was moved back or onto rewritten history by hand (Rewind),
// after which what follows is relative to Rewind.To.
type Update struct {
	Event  *repo.Event
	Rewind *repo.Rewind
}

// cursor is the commit the update leaves a client at.
func (u Update) cursor() repo.CommitID {
	if u.Rewind != nil {
		return u.Rewind.To
	}
	return u.Event.ID
}

// Stats are the hub's counters.
type Stats struct {
	Clients int           // connected clients
	Evicted uint64        // clients cut off for falling behind (and followers that overflowed and caught up), since New
	Head    repo.CommitID // the last commit published
}

// Stats returns the hub's counters.
func (h *Hub) Stats() Stats {
	h.mu.Lock()
	defer h.mu.Unlock()
	return Stats{Clients: len(h.clients), Evicted: h.evicted.Load(), Head: h.head}
}

// Publish hands one commit event to every client's queue. It never blocks on a
// client; events must come in commit order (as repo.Vault.Subscribe gives them).
func (h *Hub) Publish(ev repo.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || !h.settle(ev) {
		return
	}
	h.head = ev.ID
	h.pushAll(Update{Event: &ev})
}

// rewind tells every client that the branch moved from rw.From to rw.To, which
// does not contain it (history rewritten by hand): each gets a resync naming
// rw.To, the hub's head becomes rw.To, and the events that follow for commits
// rw.To already contains are dropped (see settle), so none is told twice.
func (h *Hub) rewind(rw repo.Rewind) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.log.Info("feed: the branch was moved back or rewritten; clients resync", "from", rw.From.Short(), "to", rw.To.Short())
	h.head, h.settled = rw.To, false
	h.pushAll(Update{Rewind: &rw})
}

// pushAll queues u for every client. The caller holds h.mu.
func (h *Hub) pushAll(u Update) {
	for c := range h.clients {
		if c.push(u) {
			h.evicted.Add(1)
		}
	}
}

// settle reports whether ev is new to the hub: until one event after the head
// read at New has been published, an event whose commit that head already
// contains is dropped (it landed before New and was still queued in the source).
func (h *Hub) settle(ev repo.Event) bool {
	switch {
	case h.settled:
		return true
	case ev.ID == h.head:
		h.settled = true // the head itself: everything after it is new
		return false
	case h.head == "":
		h.settled = true
		return true
	}
	// ev is at or before head iff nothing is reachable from ev but not from head.
	newer, _, err := h.src.CommitsBetween(context.Background(), h.head, ev.ID, "", 1)
	if err != nil {
		h.log.Warn("feed: place first event", "commit", ev.ID.Short(), "err", err)
	}
	if err != nil || len(newer) > 0 {
		h.settled = true
		return true
	}
	return false
}

// register adds a client; start is the last commit published before it, the
// end of its replay: every later event reaches its queue.
func (h *Hub) register(c *client) (start repo.CommitID, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return "", ErrClosed
	}
	h.clients[c] = struct{}{}
	h.conns.Add(1)
	return h.head, nil
}

func (h *Hub) unregister(c *client) {
	h.mu.Lock()
	delete(h.clients, c)
	h.mu.Unlock()
	h.conns.Done()
}

// Close unsubscribes the hub, closes every connection (code 1001) and waits for
// them to end. Later connections are refused.
func (h *Hub) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	cancel := h.cancel
	h.mu.Unlock()
	cancel()
	close(h.done)
	h.conns.Wait()
	return nil
}

// client is one connection's queue: Publish appends, the connection's writer
// takes everything queued at once.
type client struct {
	max  int
	wake chan struct{} // capacity 1: something was queued

	mu   sync.Mutex
	q    []Update
	slow bool // overflowed: to be cut off; nothing more is queued
}

func newClient(max int) *client {
	return &client{max: max, wake: make(chan struct{}, 1)}
}

// push queues u and reports whether that made the client overflow.
func (c *client) push(u Update) (overflowed bool) {
	c.mu.Lock()
	switch {
	case c.slow:
	case len(c.q) >= c.max:
		c.slow, c.q, overflowed = true, nil, true
	default:
		c.q = append(c.q, u)
	}
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return overflowed
}

// take returns what is queued (appending to buf) and whether the client
// overflowed.
func (c *client) take(buf []Update) ([]Update, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	buf = append(buf, c.q...)
	clear(c.q)
	c.q = c.q[:0]
	return buf, c.slow
}

func (c *client) overflowed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.slow
}
