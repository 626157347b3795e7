package feed_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/sync/feed"
)

// TestHub_FollowerFallsBehind: a follower whose callback blocks while commits
// land overflows its queue (QueueSize 2) but is not cut off: it catches up from
// git and is told every commit exactly once, in the order git gives (the git CLI
// as oracle); the websocket's rendering of them is feed.Render's. Run returns
// ErrClosed when the hub closes.
func TestHub_FollowerFallsBehind(t *testing.T) {
	env := newEnv(t, nil, feed.Options{QueueSize: 2})
	v := env.v
	start := v.Head()
	f, err := env.hub.Follower()
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	var mu sync.Mutex
	var got []repo.CommitID
	seen := make(chan struct{}, 64)
	done := make(chan error, 1)
	go func() {
		first := true
		done <- f.Run(context.Background(), func(u feed.Update) {
			if first {
				first = false
				<-release // stalls while the other commits land
			}
			if u.Event == nil {
				t.Errorf("a rewind %+v, want only events", u.Rewind)
				return
			}
			if m := feed.Render(u.Event, nil); m.Type != feed.TypeEvent || m.Commit != u.Event.ID {
				t.Errorf("rendered %+v", m)
			}
			mu.Lock()
			got = append(got, u.Event.ID)
			mu.Unlock()
			seen <- struct{}{}
		})
	}()
	const n = 10
	for i := range n {
		write(t, v, put(fmt.Sprintf("n%d.md", i), fmt.Sprintf("# N%d\n", i)))
	}
	close(release)
	for range n {
		<-seen
	}
	want := oracle(t, v, start)
	if st := env.hub.Stats(); st.Evicted == 0 {
		t.Fatal("the follower never overflowed: the test proves nothing")
	}
	env.hub.Close()
	if err := <-done; !errors.Is(err, feed.ErrClosed) {
		t.Fatalf("Run after Close: %v", err)
	}
	// Run has returned: nothing more is told.
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(got, want) {
		t.Fatalf("followed %v\nwant %v", got, want)
	}
}
