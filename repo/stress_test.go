package repo_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// TestVault_ConcurrentStress: 4 goroutines × 250 random writes, archives, moves and
// restores on overlapping notes. Afterwards git fsck --strict is clean, git status is
// empty, git log shows each commit's author and Norn-Op, and every acknowledged write
// is reachable with its exact bytes.
func TestVault_ConcurrentStress(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	const workers, ops = 4, 250
	type ack struct {
		commit repo.CommitID
		path   note.Path
		bytes  string
		author string
	}
	var mu sync.Mutex
	var acks []ack
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			author := fmt.Sprintf("agent-%d", w)
			var archived []note.Path
			var archivedAt []repo.CommitID
			for i := range ops {
				p := note.Path(fmt.Sprintf("f%d/n%d.md", rng.IntN(3), rng.IntN(12)))
				rev := v.Revision(p)
				var tx repo.Tx
				tx.Author = repo.Author{Name: author}
				content := fmt.Sprintf("# %s\nwrite %d by %s\n", p, i, author)
				switch op := rng.IntN(10); {
				case op < 6 || rev == "":
					tx.Op = repo.OpWrite
					tx.Changes = []repo.Change{put(string(p), content, rev)}
				case op < 8:
					tx.Op, tx.Reason = repo.OpArchive, repo.ReasonArchived
					tx.Changes = []repo.Change{{Kind: repo.Archive, Path: p, ExpectedRevision: rev}}
				case op < 9:
					to := note.Path(fmt.Sprintf("f%d/n%d.md", rng.IntN(3), 12+rng.IntN(6)))
					tx.Op = repo.OpMove
					tx.Changes = []repo.Change{{Kind: repo.Move, From: p, Path: to, ExpectedRevision: rev}}
				default:
					if len(archived) == 0 {
						continue
					}
					k := rng.IntN(len(archived))
					tx.Op = repo.OpRestore
					tx.Changes = []repo.Change{{Kind: repo.Restore, Path: archived[k], FromCommit: string(archivedAt[k])}}
				}
				res, err := v.Apply(ctx, tx)
				if err != nil {
					if errors.Is(err, repo.ErrConflict) || errors.Is(err, repo.ErrNotFound) {
						continue // lost a race with another writer: expected
					}
					t.Errorf("%s %v: %v", tx.Op, tx.Changes[0].Path, err)
					return
				}
				mu.Lock()
				for _, c := range res.Changes {
					if c.Kind == repo.Archive {
						archived = append(archived, c.Path)
						archivedAt = append(archivedAt, res.Parent)
						continue
					}
					b, err := v.ReadRevision(ctx, c.Revision)
					if err != nil {
						t.Errorf("read back %s: %v", c.Revision, err)
					}
					acks = append(acks, ack{res.Commit, c.Path, string(b), author})
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	assertClean(t, v)
	if len(acks) < 200 {
		t.Fatalf("only %d acknowledged writes", len(acks))
	}
	// Every commit carries its author and a Norn-Op trailer.
	lines := strings.Split(strings.TrimSpace(gitCmd(t, v.Dir(), "log", "--format=%H|%an|%(trailers:key=Norn-Op,valueonly,separator=)")), "\n")
	byCommit := map[string]string{}
	for _, l := range lines {
		parts := strings.Split(l, "|")
		if len(parts) != 3 || parts[2] == "" {
			t.Fatalf("log line without author or Norn-Op: %q", l)
		}
		byCommit[parts[0]] = parts[1]
	}
	for _, a := range acks {
		if byCommit[string(a.commit)] != a.author {
			t.Fatalf("commit %s: author %q, want %q (or not reachable)", a.commit, byCommit[string(a.commit)], a.author)
		}
		got := gitCmd(t, v.Dir(), "show", string(a.commit)+":"+string(a.path))
		if got != a.bytes {
			t.Fatalf("commit %s %s: bytes %q, want %q", a.commit, a.path, got, a.bytes)
		}
	}
}

// TestVault_ExternalScanDuringWrites: while 4 writers commit 150 writes each (puts and
// archives on overlapping notes), a scanner calls CommitExternal in a loop, as the
// serving maintainer does. Nobody edits the working tree, so no scan may find an
// edit: an external commit here would be an acknowledged write taken back. Every
// scan returns nothing or a conflict; afterwards a person's real edit is still
// committed as external.
func TestVault_ExternalScanDuringWrites(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	const workers, ops = 4, 150
	var wg sync.WaitGroup
	stop := make(chan struct{})
	scans := make(chan int, 1)
	go func() {
		n := 0
		defer func() { scans <- n }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			res, err := v.CommitExternal(ctx, "", "")
			if err != nil && !errors.Is(err, repo.ErrConflict) {
				t.Errorf("scan: %v", err)
				return
			}
			if res != nil {
				t.Errorf("scan %d committed %s (%d changes, first %+v) though nobody edited the working tree\n%s", n, res.Commit, len(res.Changes), res.Changes[0], gitCmd(t, v.Dir(), "log", "-6", "--stat", "--format=%H %P %an %s", string(res.Commit)))
				return
			}
			n++
		}
	}()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 11))
			for i := range ops {
				p := note.Path(fmt.Sprintf("n%d.md", rng.IntN(6)))
				rev := v.Revision(p)
				tx := repo.Tx{Author: repo.Author{Name: fmt.Sprintf("agent-%d", w)}, Op: repo.OpWrite,
					Changes: []repo.Change{put(string(p), fmt.Sprintf("# %s\nwrite %d by %d\n", p, i, w), rev)}}
				if rev != "" && rng.IntN(5) == 0 {
					tx.Op, tx.Reason = repo.OpArchive, repo.ReasonArchived
					tx.Changes = []repo.Change{{Kind: repo.Archive, Path: p, ExpectedRevision: rev}}
				}
				if _, err := v.Apply(ctx, tx); err != nil && !errors.Is(err, repo.ErrConflict) && !errors.Is(err, repo.ErrNotFound) {
					t.Errorf("%s %s: %v", tx.Op, p, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	n := <-scans
	if t.Failed() {
		return
	}
	if n == 0 {
		t.Fatal("the scanner never completed a scan")
	}
	if ext := gitCmd(t, v.Dir(), "log", "--format=%H", "--grep=Norn-Op: external"); ext != "" {
		t.Fatalf("external commits while nobody edited the working tree:\n%s", ext)
	}
	assertClean(t, v)

	// A person's edit is still found and committed.
	if err := os.WriteFile(filepath.Join(v.Dir(), "person.md"), []byte("# Person\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := v.CommitExternal(ctx, "", "")
	if err != nil || res == nil || len(res.Changes) != 1 || res.Changes[0].Path != "person.md" {
		t.Fatalf("CommitExternal after a person's edit = %+v, %v; want one change to person.md", res, err)
	}
	assertClean(t, v)
}
