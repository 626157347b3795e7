package remote_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/sync/remote"
)

// BenchmarkRemotes_SyncNothingToDo: Sync of a vault already in step with a local
// bare remote (fetch, compare, state recorded), beside `git fetch && git push`
// doing the same in the same run.
func BenchmarkRemotes_SyncNothingToDo(b *testing.B) {
	for _, commits := range []int{1, 100} {
		bare := newBare(b)
		rp := newReplica(b, "bench", bare, true)
		for i := range commits - 1 {
			rp.put(b, fmt.Sprintf("n%d.md", i), fmt.Sprintf("# %d\n", i))
		}
		rp.sync(b)
		b.Run(fmt.Sprintf("commits=%d/norn", commits), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res, err := rp.r.Sync(b.Context(), rp.v, "origin", remote.SyncOptions{Machine: "bench"})
				if err != nil || res.Outcome != remote.UpToDate {
					b.Fatalf("Sync = %+v, %v", res, err)
				}
			}
		})
		b.Run(fmt.Sprintf("commits=%d/git-cli", commits), func(b *testing.B) {
			for b.Loop() {
				git(b, rp.v.Dir(), "fetch", "-q", "origin")
				git(b, rp.v.Dir(), "push", "-q", "origin", "main")
			}
		})
	}
}

// BenchmarkRemotes_SyncMerge: a sync that merges two histories, each changing 100
// notes of a 1,000-note vault (disjoint notes, plus 10 notes edited on both sides
// on different lines), and pushes the merge; beside it, the git CLI merging the
// same histories with `git pull --no-rebase && git push` in the same run.
func BenchmarkRemotes_SyncMerge(b *testing.B) {
	const notes = 1000
	bare := newBare(b)
	a := newReplica(b, "a", bare, true)
	seed := make([]repo.Change, notes)
	for i := range seed {
		seed[i] = repo.Change{Kind: repo.Put, Path: note.Path(fmt.Sprintf("f%02d/n%04d.md", i%20, i)), Content: []byte(benchNote(i, "", ""))}
	}
	apply(b, a, seed)
	a.sync(b)
	o := newReplica(b, "b", bare, false)
	edit := func(rp *replica, from, round int, side string) {
		var cs []repo.Change
		for i := from; i < from+100; i++ {
			p := note.Path(fmt.Sprintf("f%02d/n%04d.md", i%20, i%notes))
			cur, err := rp.v.Read(b.Context(), p, "")
			if err != nil {
				b.Fatal(err)
			}
			lines := strings.Split(string(cur.Content), "\n")
			if side == "a" {
				lines[4] = fmt.Sprintf("first a%d", round)
			} else {
				lines[8] = fmt.Sprintf("last b%d", round)
			}
			cs = append(cs, repo.Change{Kind: repo.Put, Path: p, Content: []byte(strings.Join(lines, "\n")), ExpectedRevision: cur.Revision})
		}
		apply(b, rp, cs)
	}
	round := 0
	b.Run("notes=1000/norn", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			round++
			edit(a, 0, round, "a")
			a.sync(b)
			edit(o, 90, round, "b") // n0090..n0189: 10 notes both edited
			b.StartTimer()
			if res := o.sync(b); res.Outcome != remote.Merged || len(res.Conflicts) != 0 {
				b.Fatalf("sync: %+v", res)
			}
			b.StopTimer()
			a.sync(b)
			b.StartTimer()
		}
	})
	benchGitMerge(b, notes)
}

// benchGitMerge is BenchmarkRemotes_SyncMerge's case for the git CLI: two clones
// make the same edits with git commit, and the timed part is `git pull --no-rebase
// && git push` of the second.
func benchGitMerge(b *testing.B, notes int) {
	bare := newBare(b)
	p := filepath.Join(b.TempDir(), "p")
	git(b, "", "clone", "-q", bare, p)
	for i := range notes {
		dir := filepath.Join(p, fmt.Sprintf("f%02d", i%20))
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("n%04d.md", i)), []byte(benchNote(i, "", "")), 0o644)
	}
	git(b, p, "add", "-A")
	git(b, p, "commit", "-q", "-m", "seed")
	git(b, p, "push", "-q", "origin", "HEAD:main")
	q := filepath.Join(b.TempDir(), "q")
	git(b, "", "clone", "-q", bare, q)
	edit := func(dir string, from, round int, side string) {
		for i := from; i < from+100; i++ {
			f := filepath.Join(dir, fmt.Sprintf("f%02d/n%04d.md", i%20, i%notes))
			cur, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			lines := strings.Split(string(cur), "\n")
			if side == "a" {
				lines[4] = fmt.Sprintf("first a%d", round)
			} else {
				lines[8] = fmt.Sprintf("last b%d", round)
			}
			os.WriteFile(f, []byte(strings.Join(lines, "\n")), 0o644)
		}
		git(b, dir, "commit", "-q", "-am", "edit "+side)
	}
	round := 0
	b.Run(fmt.Sprintf("notes=%d/git-cli", notes), func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			round++
			edit(p, 0, round, "a")
			git(b, p, "pull", "-q", "--no-rebase", "--no-edit")
			git(b, p, "push", "-q", "origin", "HEAD:main")
			edit(q, 90, round, "b")
			b.StartTimer()
			git(b, q, "pull", "-q", "--no-rebase", "--no-edit")
			git(b, q, "push", "-q", "origin", "HEAD:main")
		}
	})
}

func benchNote(i int, first, last string) string {
	return fmt.Sprintf("---\ntitle: Note %d\n---\n# Note %d\nfirst %s\nmiddle line one\nmiddle line two\nmiddle line three\nlast %s\n", i, i, first, last)
}

func apply(b testing.TB, rp *replica, cs []repo.Change) {
	b.Helper()
	if _, err := rp.v.Apply(b.Context(), repo.Tx{Author: repo.Author{Name: "bench"}, Op: repo.OpWrite, Changes: cs}); err != nil {
		b.Fatal(err)
	}
}
