package ledger_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/norn-vault/norn/ledger"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// event is one change the model expects a path's history to list.
type event struct {
	idx      int // the commit's place in the run
	commit   repo.CommitID
	author   string
	op       repo.Op
	path     note.Path
	kind     repo.EventKind
	from, to note.Path
	rev, old repo.Revision
}

// model is what a run of random operations did, kept apart from git.
type model struct {
	byPath   map[note.Path][]event
	live     map[note.Path]repo.Revision
	archived map[note.Path]repo.Revision // path → its revision when archived
	written  []written
}

// written is one revision a run wrote, at the commit that wrote it.
type written struct {
	path    note.Path
	commit  repo.CommitID
	rev     repo.Revision
	content string
}

func (m *model) add(e event) { m.byPath[e.path] = append(m.byPath[e.path], e) }

// expect is the history of p as the model has it: p's events newest first, and
// at a move into p, those of the path it came from before the move.
func (m *model) expect(p note.Path) []event {
	var out []event
	before := 1 << 30
	for p != "" {
		evs := m.byPath[p]
		next := note.Path("")
		for i := len(evs) - 1; i >= 0; i-- {
			e := evs[i]
			if e.idx >= before {
				continue
			}
			out = append(out, e)
			if e.kind == repo.EventMoved && e.path == p && e.from != "" {
				next, before = e.from, e.idx
				break
			}
		}
		p = next
	}
	return out
}

// seed is the run's seed: LEDGER_SEED when set, else a fixed one.
func seed(t *testing.T) uint64 {
	s := uint64(29)
	if env := os.Getenv("LEDGER_SEED"); env != "" {
		n, err := strconv.ParseUint(env, 10, 64)
		if err != nil {
			t.Fatalf("LEDGER_SEED=%q: %v", env, err)
		}
		s = n
	}
	t.Logf("seed %d (rerun with LEDGER_SEED=%d)", s, s)
	return s
}

// randomRun applies n random writes, edits, moves (some with new bytes),
// archives and restores to v, one commit each, and returns what it did.
func randomRun(t *testing.T, v *repo.Vault, rng *rand.Rand, n int) *model {
	t.Helper()
	ctx := context.Background()
	m := &model{byPath: map[note.Path][]event{}, live: map[note.Path]repo.Revision{}, archived: map[note.Path]repo.Revision{}}
	folders := []string{"a", "b", "c/d"}
	randPath := func() note.Path {
		return note.Path(fmt.Sprintf("%s/n%d.md", folders[rng.IntN(len(folders))], rng.IntN(20)))
	}
	pick := func(set map[note.Path]repo.Revision) note.Path {
		if len(set) == 0 {
			return ""
		}
		keys := make([]note.Path, 0, len(set))
		for k := range set {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return keys[rng.IntN(len(keys))]
	}
	authors := []string{"agent-a", "agent-b", "person"}
	for i := 0; i < n; i++ {
		content := fmt.Sprintf("# Note\n\nwrite %d\n", i)
		author := authors[rng.IntN(len(authors))]
		tx := repo.Tx{Author: repo.Author{Name: author, Email: author + "@example.com"}}
		var apply func(res *repo.Result, id repo.CommitID)
		switch op := rng.IntN(10); {
		case op < 3 || len(m.live) == 0: // a new note (perhaps where one was archived)
			p := randPath()
			if m.live[p] != "" {
				i--
				continue
			}
			tx.Op, tx.Changes = repo.OpWrite, []repo.Change{{Kind: repo.Put, Path: p, Content: []byte(content)}}
			apply = func(res *repo.Result, id repo.CommitID) {
				r := res.Changes[0].Revision
				m.add(event{idx: i, commit: id, author: author, op: tx.Op, path: p, kind: repo.EventAdded, rev: r})
				m.live[p] = r
				delete(m.archived, p)
				m.written = append(m.written, written{p, id, r, content})
			}
		case op < 6: // an edit
			p := pick(m.live)
			old := m.live[p]
			tx.Op, tx.Changes = repo.OpEdit, []repo.Change{{Kind: repo.Put, Path: p, Content: []byte(content), ExpectedRevision: old}}
			apply = func(res *repo.Result, id repo.CommitID) {
				r := res.Changes[0].Revision
				m.add(event{idx: i, commit: id, author: author, op: tx.Op, path: p, kind: repo.EventModified, rev: r, old: old})
				m.live[p] = r
				m.written = append(m.written, written{p, id, r, content})
			}
		case op < 8: // a move, a third of them with new bytes
			from, to := pick(m.live), randPath()
			if m.live[to] != "" {
				i--
				continue
			}
			old := m.live[from]
			ch := repo.Change{Kind: repo.Move, From: from, Path: to, ExpectedRevision: old}
			if rng.IntN(3) == 0 {
				ch.Content = []byte(content)
			}
			tx.Op, tx.Changes = repo.OpMove, []repo.Change{ch}
			apply = func(res *repo.Result, id repo.CommitID) {
				r := res.Changes[0].Revision
				m.add(event{idx: i, commit: id, author: author, op: tx.Op, path: from, kind: repo.EventMoved, to: to, old: old})
				m.add(event{idx: i, commit: id, author: author, op: tx.Op, path: to, kind: repo.EventMoved, from: from, rev: r, old: old})
				delete(m.live, from)
				m.live[to] = r
				delete(m.archived, to)
				if ch.Content != nil {
					m.written = append(m.written, written{to, id, r, content})
				}
			}
		case op < 9: // an archive
			p := pick(m.live)
			old := m.live[p]
			reasons := []repo.Reason{repo.ReasonArchived, repo.ReasonSuperseded, repo.ReasonRetracted}
			tx.Op, tx.Reason = repo.OpArchive, reasons[rng.IntN(len(reasons))]
			tx.Changes = []repo.Change{{Kind: repo.Archive, Path: p, ExpectedRevision: old}}
			apply = func(res *repo.Result, id repo.CommitID) {
				m.add(event{idx: i, commit: id, author: author, op: tx.Op, path: p, kind: repo.EventArchived, old: old})
				delete(m.live, p)
				m.archived[p] = old
			}
		default: // a restore of an archived note, by revision
			p := pick(m.archived)
			if p == "" {
				i--
				continue
			}
			rev := m.archived[p]
			tx.Op, tx.Changes = repo.OpRestore, []repo.Change{{Kind: repo.Restore, Path: p, FromRevision: rev}}
			apply = func(res *repo.Result, id repo.CommitID) {
				if got := res.Changes[0].Revision; got != rev {
					t.Fatalf("op %d: restore of %s gave revision %s, archived %s: not the same bytes", i, p, got, rev)
				}
				b, err := os.ReadFile(v.Dir() + "/" + string(p))
				if err != nil || blobID(b) != rev {
					t.Fatalf("op %d: restored %s in the working tree is not revision %s (%v)", i, p, rev, err)
				}
				m.add(event{idx: i, commit: id, author: author, op: tx.Op, path: p, kind: repo.EventRestored, rev: rev})
				m.live[p] = rev
				delete(m.archived, p)
			}
		}
		res, err := v.Apply(ctx, tx)
		if err != nil {
			t.Fatalf("op %d (%s %v): %v", i, tx.Op, tx.Changes[0].Path, err)
		}
		apply(res, res.Commit)
	}
	return m
}

// TestHistory_FollowsMoves: over 500 random writes, edits, moves (some with new
// bytes), archives and restores, the history of every path ever used is exactly
// the model's — complete, newest first, following each move into the path it
// came from, with commit, author, op, kind and revisions — and without following,
// each path's commits are those git log lists for it. Every revision written
// reads back with its blob id, at its commit too.
func TestHistory_FollowsMoves(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed(t), 1))
	v := newVault(t)
	m := randomRun(t, v, rng, 500)

	moves := 0
	paths := make([]note.Path, 0, len(m.byPath))
	for p := range m.byPath {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		want := m.expect(p)
		got, err := ledger.History(ctx, v, p, ledger.HistoryOptions{Limit: 100000})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("history of %s: %d entries, want %d", p, len(got), len(want))
		}
		for i, w := range want {
			g := got[i]
			if g.ID != w.commit || g.Path != w.path || g.Kind != w.kind || g.From != w.from || g.To != w.to ||
				g.Revision != w.rev || g.OldRevision != w.old || g.Op != w.op || g.Author.Name != w.author {
				t.Fatalf("history of %s, entry %d:\n got %s %s %s from=%q to=%q rev=%s old=%s op=%s by %s\nwant %s %s %s from=%q to=%q rev=%s old=%s op=%s by %s",
					p, i, g.ID.Short(), g.Path, g.Kind, g.From, g.To, g.Revision, g.OldRevision, g.Op, g.Author.Name,
					w.commit.Short(), w.path, w.kind, w.from, w.to, w.rev, w.old, w.op, w.author)
			}
			if i > 0 && g.When.After(got[i-1].When) {
				t.Fatalf("history of %s is not newest first at entry %d", p, i)
			}
			if g.From != "" {
				moves++
			}
		}
		// Without the moves, the commits are git's for the path.
		var own []string
		for _, e := range m.byPath[p] {
			own = append(own, string(e.commit))
		}
		slices.Reverse(own)
		if gl := strings.Fields(gitCmd(t, v.Dir(), "log", "--format=%H", "--", string(p))); !slices.Equal(gl, own) {
			t.Fatalf("git log -- %s lists %d commits, the model %d", p, len(gl), len(own))
		}
	}
	if moves < 20 {
		t.Fatalf("only %d moves followed: the run shows less than the test says", moves)
	}
	for _, w := range m.written {
		b, err := v.ReadRevision(ctx, w.rev)
		if err != nil || string(b) != w.content || blobID(b) != w.rev {
			t.Fatalf("revision %s of %s does not read back (%v)", w.rev, w.path, err)
		}
		blob, err := v.Read(ctx, w.path, string(w.commit))
		if err != nil || blob.Revision != w.rev {
			t.Fatalf("%s at %s: %v, %v", w.path, w.commit.Short(), blob, err)
		}
	}
	gitCmd(t, v.Dir(), "fsck", "--strict", "--no-progress")
}

// TestHistory_BadInput: an invalid path is ErrInvalid and a path that never held
// a note has an empty history; neither moves HEAD.
func TestHistory_BadInput(t *testing.T) {
	ctx := context.Background()
	v := newVault(t)
	if _, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "a"}, Op: repo.OpWrite,
		Changes: []repo.Change{{Kind: repo.Put, Path: "a.md", Content: []byte("# A\n")}}}); err != nil {
		t.Fatal(err)
	}
	head := v.Head()
	for _, p := range []note.Path{"../x.md", "/abs.md", ".git/config", ""} {
		if _, err := ledger.History(ctx, v, p, ledger.HistoryOptions{}); !errors.Is(err, repo.ErrInvalid) {
			t.Errorf("History(%q): %v, want ErrInvalid", p, err)
		}
	}
	got, err := ledger.History(ctx, v, "never.md", ledger.HistoryOptions{})
	if err != nil || len(got) != 0 {
		t.Fatalf("History(never.md) = %v, %v; want none", got, err)
	}
	if v.Head() != head {
		t.Fatal("a read moved HEAD")
	}
}
