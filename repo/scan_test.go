package repo_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/norn-vault/norn/repo"
)

// changeList renders changes as sorted "kind path" lines.
func changeList(cs []repo.Change) []string {
	var out []string
	for _, c := range cs {
		out = append(out, string(c.Kind)+" "+string(c.Path))
	}
	slices.Sort(out)
	return out
}

// TestVault_ChangesInAgreesWithChanges: a scan of the paths a person touched finds
// what the full scan finds (modified, new, removed files, a removed folder, ignored and tracked-but-ignored files, a new .gitignore), and
// nothing outside its paths; git status is the oracle for the full scan.
func TestVault_ChangesInAgreesWithChanges(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	write(t, v, put(".gitignore", "ignored/\n*.log\n", ""), put("a.md", "a\n", ""), put("gone/x.md", "x\n", ""),
		put("gone/deep/y.md", "y\n", ""), put("f.md", "f\n", ""), put("ignored/t.md", "t\n", ""), put("keep/k.md", "k\n", ""),
		put("untouched.md", "u\n", ""))
	dir := v.Dir()
	mk := func(p, s string) {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk("a.md", "a, edited\n")
	mk("new/deep/n.md", "new\n")
	os.RemoveAll(filepath.Join(dir, "gone"))
	os.Remove(filepath.Join(dir, "f.md"))
	mk("ignored/t.md", "tracked, edited\n")
	mk("ignored/new.md", "untracked under an ignored folder\n")
	mk("keep/x.log", "ignored\n")
	mk("keep/.gitignore", "!x.log\n")
	mk(".obsidian/workspace.json", "{}")
	if st := gitCmd(t, dir, "status", "--porcelain", "--untracked-files=all"); st != " M a.md\n D f.md\n D gone/deep/y.md\n D gone/x.md\n M ignored/t.md\n?? .obsidian/workspace.json\n?? keep/.gitignore\n?? keep/x.log\n?? new/deep/n.md\n" {
		t.Fatalf("git status (the oracle): %q", st)
	}
	full, err := v.Changes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"archive f.md", "archive gone/deep/y.md", "archive gone/x.md", "put a.md",
		"put ignored/t.md", "put keep/.gitignore", "put keep/x.log", "put new/deep/n.md"}
	if got := changeList(full); !slices.Equal(got, want) {
		t.Fatalf("full scan: %v\nwant %v", got, want)
	}
	touched := []string{"a.md", "new", "gone", "f.md", "ignored/t.md", "ignored/new.md", "keep/.gitignore", "keep/x.log",
		".obsidian/workspace.json", "gone/deep/y.md", ".git/index", "no/such/path"}
	scoped, err := v.ChangesIn(ctx, repo.Scope{Paths: touched})
	if err != nil {
		t.Fatal(err)
	}
	if got := changeList(scoped); !slices.Equal(got, want) {
		t.Fatalf("scoped scan: %v\nwant %v", got, want)
	}
	some, err := v.ChangesIn(ctx, repo.Scope{Paths: []string{"a.md", "untouched.md", "keep/k.md"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := changeList(some); !slices.Equal(got, []string{"put a.md"}) {
		t.Fatalf("scoped to a.md: %v", got)
	}
	if none, err := v.ChangesIn(ctx, repo.Scope{}); err != nil || len(none) != 0 {
		t.Fatalf("empty scope: %v %v", none, err)
	}
	res, err := v.CommitExternalIn(ctx, repo.Scope{Paths: touched}, "", "")
	if err != nil || res == nil {
		t.Fatal(res, err)
	}
	if st := gitCmd(t, dir, "status", "--porcelain", "--untracked-files=all"); st != "?? .obsidian/workspace.json\n" {
		t.Fatalf("git status after the scoped commit: %q", st)
	}
}
