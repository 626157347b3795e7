package repo_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

func packs(t *testing.T, v *repo.Vault) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(v.GitDir(), "objects", "pack", "pack-*.idx"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// verifyPacks checks every pack with git verify-pack and that nothing else (loose
// objects, temporary files) lies in the object folder.
func verifyPacks(t *testing.T, v *repo.Vault) {
	t.Helper()
	for _, idx := range packs(t, v) {
		gitCmd(t, v.Dir(), "verify-pack", idx)
	}
	out := gitCmd(t, v.Dir(), "count-objects", "-v")
	for _, want := range []string{"count: 0\n", "garbage: 0\n"} {
		if !strings.Contains(out, want) {
			t.Fatalf("git count-objects -v: want %q:\n%s", want, out)
		}
	}
}

// TestPack_WritesArePacks: each write lands as a pack git verifies, with no loose
// object; a fresh git process reads the new commit, tree and blob as soon as the
// write is acknowledged; go-git (HEAD~N) and Norn read them too.
func TestPack_WritesArePacks(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	var commits []repo.CommitID
	for i := range 5 {
		p := fmt.Sprintf("notes/n%d.md", i%2)
		content := fmt.Sprintf("# note\nversion %d\n", i)
		res := write(t, v, put(p, content, v.Revision(note.Path(p))))
		commits = append(commits, res.Commit)
		if got := gitCmd(t, v.Dir(), "cat-file", "-p", string(res.Changes[0].Revision)); got != content {
			t.Fatalf("git cat-file of the new blob: %q, want %q", got, content)
		}
		if got := gitCmd(t, v.Dir(), "show", string(res.Commit)+":"+p); got != content {
			t.Fatalf("git show %s:%s = %q", res.Commit, p, got)
		}
		if got := strings.TrimSpace(gitCmd(t, v.Dir(), "rev-parse", "HEAD")); got != string(res.Commit) {
			t.Fatalf("HEAD %s, want %s", got, res.Commit)
		}
	}
	if n := v.LooseObjects(); n != 0 {
		t.Fatalf("%d loose objects, want 0", n)
	}
	verifyPacks(t, v)
	assertClean(t, v)
	c, err := v.Commit(ctx, "HEAD~3")
	if err != nil {
		t.Fatal(err)
	}
	if c.ID != commits[1] {
		t.Fatalf("HEAD~3 = %s, want %s", c.ID, commits[1])
	}
	b, err := v.Read(ctx, "notes/n0.md", string(commits[2]))
	if err != nil || string(b.Content) != "# note\nversion 2\n" {
		t.Fatalf("read at %s: %v %q", commits[2], err, b)
	}
}

// TestPack_FailedWriteWritesNothing: a conflicting write and a rejected one leave
// no pack and no loose object behind, though the writer deflated their blobs.
func TestPack_FailedWriteWritesNothing(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{Gate: func(ctx context.Context, p *repo.Proposal) error {
		if p.Changes[0].Path == "rejected.md" {
			return errors.New("no")
		}
		return nil
	}})
	write(t, v, put("a.md", "# A\n", ""))
	before := strings.Join(packs(t, v), ",")
	for _, c := range []repo.Change{put("a.md", "# blind overwrite\n", ""), put("rejected.md", "# R\n", "")} {
		if _, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "x"}, Op: repo.OpWrite, Changes: []repo.Change{c}}); err == nil {
			t.Fatalf("%s: accepted", c.Path)
		}
	}
	if after := strings.Join(packs(t, v), ","); after != before || v.LooseObjects() != 0 {
		t.Fatalf("packs %s after failed writes, %s before; %d loose objects", after, before, v.LooseObjects())
	}
}

// TestPack_MergeKeepsEveryRevision: many writes roll small packs into bigger ones
// (geometrically); the pack count stays bounded, git verifies every pack, fsck is
// clean, and every revision of every commit reads back, through Norn and git.
func TestPack_MergeKeepsEveryRevision(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	type rev struct {
		commit  repo.CommitID
		path    string
		content string
	}
	var revs []rev
	most := 0
	for i := range 120 {
		p := fmt.Sprintf("f%d/n%d.md", i%3, i%7)
		content := fmt.Sprintf("# %s\nwrite %d\n", p, i)
		res := write(t, v, put(p, content, v.Revision(note.Path(p))))
		revs = append(revs, rev{res.Commit, p, content})
		most = max(most, len(packs(t, v)))
	}
	if most > 20 {
		t.Fatalf("up to %d packs during 120 writes; merging should keep it near 16", most)
	}
	verifyPacks(t, v)
	assertClean(t, v)
	check := func(when string) {
		t.Helper()
		for _, r := range revs {
			b, err := v.Read(ctx, note.Path(r.path), string(r.commit))
			if err != nil || string(b.Content) != r.content {
				t.Fatalf("%s: read %s at %s: %v", when, r.path, r.commit, err)
			}
			if got := gitCmd(t, v.Dir(), "show", string(r.commit)+":"+r.path); got != r.content {
				t.Fatalf("%s: git show %s:%s = %q", when, r.commit, r.path, got)
			}
		}
	}
	check("after merges")
	if _, err := v.GC(ctx, repo.GCOptions{}); err != nil {
		t.Fatal(err)
	}
	check("after gc")
	write(t, v, put("after-gc.md", "x\n", ""))
	check("after a write after gc")
	gitCmd(t, v.Dir(), "fsck", "--strict", "--no-progress")
	v.Close()
	v2, err := repo.Open(ctx, v.Dir(), repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer v2.Close()
	v = v2
	check("after reopen")
}

// TestPack_MergeSettlesOnClose: closing right after a merge makes the merged pack
// durable and deletes the packs it replaced; git sees exactly the objects it saw
// before, and no stray file.
func TestPack_MergeSettlesOnClose(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	for i := range 17 { // the 17th pack triggers a merge
		write(t, v, put(fmt.Sprintf("n%d.md", i), fmt.Sprintf("note %d\n", i), ""))
	}
	before := gitCmd(t, v.Dir(), "cat-file", "--batch-all-objects", "--batch-check")
	dir := v.Dir()
	v.Close()
	if n := len(packsIn(t, dir)); n > 3 {
		t.Fatalf("%d packs after a merge and close", n)
	}
	v2, err := repo.Open(ctx, dir, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer v2.Close()
	if after := gitCmd(t, dir, "cat-file", "--batch-all-objects", "--batch-check"); after != before {
		t.Fatalf("objects changed across close:\nbefore\n%s\nafter\n%s", before, after)
	}
	gitCmd(t, dir, "fsck", "--strict", "--no-progress")
	out := gitCmd(t, dir, "count-objects", "-v")
	if !strings.Contains(out, "garbage: 0\n") {
		t.Fatalf("git count-objects -v:\n%s", out)
	}
}

// TestPack_OtherProcessPacks: objects another process packed after this vault
// opened (a second handle on the same folder here) are found: the next write
// starts from the moved branch, reading the other handle's commit and blob from
// its pack, and lands on top of it.
func TestPack_OtherProcessPacks(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	write(t, v, put("a.md", "one\n", ""))
	other, err := repo.Open(ctx, v.Dir(), repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := other.Apply(ctx, repo.Tx{Author: repo.Author{Name: "other"}, Op: repo.OpWrite,
		Changes: []repo.Change{put("b.md", "from the other handle\n", "")}})
	if err != nil {
		t.Fatal(err)
	}
	other.Close()
	mine := write(t, v, put("c.md", "three\n", ""))
	if parent := strings.TrimSpace(gitCmd(t, v.Dir(), "rev-parse", string(mine.Commit)+"^")); parent != string(res.Commit) {
		t.Fatalf("write landed on %s, want on the other handle's %s", parent, res.Commit)
	}
	b, err := v.Read(ctx, "b.md", "")
	if err != nil || string(b.Content) != "from the other handle\n" {
		t.Fatalf("read the other handle's note: %v %+v", err, b)
	}
	verifyPacks(t, v)
	assertClean(t, v)
}

// TestPack_GitRepackedObjectsReadable: after the git CLI repacks everything with
// deltas (git gc --aggressive), Norn reads every revision through the deltas.
func TestPack_GitRepackedObjectsReadable(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	body := strings.Repeat("a line that stays the same in every version\n", 40)
	var commits []repo.CommitID
	for i := range 20 {
		res := write(t, v, put("big.md", fmt.Sprintf("%sversion %d\n", body, i), v.Revision("big.md")))
		commits = append(commits, res.Commit)
	}
	dir := v.Dir()
	v.Close()
	cmd := exec.Command("git", "-C", dir, "gc", "--aggressive", "--prune=now", "-q")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git gc: %v %s", err, out)
	}
	if out := gitCmd(t, dir, "verify-pack", "-v", packsIn(t, dir)[0]); !strings.Contains(out, "chain length") {
		t.Fatalf("git gc wrote no deltas:\n%s", out)
	}
	v2, err := repo.Open(ctx, dir, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer v2.Close()
	for i, c := range commits {
		b, err := v2.Read(ctx, "big.md", string(c))
		if err != nil || string(b.Content) != fmt.Sprintf("%sversion %d\n", body, i) {
			t.Fatalf("read version %d: %v", i, err)
		}
	}
	// Enough writes that small packs are merged, git's deltified pack among the
	// candidates (it is left alone).
	for i := range 20 {
		write(t, v2, put("big.md", fmt.Sprintf("%safter gc %d\n", body, i), v2.Revision("big.md")))
	}
	for i, c := range commits {
		b, err := v2.Read(ctx, "big.md", string(c))
		if err != nil || string(b.Content) != fmt.Sprintf("%sversion %d\n", body, i) {
			t.Fatalf("read version %d after merges: %v", i, err)
		}
	}
	deltas := false
	for _, idx := range packsIn(t, dir) {
		deltas = deltas || strings.Contains(gitCmd(t, dir, "verify-pack", "-v", idx), "chain length")
	}
	if !deltas {
		t.Fatal("git's deltified pack was rewritten")
	}
	gitCmd(t, dir, "fsck", "--strict", "--no-progress")
	if _, err := os.Stat(filepath.Join(dir, ".git", "objects", "pack")); err != nil {
		t.Fatal(err)
	}
}

func packsIn(t *testing.T, dir string) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "pack-*.idx"))
	if len(m) == 0 {
		t.Fatal("no packs")
	}
	return m
}
