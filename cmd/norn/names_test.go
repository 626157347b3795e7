package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCLI_UnportableNamesRefused: every name a clone on Windows or macOS could not
// check out is refused as a new path by write and mv (exit 4, gate_rejected, the
// rule named), the path taken as given; a NUL byte in a note is content-nul.
// Nothing is written: HEAD, the working tree, git's index and the search index
// stay as they were.
func TestCLI_UnportableNamesRefused(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "", "init", dir)
	for _, p := range []string{"Case/Foo.md", "caf\u00e9.md", "src.md"} {
		mustCLI(t, dir, "# x\n", "write", p)
	}
	mustCLI(t, dir, "", "reindex")
	head := git(t, dir, "rev-parse", "HEAD")
	stage := git(t, dir, "ls-files", "--stage")
	tests := []struct{ path, rule string }{
		{"CON.md", "path-portable"},
		{"nul.md", "path-portable"},
		{"aux/x.md", "path-portable"},
		{"COM1.md", "path-portable"},
		{"lpt\u00b9.md", "path-portable"},
		{"a:b.md", "path-absolute"},
		{"ab:c.md", "path-portable"},
		{"x?.md", "path-portable"},
		{"x*.md", "path-portable"},
		{"a<b>.md", "path-portable"},
		{"a|b.md", "path-portable"},
		{`a"b.md`, "path-portable"},
		{"Case/foo.md", "path-case-collision"},
		{"case/Foo.md", "path-case-collision"},
		{"cafe\u0301.md", "path-case-collision"},
		{"rtl\u202eoverride.md", "path-portable"},
		{"zero\u200bwidth.md", "path-portable"},
		{"line\u2028sep.md", "path-portable"},
		{" m/space.md", "path-portable"},
		{"trail./x.md", "path-portable"},
	}
	rules := func(out string) []string {
		m := decode(t, out)
		vs, _ := m["violations"].([]any)
		var r []string
		for _, v := range vs {
			r = append(r, v.(map[string]any)["rule"].(string))
		}
		return r
	}
	for _, tt := range tests {
		for _, args := range [][]string{
			{"write", tt.path, "--json"},
			{"write", tt.path, "--json", "--dry-run"},
			{"mv", "src.md", tt.path, "--json"},
		} {
			out, _, code := cli(t, dir, "# x\n", args...)
			if r := rules(out); code != exitRejected || !slices.Contains(r, tt.rule) {
				t.Errorf("%q: exit %d, rules %v, want 4 and %s\n%s", args, code, r, tt.rule, out)
			}
		}
	}
	out, _, code := cli(t, dir, "# N\nbefore\x00after\n", "write", "nul-byte.md", "--json")
	if r := rules(out); code != exitRejected || !slices.Equal(r, []string{"content-nul"}) || !strings.Contains(out, "byte offset 10") {
		t.Fatalf("NUL byte: exit %d %s", code, out)
	}
	if got := git(t, dir, "rev-parse", "HEAD"); got != head {
		t.Fatalf("HEAD moved: %s", got)
	}
	if got := git(t, dir, "ls-files", "--stage"); got != stage {
		t.Fatalf("git index changed:\n%s", got)
	}
	if st := git(t, dir, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Fatalf("git status:\n%s", st)
	}
	if out := mustCLI(t, dir, "", "doctor"); !strings.Contains(out, "ok    index: at HEAD "+head[:12]) || !strings.Contains(out, "ok    portable-paths") {
		t.Fatalf("doctor:\n%s", out)
	}
}

// TestCLI_DoctorReportsUnportableNames: notes committed with the git CLI under
// such names, or holding a NUL byte, are listed by doctor as warnings; they stay
// editable, movable to a good name and archivable.
func TestCLI_DoctorReportsUnportableNames(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "", "init", dir)
	files := map[string]string{
		"CON.md":          "# Con\n",
		"aux/x.md":        "# Aux\n",
		"x?.md":           "# Q\n",
		"a\u202eb.md":     "# RTL\n",
		"Case/Foo.md":     "# A\n",
		"case/foo.md":     "# B\n",
		"Dir/A.md":        "# A\n",
		"Dir/a.md":        "# a\n",
		"binary.md":       "# Bin\nx\x00y\n",
		"fine/note.md":    "# Fine\n",
		"fine/another.md": "# Another\n",
	}
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "names from elsewhere")
	out, _, code := cli(t, dir, "", "doctor", "--json")
	if code != 0 {
		t.Fatalf("doctor: exit %d\n%s", code, out)
	}
	rep := decode(t, out)
	var got []string
	for _, w := range rep["warnings"].([]any) {
		m := w.(map[string]any)
		got = append(got, m["rule"].(string)+" "+m["path"].(string))
	}
	want := []string{
		"content-nul binary.md",
		"path-case-collision Dir/a.md",
		"path-case-collision case",
		"path-portable CON.md",
		"path-portable a\u202eb.md",
		"path-portable aux/x.md",
		"path-portable x?.md",
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("warnings:\n%q\nwant\n%q", got, want)
	}
	found := false
	for _, c := range rep["checks"].([]any) {
		m := c.(map[string]any)
		found = found || m["name"] == "portable-paths" && m["status"] == "warn"
	}
	if !found {
		t.Fatalf("no portable-paths warning: %s", out)
	}

	// Existing notes stay usable.
	rev := strings.TrimSpace(git(t, dir, "rev-parse", "HEAD:x?.md"))
	mustCLI(t, dir, "# Q\nmore\n", "write", "x?.md", "--expected-revision", rev)
	rev = strings.TrimSpace(git(t, dir, "rev-parse", "HEAD:binary.md"))
	mustCLI(t, dir, "# Bin\nx\x00y\nmore\n", "write", "binary.md", "--expected-revision", rev)
	mustCLI(t, dir, "", "mv", "x?.md", "question.md")
	mustCLI(t, dir, "", "mv", "case/foo.md", "case-b/foo.md")
	mustCLI(t, dir, "", "archive", "CON.md", "--reason", "archived")
	if ls := git(t, dir, "ls-files"); strings.Contains(ls, "CON.md") || !strings.Contains(ls, "question.md") || !strings.Contains(ls, "case-b/foo.md") {
		t.Fatalf("ls-files:\n%s", ls)
	}
	if st := git(t, dir, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Fatalf("git status:\n%s", st)
	}
}
