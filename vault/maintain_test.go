package vault_test

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

func TestMaintainer_CommitsExternalEditsAndPacks(t *testing.T) {
	v, s := openVault(t)
	// A low threshold so packing happens.
	if err := write(v, ".norn/config.yaml", "gc:\n  loose_objects: 5\n", "owner"); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if err := write(v, "n.md", strings.Repeat("x", i+1)+"\n", "owner"); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(v.Dir(), "by-hand.md"), []byte("# By hand\n"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	m := &vault.Maintainer{Vault: vault.Assemble(v, s, nil), Every: 20 * time.Millisecond}
	go func() { done <- m.Run(ctx) }()
	deadline := time.Now().Add(10 * time.Second)
	for v.Revision("by-hand.md") == "" || v.LooseObjects() > 5 {
		if time.Now().After(deadline) {
			t.Fatalf("not done: revision %q, %d loose objects", v.Revision("by-hand.md"), v.LooseObjects())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", v.Dir(), "log", "-1", "--format=%an %(trailers:key=Norn-Op,valueonly)", "--", "by-hand.md").Output()
	if err != nil || !strings.HasPrefix(string(out), "o external") {
		t.Fatalf("git log: %q %v", out, err)
	}
	b, err := v.Read(context.Background(), "n.md", "HEAD~3")
	if err != nil || string(b.Content) != "xxx\n" {
		t.Fatalf("old revision after packing: %q %v", b.Content, err)
	}
}

// TestMaintainer_RollsUpPacks: writes leave no loose objects but a pack each; once
// there are more than gc.packs, the maintainer rolls them into one, and old
// revisions still read back.
func TestMaintainer_RollsUpPacks(t *testing.T) {
	v, s := openVault(t)
	if err := write(v, ".norn/config.yaml", "gc:\n  packs: 4\n", "owner"); err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		if err := write(v, "n.md", strings.Repeat("x", i+1)+"\n", "owner"); err != nil {
			t.Fatal(err)
		}
	}
	if n := v.Packs(); n <= 4 {
		t.Fatalf("%d packs before maintenance, want more than 4", n)
	}
	m := &vault.Maintainer{Vault: vault.Assemble(v, s, nil)}
	if err := m.Round(context.Background()); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", v.Dir(), "count-objects", "-v").Output()
	if err != nil || !strings.Contains(string(out), "\npacks: 1\n") || v.Packs() != 1 {
		t.Fatalf("after a round: %d packs; git count-objects -v: %s %v", v.Packs(), out, err)
	}
	b, err := v.Read(context.Background(), "n.md", "HEAD~3")
	if err != nil || string(b.Content) != "xxx\n" {
		t.Fatalf("old revision after the roll-up: %q %v", b.Content, err)
	}
}

// TestMaintainer_TakesInOtherProcessCommits: a note written by another process (a
// `norn write` beside `norn serve`; a second handle here) reaches the served vault
// in one maintainer round: its head and search index move to that commit, and the
// other process's file is not mistaken for a hand edit.
func TestMaintainer_TakesInOtherProcessCommits(t *testing.T) {
	ctx := context.Background()
	sv := openServed(t, nil)
	dir := sv.Dir()
	cli, err := repo.Open(ctx, dir, repo.Options{Owner: repo.Author{Name: "o", Email: "o@x"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cli.Apply(ctx, repo.Tx{Author: repo.Author{Name: "cli"}, Roles: []string{"owner"}, Op: repo.OpWrite,
		Changes: []repo.Change{{Kind: repo.Put, Path: "cli.md", Content: []byte("# From the command line\n\nquetzalcoatl\n")}}})
	if err != nil {
		t.Fatal(err)
	}
	cli.Close()
	find := func() *vault.SearchResponse {
		// Not waiting for pending writes: that would refresh the vault itself.
		r, err := sv.Index.Search(ctx, vault.SearchRequest{Query: "quetzalcoatl"})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := find(); len(r.Hits) != 0 || r.HeadCommit == string(res.Commit) {
		t.Fatalf("the served vault saw the commit before a round: %+v", r)
	}
	m := &vault.Maintainer{Vault: sv}
	if err := m.Round(ctx); err != nil {
		t.Fatal(err)
	}
	r := find()
	if len(r.Hits) != 1 || r.Hits[0].Path != "cli.md" || r.HeadCommit != string(res.Commit) || r.IndexCommit != string(res.Commit) || r.IndexStale {
		t.Fatalf("after a round: %+v %+v", r, r.Hits)
	}
	if sv.Head() != res.Commit {
		t.Fatalf("head %s, want %s", sv.Head(), res.Commit)
	}
	if top := strings.TrimSpace(gitIn(t, dir, "log", "-1", "--format=%H %an")); top != string(res.Commit)+" cli" {
		t.Fatalf("the round committed something: %s", top)
	}
	if st := gitIn(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("git status: %s", st)
	}
}

// TestMaintainer_LeavesAnotherBranchAlone: a `git switch` beside a running server
// made the maintainer commit the other branch's files onto the vault's branch as
// hand edits. Now a round commits nothing while the working tree is another
// branch's, says so once in the log, and takes up hand edits again back on it.
func TestMaintainer_LeavesAnotherBranchAlone(t *testing.T) {
	v, s := openVault(t)
	ctx := context.Background()
	if err := write(v, "a.md", "---\ntitle: A\ntags: [x]\n---\n# A\nmain\n", "owner"); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", v.Dir(), "-c", "user.name=T", "-c", "user.email=t@x"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	tip := git("rev-parse", "main")
	git("switch", "-q", "-c", "other")
	os.WriteFile(filepath.Join(v.Dir(), "a.md"), []byte("---\ntitle: A\ntags: [x]\n---\n# A\nother\n"), 0o644)
	git("commit", "-q", "-am", "other edit")
	os.WriteFile(filepath.Join(v.Dir(), "b.md"), []byte("# B\nuntracked on other\n"), 0o644)

	var logs strings.Builder
	m := &vault.Maintainer{Vault: vault.Assemble(v, s, nil), Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	for range 2 {
		if err := m.Round(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := git("rev-parse", "main"); got != tip {
		t.Fatalf("a round on another branch committed to main: %s", git("log", "--oneline", tip+"..main"))
	}
	if n := strings.Count(logs.String(), "checked out at other"); n != 1 {
		t.Fatalf("the log names the other branch %d times, want once:\n%s", n, logs.String())
	}

	git("switch", "-q", "main")
	if err := m.Round(ctx); err != nil {
		t.Fatal(err)
	}
	if v.Revision("b.md") == "" || !strings.Contains(logs.String(), "back with the vault") {
		t.Fatalf("back on main, the hand edit b.md was not committed; log:\n%s", logs.String())
	}
	if got := git("show", "main:a.md"); !strings.HasSuffix(got, "main") {
		t.Fatalf("main's a.md: %q", got)
	}
}
