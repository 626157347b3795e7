package feed_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/sync/feed"
)

func commitsOf(p feed.Poll) []repo.CommitID {
	var ids []repo.CommitID
	for _, m := range p.Messages {
		ids = append(ids, m.Commit)
	}
	return ids
}

// TestHub_PollAheadOfHub: a poll is answered as of the vault's head even while
// the hub has not published its last commits (a caller polling from the commit
// it just made gets no resync), and the queued events it replayed are not told
// again when they reach the hub.
func TestHub_PollAheadOfHub(t *testing.T) {
	hold := make(chan struct{})
	release := sync.OnceFunc(func() { close(hold) })
	v := newVault(t, repo.Options{OnEvent: func(repo.Event) { <-hold }})
	t.Cleanup(release) // before the vault closes, even when the test fails
	env := newEnv(t, v, feed.Options{})
	start := v.Head()
	var ids []repo.CommitID
	for i := range 3 {
		ids = append(ids, write(t, v, put(fmt.Sprintf("n%d.md", i), "# N\n")))
	}
	ctx := context.Background()
	if st := env.hub.Stats(); st.Head != start {
		t.Fatalf("hub head %s: the events were not held", st.Head.Short())
	}
	p, err := env.hub.Poll(ctx, feed.PollRequest{Query: feed.Query{Since: start}})
	if err != nil || !slices.Equal(commitsOf(p), ids) || p.Cursor != ids[2] || p.More || p.TimedOut {
		t.Fatalf("poll from the hub's head: %+v %v, want %v", p, err, ids)
	}
	p, err = env.hub.Poll(ctx, feed.PollRequest{Query: feed.Query{Since: ids[1]}})
	if err != nil || !slices.Equal(commitsOf(p), ids[2:]) || p.Messages[0].Type != feed.TypeEvent {
		t.Fatalf("poll from a commit the hub has not published: %+v %v", p, err)
	}
	p, err = env.hub.Poll(ctx, feed.PollRequest{Query: feed.Query{Since: start}, Limit: 2})
	if err != nil || !slices.Equal(commitsOf(p), ids[:2]) || !p.More || p.Cursor != ids[1] {
		t.Fatalf("poll with limit 2: %+v %v", p, err)
	}

	got := make(chan feed.Poll, 1)
	errc := make(chan error, 1)
	go func() {
		p, err := env.hub.Poll(ctx, feed.PollRequest{Query: feed.Query{Since: ids[2]}, Wait: feed.MaxPollWait})
		got <- p
		errc <- err
	}()
	for env.hub.Stats().Clients == 0 {
		time.Sleep(time.Millisecond)
	}
	release() // the held events reach the poll's queue: replayed already, skipped
	late := write(t, v, put("late.md", "# L\n"))
	p = <-got
	if err := <-errc; err != nil || !slices.Equal(commitsOf(p), []repo.CommitID{late}) || p.Cursor != late || p.TimedOut {
		t.Fatalf("live poll: %+v %v, want only %s", p, err, late.Short())
	}
}

func TestHub_PollBadWait(t *testing.T) {
	env := newEnv(t, nil, feed.Options{})
	for _, w := range []time.Duration{-time.Second, feed.MaxPollWait + time.Second} {
		if _, err := env.hub.Poll(context.Background(), feed.PollRequest{Wait: w}); !errors.Is(err, feed.ErrBadQuery) {
			t.Fatalf("wait %s: %v, want ErrBadQuery", w, err)
		}
	}
	if st := env.hub.Stats(); st.Clients != 0 {
		t.Fatalf("%d clients left registered", st.Clients)
	}
}

// TestHub_ResumeAheadOfHub: a websocket client resuming from a commit the vault
// has but the hub has not published yet (it just made it) is replayed what
// follows, not told to resync, and the held events are not told twice when they
// reach the hub.
func TestHub_ResumeAheadOfHub(t *testing.T) {
	hold := make(chan struct{})
	release := sync.OnceFunc(func() { close(hold) })
	v := newVault(t, repo.Options{OnEvent: func(repo.Event) { <-hold }})
	t.Cleanup(release)
	env := newEnv(t, v, feed.Options{})
	start := v.Head()
	var ids []repo.CommitID
	for i := range 3 {
		ids = append(ids, write(t, v, put(fmt.Sprintf("n%d.md", i), "# N\n")))
	}
	if st := env.hub.Stats(); st.Head != start {
		t.Fatalf("hub head %s: the events were not held", st.Head.Short())
	}
	c := env.dial(t, tokAll, feed.Query{Since: ids[1]})
	c.expect(t, feed.TypeHello)
	if m := c.must(t); m.Type != feed.TypeEvent || m.Commit != ids[2] {
		t.Fatalf("resume from a commit the hub has not published: %+v, want the event of %s", m, ids[2].Short())
	}
	release()
	late := write(t, v, put("late.md", "# L\n"))
	if m := c.must(t); m.Type != feed.TypeEvent || m.Commit != late {
		t.Fatalf("after the held events reached the hub: %+v, want only %s", m, late.Short())
	}
}

// TestHub_SyncArrivedCommit: a commit that came from another replica and that the
// vault took in (repo.Vault.Advance, what norn sync does) reaches the feed once,
// as source sync, with its changes.
func TestHub_SyncArrivedCommit(t *testing.T) {
	v := newVault(t, repo.Options{})
	env := newEnv(t, v, feed.Options{})
	c := env.dial(t, tokAll, feed.Query{})
	c.expect(t, feed.TypeHello)

	other := t.TempDir()
	gitCmd(t, other, "clone", "-q", v.Dir(), ".")
	gitWrite(t, other, "from-afar.md", "# From afar\n")
	gitCmd(t, other, "add", "from-afar.md")
	gitCmd(t, other, "commit", "-q", "-m", "from another replica")
	gitCmd(t, v.Dir(), "fetch", "-q", other, "HEAD")
	target := repo.CommitID(strings.TrimSpace(gitCmd(t, v.Dir(), "rev-parse", "FETCH_HEAD")))
	if _, err := v.Advance(context.Background(), v.Head(), target); err != nil {
		t.Fatal(err)
	}
	m := c.must(t)
	if m.Type != feed.TypeEvent || m.Commit != target || m.Source != repo.SourceSync ||
		len(m.Changes) != 1 || m.Changes[0].Path != "from-afar.md" || m.Changes[0].Kind != repo.EventAdded {
		t.Fatalf("the synced commit on the feed: %+v, want one added change from %s as source sync", m, target.Short())
	}
}
