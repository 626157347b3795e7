package repo_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/norn-vault/norn/repo"
)

// eventLog collects the events a vault delivers.
type eventLog struct {
	mu   sync.Mutex
	cond *sync.Cond
	evs  []repo.Event
}

func newEventLog() *eventLog {
	l := &eventLog{}
	l.cond = sync.NewCond(&l.mu)
	return l
}

func (l *eventLog) add(ev repo.Event) {
	l.mu.Lock()
	l.evs = append(l.evs, ev)
	l.mu.Unlock()
	l.cond.Broadcast()
}

// collectEvents subscribes to v's events from now on.
func collectEvents(v *repo.Vault) *eventLog {
	l := newEventLog()
	v.Subscribe(l.add)
	return l
}

// wait blocks until n events arrived and returns them (the test's deadline bounds
// it); more than n is a failure once they are there.
func (l *eventLog) wait(t testing.TB, n int) []repo.Event {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	for len(l.evs) < n {
		l.cond.Wait()
	}
	return slices.Clone(l.evs)
}

func gitWrite(t testing.TB, dir, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, p), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// changesString renders an event's changes compactly: "kind path[<from]".
func changesString(ev repo.Event) string {
	var parts []string
	for _, c := range ev.Changes {
		s := string(c.Kind) + " " + string(c.Path)
		if c.From != "" {
			s += "<" + string(c.From)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// TestVault_Events: for a mix of Norn writes, a move, an archive, edits Norn
// commits from the working tree, a `git commit` and a `git merge` made with the git
// CLI, observers get exactly one event per commit, parents before children, each
// with the right source and changes (the git CLI as oracle); and CommitsBetween
// replays the same events, page by page.
func TestVault_Events(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	dir := v.Dir()
	before := v.Head()
	log := collectEvents(v)

	write(t, v, put("a.md", "# A\n", ""), put("b.md", "# B\n", ""))
	if _, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "mover"}, Op: repo.OpMove,
		Changes: []repo.Change{{Kind: repo.Move, From: "a.md", Path: "c.md"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "archivist"}, Op: repo.OpArchive, Reason: repo.ReasonArchived,
		Changes: []repo.Change{{Kind: repo.Archive, Path: "b.md"}}}); err != nil {
		t.Fatal(err)
	}
	gitWrite(t, dir, "c.md", "# A\nedited by hand\n")
	if res, err := v.CommitExternal(ctx, "", ""); err != nil || res == nil {
		t.Fatalf("commit external: %v %+v", err, res)
	}
	// The git CLI: a commit, then a side branch merged with --no-ff.
	gitWrite(t, dir, "d.md", "# D\n")
	gitCmd(t, dir, "add", "d.md")
	gitCmd(t, dir, "commit", "-q", "-m", "git adds d")
	gitCmd(t, dir, "switch", "-q", "-c", "side")
	gitWrite(t, dir, "d.md", "# D\nfrom the side\n")
	gitWrite(t, dir, "s/side.md", "# Side\n")
	gitCmd(t, dir, "commit", "-q", "-am", "side edits d")
	gitCmd(t, dir, "add", "s/side.md")
	gitCmd(t, dir, "commit", "-q", "-m", "side adds s/side")
	gitCmd(t, dir, "switch", "-q", "main")
	gitWrite(t, dir, "e.md", "# E\n")
	gitCmd(t, dir, "add", "e.md")
	gitCmd(t, dir, "commit", "-q", "-m", "main adds e")
	gitCmd(t, dir, "merge", "-q", "--no-ff", "-m", "merge side", "side")
	if err := v.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	// One more Norn write after the foreign ones: it comes after them.
	write(t, v, put("f.md", "# F\n", ""))

	oracle := strings.Fields(gitCmd(t, dir, "rev-list", "--reverse", "--topo-order", string(before)+"..HEAD"))
	got := log.wait(t, len(oracle))
	want := map[string]string{ // subject → source, op, changes
		"write a.md, b.md":  "local write added a.md, added b.md",
		"move a.md -> c.md": "local move moved c.md<a.md",
		"archive b.md":      "local archive archived b.md",
		"external c.md":     "local external modified c.md",
		"git adds d":        "external  added d.md",
		"side edits d":      "external  modified d.md",
		"side adds s/side":  "external  added s/side.md",
		"main adds e":       "external  added e.md",
		"merge side":        "external  modified d.md, added s/side.md",
		"write f.md":        "local write added f.md",
	}
	if len(got) != len(oracle) || len(got) != len(want) {
		t.Fatalf("%d events, git lists %d commits, want %d", len(got), len(oracle), len(want))
	}
	pos := map[repo.CommitID]int{}
	for i, ev := range got {
		pos[ev.ID] = i
	}
	for i, ev := range got {
		if !slices.Contains(oracle, string(ev.ID)) {
			t.Fatalf("event %d (%s) is not a commit git lists", i, ev.Subject)
		}
		if _, dup := pos[ev.ID]; pos[ev.ID] != i && dup {
			t.Fatalf("commit %s told twice", ev.Subject)
		}
		for _, p := range ev.Parents {
			if j, ok := pos[p]; ok && j > i {
				t.Fatalf("event %d (%s) comes before its parent (event %d)", i, ev.Subject, j)
			}
		}
		line := fmt.Sprintf("%s %s %s", ev.Source, ev.Op, changesString(ev))
		if line != want[ev.Subject] {
			t.Errorf("event %q: %q, want %q", ev.Subject, line, want[ev.Subject])
		}
		// The revisions are git's.
		for _, c := range ev.Changes {
			if c.Revision != "" {
				if rev := strings.TrimSpace(gitCmd(t, dir, "rev-parse", string(ev.ID)+":"+string(c.Path))); rev != string(c.Revision) {
					t.Errorf("event %q: %s at %s, git says %s", ev.Subject, c.Path, c.Revision, rev)
				}
			}
		}
	}
	if got[len(got)-1].Subject != "write f.md" {
		t.Fatalf("last event %q, want the Norn write after the merge", got[len(got)-1].Subject)
	}
	// The replay gives the same events, in pages of 3.
	var replay []repo.Event
	after := repo.CommitID("")
	for {
		page, next, err := v.CommitsBetween(ctx, before, "", after, 3)
		if err != nil {
			t.Fatal(err)
		}
		replay = append(replay, page...)
		if next == "" {
			break
		}
		after = next
	}
	gb, _ := json.Marshal(got)
	rb, _ := json.Marshal(replay)
	if string(gb) != string(rb) {
		t.Fatalf("replay differs from the live events:\nlive   %s\nreplay %s", gb, rb)
	}
	assertClean(t, v)
}

// TestVault_EventsForeignComplete: a long run of commits made elsewhere (more than
// the 256 the committer used to tell of) is told in full, oldest first.
func TestVault_EventsForeignComplete(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	log := collectEvents(v)
	const n = 300
	var stream strings.Builder
	for i := range n {
		body := fmt.Sprintf("# N%d\n", i)
		fmt.Fprintf(&stream, "commit refs/heads/main\ncommitter T <t@x> %d +0000\ndata 4\nfi%02d\n", 1800000000+i, i%100)
		if i == 0 {
			fmt.Fprintf(&stream, "from refs/heads/main^0\n")
		}
		fmt.Fprintf(&stream, "M 100644 inline n%03d.md\ndata %d\n%s\n", i, len(body), body)
	}
	cmd := exec.Command("git", "-C", v.Dir(), "fast-import", "--quiet")
	cmd.Stdin = strings.NewReader(stream.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}
	gitCmd(t, v.Dir(), "reset", "-q", "--hard")
	if err := v.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	got := log.wait(t, n)
	if len(got) != n {
		t.Fatalf("%d events, want %d", len(got), n)
	}
	for i, ev := range got {
		if ev.Source != repo.SourceExternal || changesString(ev) != fmt.Sprintf("added n%03d.md", i) {
			t.Fatalf("event %d: %s %s", i, ev.Source, changesString(ev))
		}
	}
}

// TestVault_EventsSlowObserver: an observer that blocks delays no writer; the
// events queue behind it and, past MaxEventLag, are read again from git, so it
// still gets every commit exactly once, in order.
func TestVault_EventsSlowObserver(t *testing.T) {
	for _, lag := range []int{1024, 2} {
		t.Run(fmt.Sprintf("lag=%d", lag), func(t *testing.T) {
			release := make(chan struct{})
			log := newEventLog()
			var logged lockedBuffer
			v := newVault(t, repo.Options{MaxEventLag: lag, Logger: slog.New(slog.NewTextHandler(&logged, nil)), OnEvent: func(ev repo.Event) {
				<-release
				log.add(ev)
			}})
			// The import is queued (or being delivered) behind the blocked observer.
			var ids []repo.CommitID
			for i := range 20 {
				res := write(t, v, put(fmt.Sprintf("n%d.md", i), "# N\n", ""))
				ids = append(ids, res.Commit) // every write returned while the observer blocks
			}
			close(release)
			got := log.wait(t, len(ids)+1)
			if len(got) != len(ids)+1 || got[0].Op != repo.OpImport {
				t.Fatalf("%d events (first %q), want the import and %d writes", len(got), got[0].Op, len(ids))
			}
			for i, id := range ids {
				if got[i+1].ID != id || changesString(got[i+1]) != fmt.Sprintf("added n%d.md", i) {
					t.Fatalf("event %d: %s %s, want %s", i+1, got[i+1].ID, changesString(got[i+1]), id)
				}
			}
			if lagged := strings.Contains(logged.String(), "commit events lag"); lagged != (lag == 2) {
				t.Fatalf("lag logged: %v, want %v (MaxEventLag %d)", lagged, lag == 2, lag)
			}
		})
	}
}

// lockedBuffer is a log sink safe for concurrent writers.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestVault_CommitsBetweenBadInput: malformed or unknown ids are classified errors.
func TestVault_CommitsBetweenBadInput(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	head := v.Head()
	for _, tc := range []struct {
		from, to, after repo.CommitID
		want            error
	}{
		{from: "zz", want: repo.ErrInvalid},
		{to: "not-a-commit", want: repo.ErrInvalid},
		{from: repo.CommitID(strings.Repeat("ab", 20)), want: repo.ErrNotFound},
		{after: repo.CommitID(strings.Repeat("cd", 20)), want: repo.ErrInvalid},
		{from: head, after: head, want: repo.ErrInvalid},
	} {
		evs, next, err := v.CommitsBetween(ctx, tc.from, tc.to, tc.after, 10)
		if !errors.Is(err, tc.want) || evs != nil || next != "" {
			t.Errorf("CommitsBetween(%q, %q, %q): %v %v %q, want %v", tc.from, tc.to, tc.after, err, evs, next, tc.want)
		}
	}
	// The whole history: the import alone; from HEAD: nothing.
	if evs, next, err := v.CommitsBetween(ctx, "", "", "", 0); err != nil || len(evs) != 1 || evs[0].ID != head || next != "" {
		t.Fatalf("whole history: %v %+v %q", err, evs, next)
	}
	if evs, _, err := v.CommitsBetween(ctx, head, head, "", 0); err != nil || len(evs) != 0 {
		t.Fatalf("from head: %v %+v", err, evs)
	}
}

// TestVault_CommitsBetweenSameSecond: commits made within one second (git's
// clock resolution) are still placed right: nothing is reachable from an
// ancestor of head but not from head, whichever side the walk meets first.
func TestVault_CommitsBetweenSameSecond(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	v := newVault(t, repo.Options{Now: func() time.Time { return at }})
	var ids []repo.CommitID
	for i := range 4 {
		ids = append(ids, write(t, v, put(fmt.Sprintf("n%d.md", i), "# N\n", "")).Commit)
	}
	for i, old := range ids {
		evs, _, err := v.CommitsBetween(ctx, v.Head(), old, "", 10)
		if err != nil || len(evs) != 0 {
			t.Fatalf("commit %d: %d commits reachable from it and not from head (%v), want none", i, len(evs), err)
		}
		evs, _, err = v.CommitsBetween(ctx, old, "", "", 10)
		if err != nil || len(evs) != len(ids)-1-i {
			t.Fatalf("after commit %d: %d commits (%v), want %d", i, len(evs), err, len(ids)-1-i)
		}
	}
}
