package repo_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/norn-vault/norn/repo"
)

// TestVault_SubscribeRewinds: a `git reset --hard` to an older commit made by hand
// is told to rewind observers once the vault catches up (it brings no event); a
// reset onto rewritten history (an amend made by hand) is told before the event
// of the commit it brought in; fast-forwards, Norn's own and the git CLI's, are
// never rewinds. The git CLI is the oracle for the commits.
func TestVault_SubscribeRewinds(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	var mu sync.Mutex
	var seen []string // "rewind FROM TO" and "event ID", in delivery order
	v.SubscribeRewinds(func(rw repo.Rewind) {
		mu.Lock()
		seen = append(seen, "rewind "+string(rw.From)+" "+string(rw.To))
		mu.Unlock()
	})
	evs := collectEvents(v)
	v.Subscribe(func(ev repo.Event) {
		mu.Lock()
		seen = append(seen, "event "+string(ev.ID))
		mu.Unlock()
	})
	a := write(t, v, put("a.md", "# A\n", "")).Commit
	b := write(t, v, put("b.md", "# B\n", "")).Commit
	gitWrite(t, v.Dir(), "c.md", "# C\n")
	gitCmd(t, v.Dir(), "add", "c.md")
	gitCmd(t, v.Dir(), "commit", "-q", "-m", "c by hand")
	c := repo.CommitID(strings.TrimSpace(gitCmd(t, v.Dir(), "rev-parse", "HEAD")))
	if err := v.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	evs.wait(t, 3)

	// Back to a, by hand.
	gitCmd(t, v.Dir(), "reset", "-q", "--hard", string(a))
	if err := v.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if v.Head() != a {
		t.Fatalf("head %s after the reset, want %s", v.Head(), a)
	}
	// Onto rewritten history: b amended by hand (a sibling of b).
	gitCmd(t, v.Dir(), "reset", "-q", "--hard", string(b))
	if err := v.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	gitWrite(t, v.Dir(), "b.md", "# B amended\n")
	gitCmd(t, v.Dir(), "commit", "-q", "-a", "--amend", "-m", "b amended by hand")
	b2 := repo.CommitID(strings.TrimSpace(gitCmd(t, v.Dir(), "rev-parse", "HEAD")))
	if err := v.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	// A Norn write on top: a fast-forward again.
	d := write(t, v, put("d.md", "# D\n", "")).Commit
	evs.wait(t, 6)
	mu.Lock()
	got := strings.Join(seen, "\n")
	mu.Unlock()
	// The reset back to b is a fast-forward from a (b's parent): only the
	// amend rewrites.
	want := strings.Join([]string{"event " + string(a), "event " + string(b), "event " + string(c),
		"rewind " + string(c) + " " + string(a),
		"event " + string(b),
		"rewind " + string(b) + " " + string(b2), "event " + string(b2),
		"event " + string(d)}, "\n")
	if got != want {
		t.Fatalf("delivered:\n%s\nwant:\n%s", got, want)
	}
}
