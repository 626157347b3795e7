package repo_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// bigVault makes a vault of n notes (folders of 100), imported in one commit.
func bigVault(t *testing.T, n int, gitConfig ...string) *repo.Vault {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("f%02d", i/100), fmt.Sprintf("n%04d.md", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(fmt.Sprintf("# note %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if len(gitConfig) > 0 {
		gitCmd(t, dir, "init", "-q", "-b", "main")
		gitCmd(t, dir, append([]string{"config"}, gitConfig...)...)
	}
	v, _, err := repo.Init(context.Background(), dir, repo.InitOptions{Options: repo.Options{Now: clock(), Owner: repo.Author{Name: "o", Email: "o@x"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}

// assertIndexMatchesHead checks with git that the index holds exactly HEAD's files.
func assertIndexMatchesHead(t *testing.T, v *repo.Vault) {
	t.Helper()
	var want []string
	for _, l := range strings.Split(strings.TrimSpace(gitCmd(t, v.Dir(), "ls-tree", "-r", "HEAD")), "\n") {
		// "<mode> blob <id>\t<path>" -> "<mode> <id> 0\t<path>"
		f := strings.SplitN(l, "\t", 2)
		m := strings.Fields(f[0])
		want = append(want, m[0]+" "+m[2]+" 0\t"+f[1])
	}
	got := strings.Split(strings.TrimSpace(gitCmd(t, v.Dir(), "ls-files", "--stage")), "\n")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("git ls-files --stage differs from HEAD's tree (%d vs %d entries)", len(got), len(want))
	}
	assertClean(t, v)
}

func sharedIndexes(t *testing.T, v *repo.Vault) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(v.GitDir(), "sharedindex.*"))
	return m
}

// TestSplitIndex_GitReadsIt: a vault of 1,500 notes gets a split index: a shared
// index and a small .git/index that git reads as the full index after writes,
// archives and moves (the delete and replace bitmaps); git status stays clean.
func TestSplitIndex_GitReadsIt(t *testing.T) {
	ctx := context.Background()
	v := bigVault(t, 1500)
	if n := len(sharedIndexes(t, v)); n != 1 {
		t.Fatalf("%d shared index files, want 1", n)
	}
	assertIndexMatchesHead(t, v)
	for i := range 20 {
		p := note.Path(fmt.Sprintf("f%02d/n%04d.md", i*7%15, i*73%1500))
		write(t, v, put(string(p), fmt.Sprintf("# changed %d\n", i), v.Revision(p)))
	}
	write(t, v, put("new/added.md", "# added\n", ""), put("zz.md", "# last\n", ""), put("0first.md", "# first\n", ""))
	if _, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "a"}, Op: repo.OpArchive, Reason: repo.ReasonArchived,
		Changes: []repo.Change{{Kind: repo.Archive, Path: "f03/n0300.md"}, {Kind: repo.Archive, Path: "f14/n1499.md"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "a"}, Op: repo.OpMove,
		Changes: []repo.Change{{Kind: repo.Move, From: "f00/n0000.md", Path: "moved/n0000.md"}}}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(v.GitDir(), "index"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > 8<<10 {
		t.Fatalf(".git/index is %d bytes: not a split index", fi.Size())
	}
	if out := gitCmd(t, v.Dir(), "ls-files", "--debug", "moved/n0000.md"); !strings.Contains(out, "moved/n0000.md") {
		t.Fatalf("git ls-files --debug:\n%s", out)
	}
	assertIndexMatchesHead(t, v)
}

// TestSplitIndex_ReopenAndGitRewrites: Norn reopens its own split index, and one
// git rewrote (git update-index --refresh, git status); writes go on and git status
// stays clean. Enough changes roll the shared index over.
func TestSplitIndex_ReopenAndGitRewrites(t *testing.T) {
	ctx := context.Background()
	v := bigVault(t, 1200)
	for i := range 10 {
		p := note.Path(fmt.Sprintf("f%02d/n%04d.md", i, i*100))
		write(t, v, put(string(p), fmt.Sprintf("# v %d\n", i), v.Revision(p)))
	}
	dir := v.Dir()
	v.Close()
	gitCmd(t, dir, "update-index", "--refresh")
	gitCmd(t, dir, "status", "--porcelain")
	v2, err := repo.Open(ctx, dir, repo.Options{Now: clock()})
	if err != nil {
		t.Fatal(err)
	}
	defer v2.Close()
	first := sharedIndexes(t, v2)
	for i := range 120 { // more than 1/16 of 1,200 entries: a new shared index
		p := note.Path(fmt.Sprintf("f%02d/n%04d.md", i%12, (i%12)*100+i/12))
		write(t, v2, put(string(p), fmt.Sprintf("# w %d\n", i), v2.Revision(p)))
	}
	if after := sharedIndexes(t, v2); strings.Join(after, ",") == strings.Join(first, ",") {
		t.Fatalf("the shared index never rolled over: %v", after)
	}
	assertIndexMatchesHead(t, v2)
	v2.Close()
	v3, err := repo.Open(ctx, dir, repo.Options{Now: clock()})
	if err != nil {
		t.Fatal(err)
	}
	defer v3.Close()
	write(t, v3, put("after.md", "# after\n", ""))
	assertIndexMatchesHead(t, v3)
}

// TestSplitIndex_ConfigOff: core.splitIndex=false keeps a plain index (for tools
// that cannot read a split one).
func TestSplitIndex_ConfigOff(t *testing.T) {
	v := bigVault(t, 1200, "core.splitIndex", "false")
	write(t, v, put("x.md", "# x\n", ""))
	if m := sharedIndexes(t, v); len(m) != 0 {
		t.Fatalf("shared index files with core.splitIndex=false: %v", m)
	}
	fi, err := os.Stat(filepath.Join(v.GitDir(), "index"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() < 1200*64 {
		t.Fatalf(".git/index is %d bytes, want the whole index", fi.Size())
	}
	assertIndexMatchesHead(t, v)
}

// TestSplitIndex_RandomOpsAgainstGit: random writes, archives and moves on a vault
// of 1,200 notes, with git refreshing the index (git update-index --refresh, git
// status) between them and switching it to and from a split index while Norn is
// closed; git ls-files --stage always equals HEAD's tree and git status is clean.
func TestSplitIndex_RandomOpsAgainstGit(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short mode")
	}
	const n = 1200
	ctx := context.Background()
	v := bigVault(t, n)
	dir := v.Dir()
	ops := newRandomOps(n, 3, 4)
	for i := range 300 {
		tx := ops.next(v, i)
		if _, err := v.Apply(ctx, tx); err != nil {
			t.Fatalf("op %d %s: %v", i, tx.Op, err)
		}
		switch {
		case i%100 == 99:
			v.Close()
			gitCmd(t, dir, "status", "--porcelain")
			if i%200 == 99 {
				gitCmd(t, dir, "update-index", "--split-index")
			} else {
				gitCmd(t, dir, "update-index", "--no-split-index")
			}
			var err error
			if v, err = repo.Open(ctx, dir, repo.Options{Now: clock()}); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { v.Close() })
			assertIndexMatchesHead(t, v)
		case i%23 == 0:
			assertIndexMatchesHead(t, v)
		case i%11 == 0:
			gitCmd(t, dir, "update-index", "--refresh")
		case i%13 == 0:
			gitCmd(t, dir, "status", "--porcelain")
		}
	}
	assertIndexMatchesHead(t, v)
}

// randomOps makes the random writes, archives and moves the tests against git
// apply to a vault of n notes in folders of 100 (bigVault's): pick a path (mostly
// a live note), then write it (6 in 10, or when it is gone), archive it (2 in
// 10) or move it into one of five new folders; live follows what the ops do.
type randomOps struct {
	rng  *rand.Rand
	n    int
	live map[string]bool
}

func newRandomOps(n int, seed1, seed2 uint64) *randomOps {
	o := &randomOps{rng: rand.New(rand.NewPCG(seed1, seed2)), n: n, live: map[string]bool{}}
	for i := range n {
		o.live[fmt.Sprintf("f%02d/n%04d.md", i/100, i)] = true
	}
	return o
}

func (o *randomOps) pick() string {
	for {
		p := fmt.Sprintf("f%02d/n%04d.md", o.rng.IntN(o.n/100), o.rng.IntN(o.n))
		if o.live[p] || o.rng.IntN(4) == 0 {
			return p
		}
	}
}

// next is op i: a transaction for v (whose revisions a write's CAS reads).
func (o *randomOps) next(v *repo.Vault, i int) repo.Tx {
	p := o.pick()
	tx := repo.Tx{Author: repo.Author{Name: "a"}}
	switch op := o.rng.IntN(10); {
	case op < 6 || !o.live[p]:
		tx.Op = repo.OpWrite
		tx.Changes = []repo.Change{put(p, fmt.Sprintf("# %d\n", i), v.Revision(note.Path(p)))}
		o.live[p] = true
	case op < 8:
		tx.Op, tx.Reason = repo.OpArchive, repo.ReasonArchived
		tx.Changes = []repo.Change{{Kind: repo.Archive, Path: note.Path(p)}}
		delete(o.live, p)
	default:
		to := fmt.Sprintf("m%02d/x%05d.md", o.rng.IntN(5), i)
		tx.Op = repo.OpMove
		tx.Changes = []repo.Change{{Kind: repo.Move, From: note.Path(p), Path: note.Path(to)}}
		delete(o.live, p)
		o.live[to] = true
	}
	return tx
}
