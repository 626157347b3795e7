package remote_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/sync/remote"
)

// TestRemotes_SyncConverges runs three replicas of one vault making random
// edits (the same note on different lines and on the same lines, frontmatter,
// creates of one path, moves, archives) and syncing with one bare remote in a
// random order, with a local writer racing each sync. At the end every replica
// has the same tree, git fsck is clean, every acknowledged commit is in the
// history, and every conflict reported has its sibling. The seed is printed.
func TestRemotes_SyncConverges(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s, err := strconv.ParseUint(os.Getenv("NORN_SYNC_SEED"), 10, 64); err == nil {
		seed = s
	}
	rounds := 40
	if testing.Short() {
		rounds = 10
	}
	t.Logf("seed %d (replay: NORN_SYNC_SEED=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	bare := newBare(t)
	first := newReplica(t, "r0", bare, true)
	for i := range 4 {
		first.put(t, fmt.Sprintf("n%d.md", i), noteText(i))
	}
	first.sync(t)
	reps := []*replica{first, newReplica(t, "r1", bare, false), newReplica(t, "r2", bare, false)}
	var acked []repo.CommitID
	var conflicts []remote.Conflict
	for round := range rounds {
		for _, rp := range reps {
			for range rng.IntN(3) {
				if c := randomOp(t, rng, rp, round); c != "" {
					acked = append(acked, c)
				}
			}
		}
		rp := reps[rng.IntN(len(reps))]
		var wg sync.WaitGroup
		var raced *repo.Result
		wg.Go(func() {
			res, err := rp.v.Apply(context.Background(), repo.Tx{Author: repo.Author{Name: "racer"}, Op: repo.OpWrite,
				Changes: []repo.Change{{Kind: repo.Put, Path: note.Path(fmt.Sprintf("w/%s-%d.md", rp.name, round)), Content: []byte("raced\n")}}})
			if err != nil {
				t.Errorf("%s: racing write: %v", rp.name, err)
			}
			raced = res
		})
		res := rp.sync(t)
		wg.Wait()
		if raced != nil {
			acked = append(acked, raced.Commit)
		}
		conflicts = append(conflicts, res.Conflicts...)
	}
	for range 2 {
		for _, rp := range reps {
			conflicts = append(conflicts, rp.sync(t).Conflicts...)
		}
	}
	tree := git(t, reps[0].v.Dir(), "rev-parse", "HEAD^{tree}")
	for _, rp := range reps {
		checkRepl(t, rp)
		if got := git(t, rp.v.Dir(), "rev-parse", "HEAD^{tree}"); got != tree {
			t.Fatalf("seed %d: %s has tree %s, r0 %s", seed, rp.name, got, tree)
		}
	}
	final := reps[0].v.Dir()
	for _, c := range acked {
		if _, err := gitErr(final, "merge-base", "--is-ancestor", string(c), "HEAD"); err != nil {
			t.Fatalf("seed %d: acknowledged commit %s is not in the history", seed, c)
		}
	}
	for _, c := range conflicts {
		if _, err := reps[0].v.Read(context.Background(), c.Sibling, ""); err != nil {
			t.Fatalf("seed %d: conflict on %s has no sibling %s: %v", seed, c.Path, c.Sibling, err)
		}
	}
	t.Logf("seed %d: %d acknowledged commits, %d conflicts", seed, len(acked), len(conflicts))
}

func noteText(i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\ntitle: Note %d\nstatus: draft\ntags: [a]\n---\n", i)
	for l := range 8 {
		fmt.Fprintf(&b, "line %d of note %d\n", l, i)
	}
	return b.String()
}

// randomOp makes one random change on rp and returns its commit ("" for none).
func randomOp(t *testing.T, rng *rand.Rand, rp *replica, round int) repo.CommitID {
	t.Helper()
	ctx := context.Background()
	files, _, err := rp.v.Files(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var notes []note.Path
	for _, f := range files {
		if note.IsNote(f.Path) && !strings.Contains(string(f.Path), "(conflict") && !strings.HasPrefix(string(f.Path), "w/") {
			notes = append(notes, f.Path)
		}
	}
	slices.Sort(notes)
	tag := fmt.Sprintf("%s-%d", rp.name, round)
	tx := repo.Tx{Author: repo.Author{Name: "agent-" + rp.name}, Op: repo.OpWrite}
	op := rng.IntN(10)
	switch {
	case op < 6 && len(notes) > 0: // edit a line, or the frontmatter
		p := notes[rng.IntN(len(notes))]
		b, err := rp.v.Read(ctx, p, "")
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(string(b.Content), "\n")
		i := rng.IntN(len(lines))
		if strings.HasPrefix(lines[i], "---") || lines[i] == "" {
			i = 0
			if len(lines) > 2 && strings.HasPrefix(lines[2], "status:") {
				i = 2
			}
		}
		if strings.HasPrefix(lines[i], "status:") {
			lines[i] = "status: " + tag + "\n"
		} else if strings.HasPrefix(lines[i], "tags:") {
			lines[i] = "tags: [a, " + tag + "]\n"
		} else {
			lines[i] = "edited " + tag + "\n"
		}
		tx.Changes = []repo.Change{{Kind: repo.Put, Path: p, Content: []byte(strings.Join(lines, "")), ExpectedRevision: b.Revision}}
	case op < 7: // create a path the others may create too
		p := note.Path(fmt.Sprintf("new%d.md", rng.IntN(3)))
		if rp.v.Revision(p) != "" {
			return ""
		}
		tx.Changes = []repo.Change{{Kind: repo.Put, Path: p, Content: []byte("created " + tag + "\n")}}
	case op < 8 && len(notes) > 3:
		tx.Op, tx.Reason = repo.OpArchive, repo.ReasonArchived
		tx.Changes = []repo.Change{{Kind: repo.Archive, Path: notes[rng.IntN(len(notes))]}}
	case op < 10 && len(notes) > 0:
		p := notes[rng.IntN(len(notes))]
		to := note.Path(fmt.Sprintf("moved/%s-%d.md", tag, rng.IntN(1<<30)))
		tx.Op = repo.OpMove
		tx.Changes = []repo.Change{{Kind: repo.Move, From: p, Path: to}}
	default:
		return ""
	}
	res, err := rp.v.Apply(ctx, tx)
	if err != nil {
		t.Fatalf("%s: %s: %v", rp.name, tx.Op, err)
	}
	return res.Commit
}
