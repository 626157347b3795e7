package repo

import (
	"context"
	"log/slog"
	"slices"
	"sync"
)

// eventPage is how many commits of a range the dispatcher reads at a time.
const eventPage = 256

// pending is one move of the branch waiting for the dispatcher: from base to tip,
// with its events in hand (a batch of Norn's) or, when events is nil, to be read
// from git (commits another process made, or a queue collapsed by lag).
type pending struct {
	base, tip hash
	events    []Event
	// source, when set, overrides the Source of the commits read from git.
	source Source
}

// dispatcher fans commit events out to observers on one goroutine, in commit
// order, so that no observer runs on (or delays) the committer. The committer
// never blocks on it: its queue holds at most max moves of the branch; past that
// the queued moves collapse into one range read from git again when its turn comes
// (logged as lag), so an event is late but never lost.
type dispatcher struct {
	v   *Vault
	log *slog.Logger
	max int

	mu      sync.Mutex
	queue   []pending
	subs    map[int]func(Event)
	rewinds map[int]func(Rewind)
	nextID  int
	lagged  int // moves collapsed since the last log

	wake    chan struct{}
	closing chan struct{}
	done    chan struct{}
}

func newDispatcher(v *Vault, max int) *dispatcher {
	d := &dispatcher{v: v, log: v.log, max: max, subs: map[int]func(Event){}, rewinds: map[int]func(Rewind){},
		wake: make(chan struct{}, 1), closing: make(chan struct{}), done: make(chan struct{})}
	if v.opts.OnEvent != nil {
		d.subscribe(v.opts.OnEvent)
	}
	return d
}

// Subscribe registers fn to be told, on the vault's event goroutine, about every
// commit that lands on the branch from now on (Norn's own, another process's, the
// git CLI's), one Event at a time in commit order, after the search index hook
// (Options.OnCommit) has run. fn may block: writers are not delayed, and events
// queue behind it (see Options.MaxEventLag). fn must not wait for a write's
// event it is itself waiting to make. cancel removes fn; calling it again does
// nothing.
func (v *Vault) Subscribe(fn func(Event)) (cancel func()) {
	return v.events.subscribe(fn)
}

// Rewind says the branch moved to a commit that does not contain the one it was
// at: a `git reset` to an older commit, a rebase or an amend made by hand. The
// commits of From that To does not reach are gone from the branch's history.
type Rewind struct {
	From CommitID `json:"from"` // the tip before
	To   CommitID `json:"to"`   // the tip now
}

// SubscribeRewinds registers fn to be told, on the vault's event goroutine and in
// order with the events Subscribe gives, about every move of the branch that is
// not a fast-forward (a Rewind), found when the vault catches up with a branch
// another process moved. fn is called before the events of the commits the move
// brought in (a reset to an older commit brings none). cancel removes fn.
func (v *Vault) SubscribeRewinds(fn func(Rewind)) (cancel func()) {
	return v.events.subscribeRewinds(fn)
}

func (d *dispatcher) subscribe(fn func(Event)) func() {
	return register(d, d.subs, fn)
}

func (d *dispatcher) subscribeRewinds(fn func(Rewind)) func() {
	return register(d, d.rewinds, fn)
}

// register adds fn to subs (one of d's observer maps) and returns its cancel.
func register[F any](d *dispatcher, subs map[int]F, fn F) func() {
	d.mu.Lock()
	id := d.nextID
	d.nextID++
	subs[id] = fn
	d.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			d.mu.Lock()
			delete(subs, id)
			d.mu.Unlock()
		})
	}
}

// listening reports whether anyone observes events (else the committer skips
// building them).
func (d *dispatcher) listening() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.subs) > 0 || len(d.rewinds) > 0
}

// add queues a move of the branch; it never blocks.
func (d *dispatcher) add(p pending) {
	d.mu.Lock()
	d.queue = append(d.queue, p)
	if len(d.queue) > d.max {
		d.lagged += len(d.queue) - 1
		d.queue = []pending{{base: d.queue[0].base, tip: p.tip}}
	}
	d.mu.Unlock()
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// run delivers queued events until close, then what is still queued.
func (d *dispatcher) run() {
	defer close(d.done)
	for {
		select {
		case <-d.wake:
			d.drain()
		case <-d.closing:
			d.drain()
			return
		}
	}
}

func (d *dispatcher) stop() {
	close(d.closing)
	<-d.done
}

func (d *dispatcher) drain() {
	for {
		d.mu.Lock()
		if len(d.queue) == 0 {
			d.mu.Unlock()
			return
		}
		p := d.queue[0]
		d.queue = d.queue[1:]
		if d.lagged > 0 {
			d.log.Warn("commit events lag: observers are slow; queued branch moves read again from git", "moves", d.lagged)
			d.lagged = 0
		}
		d.mu.Unlock()
		if p.events != nil {
			for _, ev := range p.events {
				d.deliver(ev)
			}
			continue
		}
		d.replay(p.base, p.tip, p.source)
	}
}

// replay reads the commits between base and tip from git, a page at a time, and
// delivers them; when base is not an ancestor of tip (the branch was moved back
// or rewritten by hand) the rewind observers hear of it first.
func (d *dispatcher) replay(base, tip hash, source Source) {
	if !base.isZero() && base != tip {
		if ok, err := d.v.isAncestor(base, tip); err != nil {
			d.log.Error("place new branch tip", "err", err)
		} else if !ok {
			d.deliverRewind(Rewind{From: CommitID(base.String()), To: CommitID(tip.String())})
		}
	}
	w, err := d.v.walkBetween(context.Background(), base, tip)
	if err != nil {
		d.log.Error("read new commits", "err", err)
		return
	}
	for page := range slices.Chunk(w.order, eventPage) {
		evs := make([]Event, 0, len(page))
		for _, id := range page {
			ev, err := d.v.eventOf(id, w.objs[id])
			if err != nil {
				d.log.Error("read new commits", "commit", id.String(), "err", err)
				return
			}
			if source != "" {
				ev.Source = source
			}
			evs = append(evs, ev)
		}
		for _, ev := range evs {
			d.deliver(ev)
		}
	}
}

// deliverRewind calls every rewind observer, in the order they subscribed.
func (d *dispatcher) deliverRewind(rw Rewind) {
	for _, fn := range observers(d, d.rewinds) {
		fn(rw)
	}
}

// observers returns the functions of subs in the order they subscribed.
func observers[F any](d *dispatcher, subs map[int]F) []F {
	d.mu.Lock()
	defer d.mu.Unlock()
	ids := make([]int, 0, len(subs))
	for id := range subs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	fns := make([]F, len(ids))
	for i, id := range ids {
		fns[i] = subs[id]
	}
	return fns
}

// deliver calls every observer, in the order they subscribed.
func (d *dispatcher) deliver(ev Event) {
	for _, fn := range observers(d, d.subs) {
		fn(ev)
	}
}
