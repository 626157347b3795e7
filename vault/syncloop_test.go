package vault_test

import (
	"context"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/norn-vault/norn/errcode"
	"github.com/norn-vault/norn/internal/testvault"
	"github.com/norn-vault/norn/vault"
)

// fakeClock is a Clock the test drives: every After is handed to the test
// (waits), which fires it when it chooses.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	waits chan fakeWait
}

type fakeWait struct {
	d  time.Duration
	ch chan time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC), waits: make(chan fakeWait, 100)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	w := fakeWait{d: d, ch: make(chan time.Time, 1)}
	c.waits <- w
	return w.ch
}

// next is the loop's next wait (a hang guard, not a timing assertion).
func (c *fakeClock) next(t *testing.T) fakeWait {
	t.Helper()
	select {
	case w := <-c.waits:
		return w
	case <-time.After(60 * time.Second):
		t.Fatal("the loop never waited")
		return fakeWait{}
	}
}

// fire lets w's time pass and waits until the sync it starts has ended.
func (c *fakeClock) fire(t *testing.T, s *vault.Syncer, w fakeWait) {
	t.Helper()
	_, ended := s.SyncsEnded()
	c.mu.Lock()
	c.now = c.now.Add(w.d)
	now := c.now
	c.mu.Unlock()
	w.ch <- now
	select {
	case <-ended:
	case <-time.After(60 * time.Second):
		t.Fatal("no sync ended")
	}
}

// runLoop runs s's periodic sync until the test ends.
func runLoop(t *testing.T, s *vault.Syncer, o vault.LoopOptions) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := s.Run(ctx, o); err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	t.Cleanup(func() { cancel(); wg.Wait() })
}

func noJitter(d time.Duration) time.Duration { return d }

// TestSyncer_RunBacksOff: a loop whose remote is unreachable waits twice as
// long after each failure, up to MaxBackoff, shows it in Status, and goes back
// to the interval once a sync succeeds.
func TestSyncer_RunBacksOff(t *testing.T) {
	f := newSyncFixture(t, map[string]string{"pub.md": "# Pub\n"})
	missing := f.bare + ".missing"
	if err := f.rs.Remove("origin"); err != nil {
		t.Fatal(err)
	}
	if err := f.rs.Add("origin", missing); err != nil {
		t.Fatal(err)
	}
	clk := newFakeClock()
	const every = time.Minute
	runLoop(t, f.s, vault.LoopOptions{Interval: every, MaxBackoff: 5 * every, Clock: clk, Jitter: noJitter})
	for i, want := range []time.Duration{2 * every, 4 * every, 5 * every, 5 * every} {
		w := clk.next(t)
		if w.d != want {
			t.Fatalf("wait %d: %s, want %s", i+1, w.d, want)
		}
		st := f.status(t, true)
		if st.Loop == nil || st.Loop.Failures != i+1 || st.Loop.Wait != want.String() || st.LastErrorCode != string(errcode.RemoteUnreachable) || st.Loop.Syncing {
			t.Fatalf("status after failure %d: %+v %+v", i+1, st, st.Loop)
		}
		if i < 3 {
			clk.fire(t, f.s, w)
			continue
		}
		// The remote comes back: the next sync pushes, and the loop waits the interval.
		if out, err := exec.Command("git", "init", "-q", "--bare", "-b", "main", missing).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
		clk.fire(t, f.s, w)
	}
	if w := clk.next(t); w.d != every {
		t.Fatalf("wait after a success: %s, want %s", w.d, every)
	}
	st := f.status(t, true)
	if st.Loop.Failures != 0 || st.LastError != "" || st.Ahead != 0 {
		t.Fatalf("status after the success: %+v %+v", st, st.Loop)
	}
	if tip, _ := exec.Command("git", "-C", missing, "rev-parse", "main").Output(); string(tip[:40]) != string(f.v.Head()) {
		t.Fatalf("remote at %s, vault at %s", tip, f.v.Head())
	}
}

// TestSyncer_RunAfterWrites: local writes arm a sync Settle after the last of
// them; it pushes them all.
func TestSyncer_RunAfterWrites(t *testing.T) {
	f := newSyncFixture(t, map[string]string{"pub.md": "# Pub\n"})
	clk := newFakeClock()
	const every, settle = time.Hour, 3 * time.Second
	runLoop(t, f.s, vault.LoopOptions{Interval: every, Settle: settle, Clock: clk, Jitter: noJitter})
	if w := clk.next(t); w.d != every || f.remoteTip(t) != f.v.Head() {
		t.Fatalf("after the first sync: wait %s, remote %s, head %s", w.d, f.remoteTip(t), f.v.Head())
	}
	var last fakeWait
	for _, p := range []string{"one.md", "two.md"} {
		if err := testvault.Write(f.v, p, "# "+p+"\n"); err != nil {
			t.Fatal(err)
		}
		if last = clk.next(t); last.d != settle {
			t.Fatalf("after writing %s: wait %s, want %s", p, last.d, settle)
		}
	}
	if f.remoteTip(t) == f.v.Head() {
		t.Fatal("pushed before the writes settled")
	}
	clk.fire(t, f.s, last)
	if f.remoteTip(t) != f.v.Head() {
		t.Fatalf("after the writes settled: remote %s, head %s", f.remoteTip(t), f.v.Head())
	}
	if w := clk.next(t); w.d != every {
		t.Fatalf("wait after the sync: %s, want %s", w.d, every)
	}
}

// TestBackoff and TestJitter: the pure parts of the loop's timing.
func TestBackoff(t *testing.T) {
	for _, tt := range []struct {
		interval, max time.Duration
		failures      int
		want          time.Duration
	}{
		{time.Minute, time.Hour, 0, time.Minute},
		{time.Minute, time.Hour, 1, 2 * time.Minute},
		{time.Minute, time.Hour, 5, 32 * time.Minute},
		{time.Minute, time.Hour, 6, time.Hour},
		{time.Minute, time.Hour, 1000, time.Hour},
		{2 * time.Hour, time.Hour, 3, 2 * time.Hour}, // never below the interval
	} {
		if got := vault.Backoff(tt.interval, tt.max, tt.failures); got != tt.want {
			t.Errorf("Backoff(%s, %s, %d) = %s, want %s", tt.interval, tt.max, tt.failures, got, tt.want)
		}
	}
	for range 1000 {
		if d := vault.Jitter(time.Minute); d < 54*time.Second || d > 66*time.Second {
			t.Fatalf("Jitter(1m) = %s, beyond 10%%", d)
		}
	}
}
