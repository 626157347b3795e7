package vault

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/norn-vault/norn/repo"
)

// Clock is the time source of the periodic sync: real time (nil in
// LoopOptions), or one a test drives.
type Clock interface {
	Now() time.Time
	// After sends the time on the returned channel once d has passed.
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// LoopOptions configure the periodic sync (Syncer.Run).
type LoopOptions struct {
	// Interval is how often the default remote is synced (required, > 0).
	Interval time.Duration
	// MaxBackoff caps the wait after failed syncs, which doubles from Interval
	// with each failure in a row (default DefaultMaxBackoff; never below
	// Interval).
	MaxBackoff time.Duration
	// Settle is how long after the last of a burst of local writes a sync runs
	// (default DefaultSyncSettle); writes made while backing off after a failure
	// wait for the backoff.
	Settle time.Duration
	// Jitter spreads a wait so that machines started together do not sync in
	// step (default: ±10%, uniformly).
	Jitter func(time.Duration) time.Duration
	// Clock is the time source (nil: real time).
	Clock Clock
}

// The periodic sync's defaults.
const (
	DefaultMaxBackoff = time.Hour
	DefaultSyncSettle = 5 * time.Second
)

// LoopProgress is what the periodic sync is doing for one remote.
type LoopProgress struct {
	// Interval is the configured period; Wait the current one (longer while
	// backing off, before jitter).
	Interval string `json:"interval"`
	Wait     string `json:"wait"`
	// Syncing: a sync is running now.
	Syncing bool `json:"syncing"`
	// Next is when the next sync is due (a local write may bring it forward).
	Next time.Time `json:"next,omitzero"`
	// Failures counts the syncs that failed in a row (0 after a success).
	Failures int `json:"failures"`
}

// loopState is the loop's progress for one remote.
type loopState struct{ p LoopProgress }

// progress is a copy of the loop's progress for remote name (nil: no loop).
func (s *Syncer) progress(name string) *LoopProgress {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.loop[name]
	if !ok {
		return nil
	}
	p := st.p
	return &p
}

func (s *Syncer) setProgress(name string, edit func(*LoopProgress)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.loop[name]
	if !ok {
		st = &loopState{}
		s.loop[name] = st
	}
	edit(&st.p)
}

// Jitter is the default LoopOptions.Jitter: d moved by up to 10% either way.
func Jitter(d time.Duration) time.Duration {
	return d + time.Duration((rand.Float64()*2-1)*0.1*float64(d))
}

// Backoff is the wait before the next periodic sync after failures syncs failed
// in a row: interval, doubled per failure, at most max (never below interval).
func Backoff(interval, max time.Duration, failures int) time.Duration {
	max = maxDuration(max, interval)
	d := interval
	for range failures {
		if d >= max/2 {
			return max
		}
		d *= 2
	}
	return min(d, max)
}

func maxDuration(a, b time.Duration) time.Duration {
	if a > b {
		return a
	}
	return b
}

// Run syncs the default remote (DefaultRemote) at once, then every Interval
// (jittered, backing off after failures) and Settle after a burst of local
// writes, until ctx is done; it returns nil then. A failed sync is logged and
// recorded (Status), never the loop's end. The caller owns the goroutine that
// runs it and waits for it.
func (s *Syncer) Run(ctx context.Context, o LoopOptions) error {
	if o.Interval <= 0 {
		return invalidf("sync interval must be positive, not %s", o.Interval)
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = DefaultMaxBackoff
	}
	if o.Settle <= 0 {
		o.Settle = DefaultSyncSettle
	}
	if o.Jitter == nil {
		o.Jitter = Jitter
	}
	if o.Clock == nil {
		o.Clock = realClock{}
	}
	writes := make(chan struct{}, 1)
	cancel := s.v.Subscribe(func(ev repo.Event) {
		if ev.Source == repo.SourceLocal {
			select {
			case writes <- struct{}{}:
			default:
			}
		}
	})
	defer cancel()
	failures := 0
	for {
		name := s.loopOnce(ctx, o, &failures)
		wait := Backoff(o.Interval, o.MaxBackoff, failures)
		d := o.Jitter(wait)
		if name != "" {
			s.setProgress(name, func(p *LoopProgress) { p.Wait, p.Next = wait.String(), o.Clock.Now().Add(d) })
		}
		tick := o.Clock.After(d)
		var settle <-chan time.Time
	waiting:
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-tick:
				break waiting
			case <-settle:
				break waiting
			case <-writes:
				if failures == 0 {
					settle = o.Clock.After(o.Settle)
				}
			}
		}
	}
}

// loopOnce runs one periodic sync of the default remote and returns its name
// ("" when the vault has none yet).
func (s *Syncer) loopOnce(ctx context.Context, o LoopOptions, failures *int) string {
	log := s.o.Logger
	name, err := s.DefaultRemote()
	if err != nil || name == "" {
		if err != nil {
			log.Warn("periodic sync: list remotes", "err", err)
		}
		return ""
	}
	s.setProgress(name, func(p *LoopProgress) { p.Interval, p.Syncing = o.Interval.String(), true })
	start := o.Clock.Now()
	res, err := s.Sync(ctx, name)
	if ctx.Err() != nil {
		s.setProgress(name, func(p *LoopProgress) { p.Syncing = false })
		return name
	}
	if err != nil {
		*failures++
		log.Warn("periodic sync failed", "remote", name, "failures", *failures, "err", err)
	} else {
		*failures = 0
		log.Info("periodic sync", "remote", name, "outcome", res.Outcome, "head", res.Head.Short(),
			"rounds", res.Rounds, "conflicts", len(res.Conflicts), "duration", o.Clock.Now().Sub(start))
	}
	s.setProgress(name, func(p *LoopProgress) { p.Syncing, p.Failures = false, *failures })
	return name
}

// SyncsEnded returns how many syncs of this Syncer have ended and a channel
// closed when the next one ends: a caller waits for a sync it caused without
// timing it.
func (s *Syncer) SyncsEnded() (int, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.syncs, s.ended
}
