package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// blobAt is the note's revision at HEAD, from git.
func blobAt(t *testing.T, dir, p string) string {
	t.Helper()
	return strings.TrimSpace(git(t, dir, "rev-parse", "HEAD:"+p))
}

// unchangedVault fails unless HEAD is head and the working tree is clean.
func unchangedVault(t *testing.T, dir, head, what string) {
	t.Helper()
	if got := git(t, dir, "rev-parse", "HEAD"); got != head {
		t.Errorf("%s moved HEAD", what)
	}
	if st := git(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("%s left the working tree dirty: %s", what, st)
	}
}

func TestCLI_Edit(t *testing.T) {
	dir := linkVault(t)
	const p = "tech/bloom.md"
	read := func() string {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
		want  string
	}{
		{"append", []string{"--op", "append", "--content", "Hashes into bits."}, "",
			"---\ntitle: Bloom filters\n---\n# Bloom filters\nHashes into bits.\n"},
		{"prepend from stdin", []string{"--op", "prepend"}, "Intro.\n",
			"---\ntitle: Bloom filters\n---\nIntro.\n# Bloom filters\nHashes into bits.\n"},
		{"replace_section", []string{"--op", "replace_section", "--heading", "Bloom filters", "--content", "False positives, never false negatives."}, "",
			"---\ntitle: Bloom filters\n---\nIntro.\n# Bloom filters\nFalse positives, never false negatives.\n"},
		{"find_replace", []string{"--op", "find_replace", "--find", "never", "--replace", "no"}, "",
			"---\ntitle: Bloom filters\n---\nIntro.\n# Bloom filters\nFalse positives, no false negatives.\n"},
	} {
		rev := blobAt(t, dir, p)
		args := append([]string{"edit", p, "--expected-revision", rev, "--author", "Ada", "--email", "ada@example.com", "--json"}, tc.args...)
		res := decode(t, mustCLI(t, dir, tc.stdin, args...))
		if got := read(); got != tc.want {
			t.Fatalf("%s: note is\n%q\nwant\n%q", tc.name, got, tc.want)
		}
		if res["revision"] != blobAt(t, dir, p) || res["commit"] != strings.TrimSpace(git(t, dir, "rev-parse", "HEAD")) {
			t.Errorf("%s: result %v", tc.name, res)
		}
		if a := git(t, dir, "log", "-1", "--format=%an <%ae>"); a != "Ada <ada@example.com>\n" {
			t.Errorf("%s: author %q", tc.name, a)
		}
		if msg := git(t, dir, "log", "-1", "--format=%B"); !strings.Contains(msg, "Norn-Op: edit") {
			t.Errorf("%s: commit %q", tc.name, msg)
		}
		if st := git(t, dir, "status", "--porcelain"); st != "" {
			t.Errorf("%s: status %s", tc.name, st)
		}
	}

	// A dry run writes nothing and says it would pass.
	head, rev := git(t, dir, "rev-parse", "HEAD"), blobAt(t, dir, p)
	dry := decode(t, mustCLI(t, dir, "", "edit", p, "--op", "append", "--content", "More.", "--expected-revision", rev, "--dry-run", "--json"))
	if dry["dry_run"] != true || dry["verdict"] != "pass" {
		t.Errorf("dry run: %v", dry)
	}
	unchangedVault(t, dir, head, "a dry run")
}

func TestCLI_Edit_Refusals(t *testing.T) {
	dir := linkVault(t)
	const p = "tech/bloom.md"
	rev := blobAt(t, dir, p)
	stale := blobAt(t, dir, "tech/cms.md")
	head := git(t, dir, "rev-parse", "HEAD")
	for _, tc := range []struct {
		args []string
		code int
		json string
		msg  string
	}{
		{[]string{p, "--expected-revision", rev}, exitError, "invalid", "op is required"},
		{[]string{p, "--op", "rewrite", "--expected-revision", rev}, exitError, "invalid", `unknown op "rewrite"`},
		{[]string{p, "--op", "append", "--content", "x"}, exitError, "invalid", "--expected-revision is required"},
		{[]string{p, "--op", "append", "--content", "x", "--expected-revision", stale}, exitConflict, "conflict", "changed since you read it"},
		{[]string{p, "--op", "append", "--expected-revision", rev}, exitError, "invalid", "op=append needs content"},
		{[]string{p, "--op", "append", "--content", "x", "--find", "y", "--expected-revision", rev}, exitError, "invalid", "belong to op=find_replace"},
		{[]string{p, "--op", "replace_section", "--heading", "Nope", "--content", "x", "--expected-revision", rev}, exitError, "not_found", `has no heading "Nope"`},
		{[]string{p, "--op", "find_replace", "--find", "Bloom", "--replace", "B", "--expected-revision", rev}, exitError, "invalid", "find occurs 2 times"},
		{[]string{p, "--op", "find_replace", "--find", "Bloom", "--count", "-1", "--expected-revision", rev}, exitError, "invalid", "count must be 1 or more"},
		{[]string{"tech/nope.md", "--op", "append", "--content", "x", "--expected-revision", rev}, exitError, "not_found", "tech/nope.md"},
		{[]string{p, "--op", "append", "--content", "x", "--expected-revision", rev, "--message", "two\nlines"}, exitError, "invalid", ""},
		{[]string{p, "--op", "find_replace", "--find", "title: Bloom filters\n", "--replace", "title: Bloom filters\ntitle: again\n", "--expected-revision", rev}, exitRejected, "gate_rejected", ""},
		{[]string{}, exitUsage, "usage", ""},
	} {
		out, _, code := cli(t, dir, "", append(append([]string{"edit"}, tc.args...), "--json")...)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d\n%s", tc.args, code, tc.code, out)
			continue
		}
		if tc.code == exitUsage {
			continue
		}
		got := decode(t, out)
		if got["code"] != tc.json || !strings.Contains(got["error"].(string), tc.msg) {
			t.Errorf("%v: %s", tc.args, out)
		}
	}
	unchangedVault(t, dir, head, "a refused edit")
	if _, errs, _ := cli(t, dir, "", "edit", p, "--op", "find_replace", "--find", "Bloom", "--expected-revision", rev); !strings.Contains(errs, "pass count=2") {
		t.Errorf("human error: %s", errs)
	}
}
