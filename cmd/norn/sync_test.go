package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLI_SyncWithGit: the git CLI is the other replica (clone, edit, commit,
// push); norn sync merges both sides' work; git pull brings it back byte for
// byte; norn status and norn conflicts report what happened.
func TestCLI_SyncWithGit(t *testing.T) {
	dir := newVault(t)
	bare := newBareRemote(t)
	mustCLI(t, dir, "", "remote", "add", "origin", bare)
	mustCLI(t, dir, "# Shared\none\ntwo\nthree\n", "write", "shared.md")
	if out := decode(t, mustCLI(t, dir, "", "sync", "--json")); out["outcome"] != "first-push" {
		t.Fatalf("first sync: %v", out)
	}
	person := filepath.Join(t.TempDir(), "person")
	git(t, "", "clone", "-q", bare, person)
	if err := os.WriteFile(filepath.Join(person, "shared.md"), []byte("# Shared\none\ntwo\nthree, said the person\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(person, "theirs.md"), []byte("# From git\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, person, "add", "-A")
	git(t, person, "commit", "-q", "-m", "edit with git")
	git(t, person, "push", "-q", "origin", "main")

	rev := strings.TrimSpace(git(t, dir, "rev-parse", "HEAD:shared.md"))
	mustCLI(t, dir, "# Shared\none, said norn\ntwo\nthree\n", "write", "shared.md", "--expected-revision", rev)
	out := decode(t, mustCLI(t, dir, "", "sync", "--json"))
	if out["outcome"] != "merged" {
		t.Fatalf("sync: %v", out)
	}
	want := "# Shared\none, said norn\ntwo\nthree, said the person\n"
	if got, _ := os.ReadFile(filepath.Join(dir, "shared.md")); string(got) != want {
		t.Fatalf("vault's shared.md %q", got)
	}
	if st := git(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("git status after sync:\n%s", st)
	}
	git(t, person, "pull", "-q", "--ff-only")
	if got, _ := os.ReadFile(filepath.Join(person, "shared.md")); string(got) != want {
		t.Fatalf("pulled shared.md %q", got)
	}
	git(t, person, "fsck", "--strict", "--no-progress")
	if graph := git(t, person, "log", "--graph", "--oneline"); !strings.Contains(graph, "merge origin/main") {
		t.Fatalf("log --graph:\n%s", graph)
	}

	// Status: in step, a fetch and a push recorded, no error.
	st := decode(t, mustCLI(t, dir, "", "status", "--json"))
	rs := st["remotes"].([]any)
	r0 := rs[0].(map[string]any)
	if r0["ahead"] != 0.0 || r0["behind"] != 0.0 || r0["last_push"] == nil || r0["last_error"] != nil {
		t.Fatalf("status: %v", st)
	}

	// A true conflict: both change the same line; norn conflicts lists the sibling.
	if err := os.WriteFile(filepath.Join(person, "shared.md"), []byte("# Shared\nperson's line\ntwo\nthree, said the person\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, person, "commit", "-q", "-am", "same line")
	git(t, person, "push", "-q", "origin", "main")
	rev = strings.TrimSpace(git(t, dir, "rev-parse", "HEAD:shared.md"))
	mustCLI(t, dir, "# Shared\nnorn's line\ntwo\nthree, said the person\n", "write", "shared.md", "--expected-revision", rev)
	out = decode(t, mustCLI(t, dir, "", "sync", "--json"))
	if cs, _ := out["conflicts"].([]any); len(cs) != 1 {
		t.Fatalf("sync with a conflict: %v", out)
	}
	list := decode(t, mustCLI(t, dir, "", "conflicts", "--json"))
	cs := list["conflicts"].([]any)
	if len(cs) != 1 || cs[0].(map[string]any)["of"] != "[[shared]]" {
		t.Fatalf("conflicts: %v", list)
	}
	sib := cs[0].(map[string]any)["sibling"].(string)
	if b, _ := os.ReadFile(filepath.Join(dir, sib)); !strings.Contains(string(b), "person's line") {
		t.Fatalf("sibling %s: %q", sib, b)
	}
	// Bad input: an unknown remote is refused, nothing changes.
	head := git(t, dir, "rev-parse", "HEAD")
	if _, _, code := cli(t, dir, "", "sync", "nope"); code != exitError {
		t.Fatalf("sync nope: exit %d", code)
	}
	if git(t, dir, "rev-parse", "HEAD") != head {
		t.Fatal("a refused sync moved the branch")
	}
}

// TestCLI_SyncNornRecordConflict: a claim record changed on both sides keeps
// ours whole; theirs goes under .norn/conflicts/, and norn conflicts names the
// record it conflicts with.
func TestCLI_SyncNornRecordConflict(t *testing.T) {
	dir := newVault(t)
	bare := newBareRemote(t)
	mustCLI(t, dir, "", "remote", "add", "origin", bare)
	claim := filepath.Join(".norn", "claims", "c1.yaml")
	put := func(root, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(root, ".norn", "claims"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, claim), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put(dir, "subject: bloom\nvalue: 1\n")
	mustCLI(t, dir, "", "commit")
	mustCLI(t, dir, "", "sync")
	person := filepath.Join(t.TempDir(), "person")
	git(t, "", "clone", "-q", bare, person)
	put(person, "subject: bloom\nvalue: 2\n")
	git(t, person, "commit", "-q", "-am", "value 2")
	git(t, person, "push", "-q", "origin", "main")
	put(dir, "subject: bloom\nvalue:\n  - 3\n")
	mustCLI(t, dir, "", "commit")
	out := decode(t, mustCLI(t, dir, "", "sync", "--json"))
	cs, _ := out["conflicts"].([]any)
	if len(cs) != 1 || !strings.HasPrefix(cs[0].(map[string]any)["sibling"].(string), ".norn/conflicts/claims/c1 (conflict ") {
		t.Fatalf("sync: %v", out)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, claim)); string(got) != "subject: bloom\nvalue:\n  - 3\n" {
		t.Fatalf("the record is %q, want ours whole", got)
	}
	list := decode(t, mustCLI(t, dir, "", "conflicts", "--json"))
	if ls := list["conflicts"].([]any); len(ls) != 1 || ls[0].(map[string]any)["of"] != ".norn/claims/c1.yaml" {
		t.Fatalf("conflicts: %v", list)
	} else if c := ls[0].(map[string]any); c["machine"] == nil || c["machine"] == "" || c["date"] == nil || c["date"] == "" {
		t.Fatalf("conflicts: the record's machine and day are missing: %v", c)
	}
	text, _, _ := cli(t, dir, "", "conflicts")
	if strings.Contains(text, "(, )") || !strings.Contains(text, "conflicts with .norn/claims/c1.yaml (") {
		t.Fatalf("conflicts text:\n%s", text)
	}
}
