package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestCLI_Capture(t *testing.T) {
	dir := linkVault(t)
	head := git(t, dir, "rev-parse", "HEAD")
	dry := decode(t, mustCLI(t, dir, "", "capture", "a", "thought", "--dry-run", "--json"))
	if dry["dry_run"] != true || dry["verdict"] != "pass" || dry["created"] != true {
		t.Fatalf("dry run: %v", dry)
	}
	unchangedVault(t, dir, head, "a dry run")

	first := decode(t, mustCLI(t, dir, "", "capture", "a", "thought", "--author", "Ada", "--email", "ada@example.com", "--json"))
	p, _ := first["path"].(string)
	if !regexp.MustCompile(`^inbox/\d{4}-\d{2}-\d{2}\.md$`).MatchString(p) || first["created"] != true {
		t.Fatalf("first capture: %v", first)
	}
	if first["revision"] != blobAt(t, dir, p) {
		t.Errorf("revision %v, git has %s", first["revision"], blobAt(t, dir, p))
	}
	if a := git(t, dir, "log", "-1", "--format=%an <%ae>"); a != "Ada <ada@example.com>\n" {
		t.Errorf("author %q", a)
	}
	if msg := git(t, dir, "log", "-1", "--format=%B"); !strings.HasPrefix(msg, "capture "+p+"\n") || !strings.Contains(msg, "Norn-Op: capture") {
		t.Errorf("commit %q", msg)
	}

	// From stdin, titled: appended after the first entry, nothing else touched.
	second := decode(t, mustCLI(t, dir, "Second *thought*.\n", "capture", "--title", "  Two   words ", "--json"))
	p2, _ := second["path"].(string)
	if second["created"] != (p2 != p) {
		t.Errorf("second capture: %v", second)
	}
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p2)))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`\n## \d\d:\d\d:\d\d UTC · Two words\n\nSecond \*thought\*\.\n$`).Match(b) {
		t.Errorf("inbox note:\n%s", b)
	}
	if p2 == p && !strings.Contains(string(b), "\n\na thought\n\n## ") {
		t.Errorf("the first entry is gone:\n%s", b)
	}
	if files := git(t, dir, "show", "--name-only", "--format=", "HEAD"); files != p2+"\n" {
		t.Errorf("the capture touched %q", files)
	}
	if msg := git(t, dir, "log", "-1", "--format=%s"); msg != "capture "+p2+": Two words\n" {
		t.Errorf("subject %q", msg)
	}
	if st := git(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("status %s", st)
	}
}

func TestCLI_Capture_Refusals(t *testing.T) {
	dir := linkVault(t)
	head := git(t, dir, "rev-parse", "HEAD")
	for _, tc := range []struct {
		stdin string
		args  []string
		code  int
		json  string
		msg   string
	}{
		{"", nil, exitError, "invalid", "text is required"},
		{" \n\t\n", nil, exitError, "invalid", "text is required"},
		{strings.Repeat("x", 64<<10+1), nil, exitError, "invalid", "a capture takes at most 65536"},
		{"", []string{"x", "--message", "mine"}, exitUsage, "usage", "drop --message"},
	} {
		out, _, code := cli(t, dir, tc.stdin, append(append([]string{"capture"}, tc.args...), "--json")...)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d\n%s", tc.args, code, tc.code, out)
			continue
		}
		if got := decode(t, out); got["code"] != tc.json || !strings.Contains(got["error"].(string), tc.msg) {
			t.Errorf("%v: %s", tc.args, out)
		}
	}
	unchangedVault(t, dir, head, "a refused capture")
}
