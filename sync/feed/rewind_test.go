package feed_test

import (
	"context"
	"strings"
	"testing"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/sync/feed"
)

// TestHub_Rewind: a `git reset --hard` to an older commit made by hand in a
// served vault is noticed when the vault catches up (no commit follows it): the
// hub's head moves back, a connected client is sent a resync naming the new head
// and then the commits made on it, and a waiting long poll answers the same
// resync. A reset onto rewritten history (an amend made by hand) is a resync
// naming the new tip, whose commit is not told again as an event. The git CLI is
// the oracle for the commits.
func TestHub_Rewind(t *testing.T) {
	env := newEnv(t, nil, feed.Options{})
	v, dir, ctx := env.v, env.v.Dir(), context.Background()
	c := env.dial(t, tokAll, feed.Query{})
	c.expect(t, feed.TypeHello)
	a := write(t, v, put("a.md", "# A\n"))
	b := write(t, v, put("b.md", "# B\n"))
	for _, want := range []repo.CommitID{a, b} {
		if m := c.expect(t, feed.TypeEvent); m.Commit != want {
			t.Fatalf("event %s, want %s", m.Commit.Short(), want.Short())
		}
	}
	// A long poll from the head, waiting when the reset lands.
	polled := make(chan feed.Poll, 1)
	go func() {
		p, err := env.hub.Poll(ctx, feed.PollRequest{Query: feed.Query{Since: b}, Wait: feed.MaxPollWait})
		if err != nil {
			t.Error(err)
		}
		polled <- p
	}()

	gitCmd(t, dir, "reset", "-q", "--hard", string(a))
	if err := v.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if head := repo.CommitID(strings.TrimSpace(gitCmd(t, dir, "rev-parse", "HEAD"))); head != a || v.Head() != a {
		t.Fatalf("git says %s, the vault %s, want %s", head.Short(), v.Head().Short(), a.Short())
	}
	m := c.expect(t, feed.TypeResync)
	if m.Head != a || !strings.Contains(m.Detail, "rewritten") {
		t.Fatalf("resync %+v, want head %s", m, a.Short())
	}
	if st := env.hub.Stats(); st.Head != a {
		t.Fatalf("hub head %s after the reset, want %s", st.Head.Short(), a.Short())
	}
	p := <-polled
	if len(p.Messages) != 1 || p.Messages[0].Type != feed.TypeResync || p.Messages[0].Head != a || p.Cursor != a {
		t.Fatalf("waiting poll answered %+v, want a resync to %s", p, a.Short())
	}

	// Commits on the older head follow as events.
	d := write(t, v, put("d.md", "# D\n"))
	if m := c.expect(t, feed.TypeEvent); m.Commit != d || len(m.Parents) != 1 || m.Parents[0] != a {
		t.Fatalf("after the rewind: %+v, want %s on %s", m, d.Short(), a.Short())
	}

	// Rewritten history: d amended by hand.
	gitWrite(t, dir, "d.md", "# D amended\n")
	gitCmd(t, dir, "commit", "-q", "-a", "--amend", "-m", "d amended by hand")
	d2 := repo.CommitID(strings.TrimSpace(gitCmd(t, dir, "rev-parse", "HEAD")))
	if err := v.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if m := c.expect(t, feed.TypeResync); m.Head != d2 {
		t.Fatalf("after the amend: %+v, want a resync to %s", m, d2.Short())
	}
	e := write(t, v, put("e.md", "# E\n"))
	if m := c.expect(t, feed.TypeEvent); m.Commit != e {
		t.Fatalf("after the amend: %+v, want the next commit %s (the amended one is not told twice)", m, e.Short())
	}
	// A client resuming from a commit the rewind dropped is told to resync.
	r := env.dial(t, tokAll, feed.Query{Since: b})
	r.expect(t, feed.TypeHello)
	if m := r.expect(t, feed.TypeResync); m.Head != e {
		t.Fatalf("resume from a dropped commit: %+v", m)
	}
}
