package feed_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/sync/feed"
)

// follower is a test client that follows the feed until it sees a commit
// changing done.md, dropping its connection now and then (drops > 0) and
// resuming with since.
type follower struct {
	env   *feedEnv
	drops int
	rng   *rand.Rand

	cursor repo.CommitID
	got    []repo.CommitID
}

func (f *follower) run(conn *wsClient) error {
	resumes := 0
	for {
		n := -1
		if resumes < f.drops {
			n = 1 + f.rng.IntN(40) // drop after n more messages
		}
		done, err := f.follow(conn, n)
		if err != nil || done {
			conn.conn.Close()
			return err
		}
		conn.conn.Close()
		resumes++
		if conn, err = f.env.tryDial(tokAll, feed.Query{Since: f.cursor}, nil); err != nil {
			return err
		}
		if m, err := conn.next(); err != nil || m.Type != feed.TypeHello {
			return fmt.Errorf("resume: %v %+v", err, m)
		}
	}
}

// follow reads up to n messages (n < 0: until done.md).
func (f *follower) follow(c *wsClient, n int) (done bool, err error) {
	for i := 0; n < 0 || i < n; i++ {
		m, err := c.next()
		if err != nil {
			return false, err
		}
		switch m.Type {
		case feed.TypeEvent:
			f.got = append(f.got, m.Commit)
			f.cursor = m.Commit
			if slices.ContainsFunc(m.Changes, func(c repo.EventChange) bool { return c.Path == "done.md" }) {
				return true, nil
			}
		case feed.TypeHead:
			if m.Head != f.cursor {
				return false, fmt.Errorf("head %s after event %s: a commit reached this client as a bare head", m.Head.Short(), f.cursor.Short())
			}
		default:
			return false, fmt.Errorf("unexpected %s message %+v", m.Type, m)
		}
	}
	return false, nil
}

// TestHub_ManyClientsManyWriters: 50 clients follow the feed while 8 writers
// commit about 200 times a second; every client, including those dropped at
// random and resumed with since, ends with every commit exactly once, in the
// order git lists them.
func TestHub_ManyClientsManyWriters(t *testing.T) {
	const clients, writers = 50, 8
	dur := 3 * time.Second
	if testing.Short() {
		dur = 500 * time.Millisecond
	}
	env := newEnv(t, nil, feed.Options{})
	start := env.v.Head()
	fs := make([]*follower, clients)
	conns := make([]*wsClient, clients)
	for i := range fs {
		fs[i] = &follower{env: env, rng: rand.New(rand.NewPCG(uint64(i), 27)), cursor: start}
		if i%4 == 0 {
			fs[i].drops = 3
		}
		conns[i] = env.dial(t, tokAll, feed.Query{})
		if h := conns[i].expect(t, feed.TypeHello); h.Head != start || h.Protocol != feed.Protocol || h.Principal != "owner" {
			t.Fatalf("hello %+v, want head %s", h, start)
		}
	}
	var wg sync.WaitGroup
	for i, f := range fs {
		wg.Go(func() {
			if err := f.run(conns[i]); err != nil {
				t.Errorf("client %d: %v", i, err)
			}
		})
	}
	// The writers: each paces itself to 200/writers commits a second.
	ctx, stop := context.WithTimeout(context.Background(), dur)
	defer stop()
	var ww sync.WaitGroup
	for w := range writers {
		ww.Go(func() {
			tick := time.NewTicker(time.Second * writers / 200)
			defer tick.Stop()
			for n := 0; ; n++ {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
				if _, err := env.v.Apply(context.Background(), repo.Tx{Author: repo.Author{Name: fmt.Sprintf("writer-%d", w)},
					Op: repo.OpWrite, Changes: []repo.Change{put(fmt.Sprintf("w%d/n%d.md", w, n), "# N\n")}}); err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
			}
		})
	}
	ww.Wait()
	write(t, env.v, put("done.md", "# Done\n"))
	wg.Wait()
	want := oracle(t, env.v, start)
	t.Logf("%d commits to %d clients", len(want), clients)
	if len(want) < 2*writers {
		t.Fatalf("only %d commits made", len(want))
	}
	for i, f := range fs {
		if !slices.Equal(f.got, want) {
			t.Errorf("client %d (drops %d) got %d commits, git lists %d; first difference at %d",
				i, f.drops, len(f.got), len(want), firstDiff(f.got, want))
		}
	}
	if st := env.hub.Stats(); st.Evicted != 0 {
		t.Errorf("%d clients cut off; none should be", st.Evicted)
	}
}

func firstDiff(a, b []repo.CommitID) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestHub_QueuedBeforeNew: events of commits made before the hub was created,
// still queued behind a slow observer when it subscribes, are not told to its
// clients (they are before the head it starts from); the next commit is, once.
func TestHub_QueuedBeforeNew(t *testing.T) {
	release := make(chan struct{})
	v := newVault(t, repo.Options{OnEvent: func(repo.Event) { <-release }})
	for i := range 5 {
		write(t, v, put(fmt.Sprintf("early%d.md", i), "# E\n"))
	}
	env := newEnv(t, v, feed.Options{})
	c := env.dial(t, tokAll, feed.Query{})
	c.expect(t, feed.TypeHello)
	close(release)
	id := write(t, v, put("late.md", "# L\n"))
	if m := c.expect(t, feed.TypeEvent); m.Commit != id {
		t.Fatalf("first event %s (%+v), want the commit made after the hub started %s", m.Commit.Short(), m.Changes, id.Short())
	}
	if st := env.hub.Stats(); st.Head != id {
		t.Fatalf("hub head %s, want %s", st.Head.Short(), id.Short())
	}
}

// TestHub_GitCLI: a commit made with the git CLI reaches clients as source
// external; a merge made by hand lists what it brought in.
func TestHub_GitCLI(t *testing.T) {
	env := newEnv(t, nil, feed.Options{})
	dir := env.v.Dir()
	c := env.dial(t, tokAll, feed.Query{})
	c.expect(t, feed.TypeHello)
	ctx := context.Background()

	gitWrite(t, dir, "d.md", "# D\n")
	gitCmd(t, dir, "add", "d.md")
	gitCmd(t, dir, "commit", "-q", "-m", "git adds d")
	if err := env.v.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	m := c.expect(t, feed.TypeEvent)
	if m.Source != repo.SourceExternal || len(m.Changes) != 1 || m.Changes[0].Path != "d.md" || m.Changes[0].Kind != repo.EventAdded {
		t.Fatalf("git commit reached the client as %+v", m)
	}
	if m.Author == nil || m.Author.Name != "T" {
		t.Fatalf("author %+v, want git's T", m.Author)
	}

	gitCmd(t, dir, "switch", "-q", "-c", "side")
	gitWrite(t, dir, "d.md", "# D\nfrom the side\n")
	gitWrite(t, dir, "s/side.md", "# Side\n")
	gitCmd(t, dir, "add", "-A")
	gitCmd(t, dir, "commit", "-q", "-m", "side work")
	gitCmd(t, dir, "switch", "-q", "main")
	gitWrite(t, dir, "e.md", "# E\n")
	gitCmd(t, dir, "add", "e.md")
	gitCmd(t, dir, "commit", "-q", "-m", "main adds e")
	gitCmd(t, dir, "merge", "-q", "--no-ff", "-m", "merge side", "side")
	if err := env.v.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	want := oracle(t, env.v, m.Commit)
	var merge feed.Message
	for i := range want {
		m := c.expect(t, feed.TypeEvent)
		if m.Commit != want[i] {
			t.Fatalf("event %d is %s, git lists %s", i, m.Commit.Short(), want[i].Short())
		}
		merge = m
	}
	if len(merge.Parents) != 2 {
		t.Fatalf("last event %+v is not the merge", merge)
	}
	var got []string
	for _, ch := range merge.Changes {
		got = append(got, string(ch.Kind)+" "+string(ch.Path))
	}
	if fmt.Sprint(got) != "[modified d.md added s/side.md]" {
		t.Fatalf("merge lists %v, want what it brought in", got)
	}
}
