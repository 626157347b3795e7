package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// coldVault makes a vault of n notes (folders of 100) with norn init and its
// search index built, so that git's index is a split one, as at scale.
func coldVault(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("f%02d", i/100), fmt.Sprintf("n%04d.md", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		body := fmt.Sprintf("---\ntitle: Note %d\ntype: note\nstatus: active\ntags: [cold, write]\nupdated: 2026-12-01\n---\n# Note %d\nFiller text.\n", i, i)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustCLI(t, dir, "", "init", dir)
	mustCLI(t, dir, "", "search", "filler", "--json")
	if m, _ := filepath.Glob(filepath.Join(dir, ".git", "sharedindex.*")); len(m) == 0 {
		t.Fatal("no split index")
	}
	return dir
}

// assertGitClean checks with the git CLI that the repository is sound and that
// git's index and the working tree hold exactly HEAD.
func assertGitClean(t *testing.T, dir string) {
	t.Helper()
	git(t, dir, "fsck", "--strict", "--no-progress")
	if st := git(t, dir, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Fatalf("git status not clean:\n%s", st)
	}
	if d := git(t, dir, "diff-index", "--cached", "HEAD"); d != "" {
		t.Fatalf("git's index differs from HEAD:\n%s", d)
	}
}

// TestCLI_ColdWrite: the writing commands open the vault lean (reading only the
// trees and index entries on their paths); what they commit is what git reads
// back, git's index and working tree stay HEAD's, and the next `norn search`
// finds each change (the index catches up by tree diff). A refused write
// changes nothing.
func TestCLI_ColdWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short mode")
	}
	dir := coldVault(t, 1100)
	note := "---\ntitle: Quokka facts\ntype: note\nstatus: active\ntags: [animals, cold]\nupdated: 2026-12-08\n---\n# Quokka facts\nThe quokka smiles.\n"
	w := decode(t, mustCLI(t, dir, note, "write", "f05/quokka.md", "--json"))
	if w["commit"] != strings.TrimSpace(git(t, dir, "rev-parse", "HEAD")) {
		t.Fatalf("write: %v, HEAD %s", w, git(t, dir, "rev-parse", "HEAD"))
	}
	if got := git(t, dir, "show", "HEAD:f05/quokka.md"); got != note {
		t.Fatalf("git show: %q", got)
	}
	assertGitClean(t, dir)
	if out := mustCLI(t, dir, "", "search", "quokka", "--json"); !strings.Contains(out, "f05/quokka.md") {
		t.Fatalf("search does not find the cold write:\n%s", out)
	}
	rev := w["changes"].([]any)[0].(map[string]any)["revision"].(string)
	mustCLI(t, dir, "", "edit", "f05/quokka.md", "--op", "append", "--content", "Wallaby cousin.", "--expected-revision", rev)
	assertGitClean(t, dir)
	mustCLI(t, dir, "", "mv", "f05/quokka.md", "f09/quokka.md")
	assertGitClean(t, dir)
	if out := mustCLI(t, dir, "", "search", "wallaby", "--json"); !strings.Contains(out, "f09/quokka.md") || strings.Contains(out, "f05/quokka.md") {
		t.Fatalf("search after edit and move:\n%s", out)
	}
	mustCLI(t, dir, "", "archive", "f00/n0007.md", "--reason", "archived")
	assertGitClean(t, dir)
	if _, err := os.Stat(filepath.Join(dir, "f00/n0007.md")); !os.IsNotExist(err) {
		t.Fatalf("archived note still in the working tree: %v", err)
	}

	// Refused: a gate (a key twice), a stale revision, a bad path. Nothing written.
	head := git(t, dir, "rev-parse", "HEAD")
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"write", "f01/bad.md"}, exitRejected},
		{[]string{"write", "f01/n0100.md", "--expected-revision", strings.Repeat("a", 40)}, exitConflict},
		{[]string{"write", "../out.md"}, exitRejected},
	} {
		args := tc.args
		_, _, code := cli(t, dir, "---\ntitle: a\ntitle: b\n---\n# x\n", append(args, "--json")...)
		if code != tc.code {
			t.Fatalf("norn %v: exit %d, want %d", args, code, tc.code)
		}
		if got := git(t, dir, "rev-parse", "HEAD"); got != head {
			t.Fatalf("norn %v: HEAD moved", args)
		}
		assertGitClean(t, dir)
	}
}
