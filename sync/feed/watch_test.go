package feed_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/sync/feed"
)

// TestWatch_Resumes: Watch follows the feed across a server restart (the hub
// closed under it, a new one in its place) while writes go on, and its callback
// sees every commit exactly once, in order.
func TestWatch_Resumes(t *testing.T) {
	v := newVault(t, repo.Options{})
	start := v.Head()
	var cur atomic.Pointer[feed.Handler]
	newHub := func() *feed.Hub {
		hub := feed.New(v, feed.Options{})
		cur.Store(feed.NewHandler(hub, feed.HandlerOptions{Authenticate: authenticate(v), CheckOrigin: checkOrigin}))
		return hub
	}
	hub := newHub()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { cur.Load().ServeHTTP(w, r) }))
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var got []repo.CommitID
	restarted := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- feed.Watch(ctx, feed.WatchOptions{URL: srv.URL, Token: tokAll, Query: feed.Query{Since: start},
			MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond}, func(m feed.Message) error {
			if m.Type != feed.TypeEvent {
				return nil
			}
			mu.Lock()
			got = append(got, m.Commit)
			n := len(got)
			mu.Unlock()
			if n == 10 {
				close(restarted) // the writer restarts the server now
			}
			if slices.ContainsFunc(m.Changes, func(c repo.EventChange) bool { return c.Path == "done.md" }) {
				return errDone
			}
			return nil
		})
	}()
	for i := range 40 {
		write(t, v, put(fmt.Sprintf("n%d.md", i), "# N\n"))
		if i == 20 {
			<-restarted
			hub.Close()
			hub = newHub()
		}
	}
	write(t, v, put("done.md", "# D\n"))
	if err := <-done; !errors.Is(err, errDone) {
		t.Fatalf("Watch ended with %v", err)
	}
	hub.Close()
	if want := oracle(t, v, start); !slices.Equal(got, want) {
		t.Fatalf("watched %d commits, git lists %d (first difference at %d)", len(got), len(want), firstDiff(got, want))
	}
}

var errDone = errors.New("done")

// TestWatch_Refused: a refusal (bad token) ends Watch with ErrRefused instead
// of retrying forever.
func TestWatch_Refused(t *testing.T) {
	env := newEnv(t, nil, feed.Options{})
	err := feed.Watch(context.Background(), feed.WatchOptions{URL: env.srv.URL, Token: "nope", MinBackoff: time.Millisecond},
		func(feed.Message) error { return nil })
	if !errors.Is(err, feed.ErrRefused) {
		t.Fatalf("Watch with a bad token: %v, want ErrRefused", err)
	}
}
