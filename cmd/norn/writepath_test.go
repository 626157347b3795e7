package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLI_Write_PathRefusals: every path-safety refusal of a write is a gate
// rejection (exit 4) naming its documented rule, and nothing is written.
func TestCLI_Write_PathRefusals(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "", "init", dir)
	if err := os.Symlink(t.TempDir(), filepath.Join(dir, "d")); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "add", "d")
	git(t, dir, "commit", "-q", "-m", "a folder symlink")
	mustCLI(t, dir, "# src\n", "write", "src.md")
	head := git(t, dir, "rev-parse", "HEAD")
	tests := []struct{ path, rule string }{
		{"../x.md", "path-dotdot"},
		{"/tmp/x.md", "path-absolute"},
		{"C:/x.md", "path-absolute"},
		{".git/x.md", "path-git-dir"},
		{"x/.GIT/y.md", "path-git-dir"},
		{".git./x.md", "path-git-dir"},
		{"git~1/x.md", "path-git-dir"},
		{".git /x.md", "path-git-dir"},
		{`a\b.md`, "path-invalid"},
		{"a//b.md", "path-invalid"},
		{"./a.md", "path-invalid"},
		{"dir/", "path-invalid"},
		{strings.Repeat("n", 253) + ".md", "path-invalid"},
		{strings.Repeat("f", 256) + "/x.md", "path-invalid"},
		{".norn-tmp-a.md", "path-invalid"},
		{"a/.norn-tmp-b/c.md", "path-invalid"},
		{"d/x.md", "path-symlink-escape"},
	}
	for _, tt := range tests {
		for _, dry := range []bool{false, true} {
			args := []string{"write", tt.path, "--json"}
			if dry {
				args = append(args, "--dry-run")
			}
			out, _, code := cli(t, dir, "# x\n", args...)
			m := decode(t, out)
			vs, _ := m["violations"].([]any)
			if code != exitRejected || m["code"] != "gate_rejected" || len(vs) == 0 {
				t.Errorf("write %q (dry run %v): exit %d %s, want 4 gate_rejected with violations", tt.path, dry, code, out)
				continue
			}
			if r := vs[0].(map[string]any)["rule"]; r != tt.rule {
				t.Errorf("write %q: rule %v, want %s", tt.path, r, tt.rule)
			}
		}
		// A move writes its new path: refused the same way.
		out, _, code := cli(t, dir, "", "mv", "src.md", tt.path, "--json")
		m := decode(t, out)
		if vs, _ := m["violations"].([]any); code != exitRejected || len(vs) == 0 || vs[0].(map[string]any)["rule"] != tt.rule {
			t.Errorf("mv to %q: exit %d %s, want 4 with rule %s", tt.path, code, out, tt.rule)
		}
	}
	if got := git(t, dir, "rev-parse", "HEAD"); got != head {
		t.Fatalf("HEAD moved: %s", got)
	}
	git(t, dir, "fsck", "--strict")
	if st := git(t, dir, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Fatalf("git status:\n%s", st)
	}
	// The longest name a file system holds is fine.
	name := strings.Repeat("n", 252) + ".md"
	mustCLI(t, dir, "# long\n", "write", name)
	if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
	if st := git(t, dir, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Fatalf("git status:\n%s", st)
	}
}

// TestCLI_TempNamedNote_SurvivesDoctorAndCommit: a note named like Norn's temporary
// files, committed before the gates reserved the prefix (here with the git CLI), is
// neither deleted by doctor nor archived by commit.
func TestCLI_TempNamedNote_SurvivesDoctorAndCommit(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "", "init", dir)
	name := ".norn-tmp-a.md"
	if err := os.WriteFile(filepath.Join(dir, name), []byte("# keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "add", name)
	git(t, dir, "commit", "-q", "-m", "a note with a reserved name")
	head := git(t, dir, "rev-parse", "HEAD")
	if out, _, code := cli(t, dir, "", "doctor"); code != 0 {
		t.Fatalf("doctor: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
		t.Fatalf("doctor removed the note: %v", err)
	}
	mustCLI(t, dir, "", "commit")
	if got := git(t, dir, "rev-parse", "HEAD"); got != head {
		t.Fatalf("commit made %s:\n%s", got, git(t, dir, "show", "--stat", "HEAD"))
	}
	if got := mustCLI(t, dir, "", "read", name); got != "# keep\n" {
		t.Fatalf("read: %q", got)
	}
	// It can still be moved away (and archived): only new names are refused.
	mustCLI(t, dir, "", "mv", name, "kept.md")
	git(t, dir, "fsck", "--strict")
	if st := git(t, dir, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Fatalf("git status:\n%s", st)
	}
}

// TestCLI_Write_Unchanged: writing a note's current bytes back with its revision
// commits nothing and says so (exit 0).
func TestCLI_Write_Unchanged(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "", "init", dir)
	w := decode(t, mustCLI(t, dir, "# T\n", "write", "t.md", "--json"))
	rev := w["changes"].([]any)[0].(map[string]any)["revision"].(string)
	head := git(t, dir, "rev-parse", "HEAD")
	for _, dry := range []bool{true, false} {
		args := []string{"write", "t.md", "--expected-revision", rev, "--json"}
		if dry {
			args = append(args, "--dry-run")
		}
		m := decode(t, mustCLI(t, dir, "# T\n", args...))
		if m["unchanged"] != true || m["commit"] != nil || len(m["changes"].([]any)) != 0 || m["parent"] != strings.TrimSpace(head) {
			t.Fatalf("no-op write (dry run %v): %v", dry, m)
		}
	}
	if out := mustCLI(t, dir, "# T\n", "write", "t.md", "--expected-revision", rev); !strings.Contains(out, "unchanged") {
		t.Fatalf("human output: %q", out)
	}
	if got := git(t, dir, "rev-parse", "HEAD"); got != head {
		t.Fatalf("a no-op write committed:\n%s", git(t, dir, "log", "--stat", "-1"))
	}
	if st := git(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("git status:\n%s", st)
	}
}

// TestCLI_LogAndLs_CheckPathsLikeRead: log and ls refuse the paths read refuses
// (absolute, "..", ".git") instead of answering with nothing or dropping the "/".
func TestCLI_LogAndLs_CheckPathsLikeRead(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "", "init", dir)
	mustCLI(t, dir, "# V\n", "write", "concepts/vault.md")
	for _, args := range [][]string{
		{"read", "/concepts/vault.md"},
		{"log", "/concepts/vault.md"},
		{"log", ".git/config"},
		{"log", "../x"},
		{"ls", "/etc"},
		{"ls", "/concepts"},
		{"ls", "../x"},
		{"ls", ".git"},
	} {
		out, _, code := cli(t, dir, "", append(args, "--json")...)
		if code != exitError || decode(t, out)["code"] != "invalid" {
			t.Errorf("norn %v: exit %d %s, want 1 invalid", args, code, out)
		}
	}
	if out := mustCLI(t, dir, "", "ls", "concepts/"); !strings.Contains(out, "vault.md") {
		t.Fatalf("ls concepts/: %q", out)
	}
	if out := mustCLI(t, dir, "", "log", "concepts/vault.md"); !strings.Contains(out, "write") {
		t.Fatalf("log concepts/vault.md: %q", out)
	}
}

// TestCLI_Log_JSONShape: log's JSON is lower-case keyed like the rest of the CLI's
// (author and committer as {name, email}) and a root commit's parents are [].
func TestCLI_Log_JSONShape(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "", "init", dir)
	m := decode(t, mustCLI(t, dir, "", "log", "--json"))
	commits := m["commits"].([]any)
	root := commits[len(commits)-1].(map[string]any)
	if ps, ok := root["parents"].([]any); !ok || len(ps) != 0 {
		t.Fatalf("root commit parents: %#v", root["parents"])
	}
	for _, k := range []string{"author", "committer"} {
		a, _ := root[k].(map[string]any)
		if a["name"] == nil || a["email"] == nil || a["Name"] != nil {
			t.Fatalf("%s: %#v", k, root[k])
		}
	}
	if out, _, code := cli(t, dir, "", "log", "nowhere.md", "--json"); code != exitError || decode(t, out)["code"] != "not_found" {
		t.Fatalf("a path with no history: exit %d %s, want 1 not_found", code, out)
	}
}
