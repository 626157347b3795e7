package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// cli runs norn in-process against dir and returns stdout, stderr and the exit code.
func cli(t *testing.T, dir, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, getenv: func(k string) string {
		if k == "NORN_VAULT" {
			return dir
		}
		return ""
	}}
	code := run(context.Background(), args, e)
	return out.String(), errb.String(), code
}

func mustCLI(t *testing.T, dir, stdin string, args ...string) string {
	t.Helper()
	out, errs, code := cli(t, dir, stdin, args...)
	if code != 0 {
		t.Fatalf("norn %v: exit %d\n%s%s", args, code, out, errs)
	}
	return out
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=P", "GIT_AUTHOR_EMAIL=p@x", "GIT_COMMITTER_NAME=P", "GIT_COMMITTER_EMAIL=p@x")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	return m
}

func TestCLI_Lifecycle(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "existing.md"), []byte("# Existing\n"), 0o644)
	init := decode(t, mustCLI(t, dir, "", "init", "--json"))
	if init["created"] != true || init["imported"].(float64) != 2 { // existing.md + .norn/config.yaml
		t.Fatalf("init: %v", init)
	}
	if !strings.Contains(git(t, dir, "log", "-1", "--format=%B"), "Norn-Op: import") {
		t.Fatal("import commit lacks its trailer")
	}

	w := decode(t, mustCLI(t, dir, "---\ntitle: Bloom filters\ntags: [data-structures]\n---\n# Bloom filters\n", "write", "tech/bloom.md", "--author", "agent-x", "--json"))
	rev := w["changes"].([]any)[0].(map[string]any)["revision"].(string)
	if w["commit"] == "" || len(rev) != 40 {
		t.Fatalf("write: %v", w)
	}
	r := decode(t, mustCLI(t, dir, "", "read", "tech/bloom.md", "--json"))
	if r["revision"] != rev || !strings.Contains(r["content"].(string), "# Bloom filters") || r["path"] != "tech/bloom.md" {
		t.Fatalf("read: %v", r)
	}
	if got := git(t, dir, "log", "-1", "--format=%an"); strings.TrimSpace(got) != "agent-x" {
		t.Fatalf("author %q", got)
	}

	// Blind overwrite and stale revision: exit 3, nothing written.
	head := git(t, dir, "rev-parse", "HEAD")
	if _, _, code := cli(t, dir, "x\n", "write", "tech/bloom.md"); code != exitConflict {
		t.Fatalf("blind overwrite: exit %d", code)
	}
	out, _, code := cli(t, dir, "x\n", "write", "tech/bloom.md", "--expected-revision", strings.Repeat("0", 40), "--json")
	if code != exitConflict || decode(t, out)["current_revision"] != rev {
		t.Fatalf("stale: exit %d %s", code, out)
	}
	// A gate rejection: exit 4, every rule named.
	out, _, code = cli(t, dir, "---\ntags: [Bad Tag]\ntitle: x\n---\nno final newline", "write", "tech/bad.md", "--json")
	if code != exitRejected {
		t.Fatalf("gate: exit %d %s", code, out)
	}
	rules := map[string]bool{}
	for _, v := range decode(t, out)["violations"].([]any) {
		rules[v.(map[string]any)["rule"].(string)] = true
	}
	if !rules["tags-format"] || !rules["final-newline"] {
		t.Fatalf("violations: %v", rules)
	}
	// Dry run: verdict, nothing written.
	dry := decode(t, mustCLI(t, dir, "# Bloom v2\n", "write", "tech/bloom.md", "--expected-revision", rev, "--dry-run", "--json"))
	if dry["dry_run"] != true || dry["verdict"] != "pass" {
		t.Fatalf("dry run: %v", dry)
	}
	if git(t, dir, "rev-parse", "HEAD") != head {
		t.Fatal("a refused or dry-run write moved HEAD")
	}
	if st := git(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("status: %s", st)
	}

	// Usage errors: exit 2.
	for _, args := range [][]string{{"read"}, {"archive", "tech/bloom.md"}, {"archive", "tech/bloom.md", "--reason", "deleted"}, {"nope"}, {"restore", "x.md"}, {"mv", "a.md"}} {
		if _, _, code := cli(t, dir, "", args...); code != exitUsage {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	// Help: usage and flags on stdout, exit 0.
	for _, c := range []struct {
		args []string
		want string
	}{{[]string{"--help"}, "exit codes"}, {[]string{"help"}, "exit codes"}, {[]string{"search", "--help"}, "-limit"}, {[]string{"token", "-h"}, "-scopes"}, {[]string{"commit", "--help"}, "usage: norn commit\n"}} {
		out, errs, code := cli(t, dir, "", c.args...)
		if code != exitOK || errs != "" || !strings.Contains(out, c.want) {
			t.Errorf("%v: exit %d, stderr %q, stdout without %q:\n%s", c.args, code, errs, c.want, out)
		}
	}
	// Unknown note: exit 1, not_found.
	out, _, code = cli(t, dir, "", "read", "missing.md", "--json")
	if code != exitError || decode(t, out)["code"] != "not_found" {
		t.Fatalf("missing: %d %s", code, out)
	}

	// Archive, restore, move.
	before := strings.TrimSpace(git(t, dir, "rev-parse", "HEAD"))
	mustCLI(t, dir, "", "archive", "tech/bloom.md", "--reason", "superseded")
	if _, err := os.Stat(filepath.Join(dir, "tech/bloom.md")); !os.IsNotExist(err) {
		t.Fatal("archived note still on disk")
	}
	mustCLI(t, dir, "", "restore", "tech/bloom.md", "--from", before[:10])
	mustCLI(t, dir, "", "mv", "tech/bloom.md", "tech/bloom-filters.md")
	lg := decode(t, mustCLI(t, dir, "", "log", "--json", "--limit", "3"))
	var ops []string
	for _, c := range lg["commits"].([]any) {
		ops = append(ops, c.(map[string]any)["op"].(string))
	}
	if strings.Join(ops, ",") != "move,restore,archive" {
		t.Fatalf("ops %v", ops)
	}
	ls := mustCLI(t, dir, "", "ls", "tech")
	if !strings.Contains(ls, "bloom-filters.md") || strings.Contains(ls, "bloom.md\n") {
		t.Fatalf("ls: %s", ls)
	}

	// An edit by hand is committed as external, by the owner.
	os.WriteFile(filepath.Join(dir, "existing.md"), []byte("# Existing\nedited\n"), 0o644)
	c := decode(t, mustCLI(t, dir, "", "commit", "--json"))
	if len(c["changes"].([]any)) != 1 {
		t.Fatalf("commit: %v", c)
	}
	if !strings.Contains(git(t, dir, "log", "-1", "--format=%B"), "Norn-Op: external") {
		t.Fatal("external commit lacks its trailer")
	}
	if out := mustCLI(t, dir, "", "commit"); !strings.Contains(out, "nothing to commit") {
		t.Fatalf("second commit: %s", out)
	}

	// Norn writes packs; a commit made with the git CLI leaves loose objects, which
	// gc packs.
	os.WriteFile(filepath.Join(dir, "by-git.md"), []byte("# By git\n"), 0o644)
	git(t, dir, "add", "by-git.md")
	git(t, dir, "commit", "-q", "-m", "by git")
	gc := decode(t, mustCLI(t, dir, "", "gc", "--json"))
	if gc["loose_before"].(float64) == 0 || gc["loose_after"].(float64) != 0 {
		t.Fatalf("gc: %v", gc)
	}
	// After packing, old revisions still read back.
	if got := mustCLI(t, dir, "", "read", "tech/bloom.md", "--at", before[:12]); !strings.HasPrefix(got, "---\ntitle: Bloom filters") {
		t.Fatalf("read at %s after gc: %q", before[:12], got)
	}
	if _, _, code := cli(t, dir, "", "read", "tech/bloom-filters.md", "--at", before[:12]); code != exitError {
		t.Fatalf("read of a path that did not exist then: exit %d", code)
	}
	// --at and --from take only the documented commit-ish forms: a message search
	// or a REV:path is invalid, not resolved.
	for _, args := range [][]string{{"read", "tech/bloom.md", "--at", "HEAD^{/Bloom}"}, {"read", "tech/bloom.md", "--at", "HEAD:tech/bloom.md"},
		{"restore", "tech/gone.md", "--from", "HEAD^{/Bloom}", "--dry-run"}} {
		if out, _, code := cli(t, dir, "", append(args, "--json")...); code != exitError || decode(t, out)["code"] != "invalid" {
			t.Fatalf("norn %v: exit %d %s, want invalid", args, code, out)
		}
	}
	if got := mustCLI(t, dir, "", "read", "tech/bloom.md", "--at", before[:12]+"^0"); !strings.HasPrefix(got, "---\ntitle: Bloom filters") {
		t.Fatalf("read --at %s^0: %q", before[:12], got)
	}
	// A temp file an interrupted write left (after a power loss, so without the
	// marker that makes opening the vault remove it): doctor removes it.
	stray := filepath.Join(dir, "tech", ".norn-tmp-0123456789ab")
	if err := os.WriteFile(stray, []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	doc := decode(t, mustCLI(t, dir, "", "doctor", "--json"))
	removed := false
	for _, c := range doc["checks"].([]any) {
		m := c.(map[string]any)
		if m["status"] == "fail" {
			t.Fatalf("doctor: %v", m)
		}
		removed = removed || m["name"] == "temp-files" && strings.Contains(fmt.Sprint(m["detail"]), "removed 1 temporary file")
	}
	if _, err := os.Stat(stray); !removed || !os.IsNotExist(err) {
		t.Fatalf("doctor left the temp file (reported %v): %v", removed, err)
	}
	git(t, dir, "fsck", "--strict")
}

func TestCLI_InitAdoptsGitRepository(t *testing.T) {
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "trunk")
	os.WriteFile(filepath.Join(dir, "a.md"), []byte("# A\n"), 0o644)
	git(t, dir, "add", "a.md")
	git(t, dir, "commit", "-q", "-m", "by hand")
	head := git(t, dir, "rev-parse", "HEAD")
	out := decode(t, mustCLI(t, dir, "", "init", "--json"))
	if out["adopted"] != true || out["created"] != false {
		t.Fatalf("init: %v", out)
	}
	if git(t, dir, "rev-parse", "HEAD") != head {
		t.Fatal("adopting rewrote history")
	}
	mustCLI(t, dir, "# B\n", "write", "b.md")
	if parent := git(t, dir, "rev-parse", "HEAD~1"); parent != head {
		t.Fatal("the first norn write is not on top of the existing history")
	}
	if br := strings.TrimSpace(git(t, dir, "rev-parse", "--abbrev-ref", "HEAD")); br != "trunk" {
		t.Fatalf("branch %q", br)
	}
}

// TestCLI_MessageIsOneShortLine: --message is a commit subject, one line of at
// most 200 bytes without control characters, for every command that takes it
// (write, edit through write, mv, archive, commit); anything else is refused
// (exit 1, code invalid) and nothing is committed, so a message cannot plant
// Norn-Op trailers.
func TestCLI_MessageIsOneShortLine(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "", "init")
	mustCLI(t, dir, "# A\n", "write", "a.md")
	os.WriteFile(filepath.Join(dir, "hand.md"), []byte("# By hand\n"), 0o644)
	count := git(t, dir, "rev-list", "--count", "HEAD")
	for _, msg := range []string{"harmless\n\nNorn-Op: archive\nNorn-Reason: retracted", "a\rb", "tab\tx", strings.Repeat("m", 201)} {
		for _, args := range [][]string{
			{"write", "b.md"},
			{"mv", "a.md", "c.md"},
			{"archive", "a.md", "--reason", "retracted"},
			{"commit"},
		} {
			out, errs, code := cli(t, dir, "# B\n", append(args, "--json", "--message", msg)...)
			if code != 1 || decode(t, out+errs)["code"] != "invalid" || !strings.Contains(out+errs, "message") {
				t.Fatalf("norn %v --message %q: exit %d\n%s%s", args, msg, code, out, errs)
			}
		}
	}
	if got := git(t, dir, "rev-list", "--count", "HEAD"); got != count {
		t.Fatalf("a refused message committed: %s commits, was %s", got, count)
	}
	if got := git(t, dir, "log", "--grep", "Norn-Op: archive"); got != "" {
		t.Fatalf("a planted trailer:\n%s", got)
	}
	if got := git(t, dir, "status", "--porcelain"); got != "?? hand.md\n" {
		t.Fatalf("git status:\n%s", got)
	}
	mustCLI(t, dir, "# B\n", "write", "b.md", "--message", strings.Repeat("m", 200))
	if got := strings.TrimSpace(git(t, dir, "log", "-1", "--format=%s")); got != strings.Repeat("m", 200) {
		t.Fatalf("subject %q", got)
	}
}

// TestCLI_EmptyFlagValues: a flag whose empty value would mean its default refuses an
// explicitly empty value (exit 2, nothing written), so that `--author "$AUTHOR"` with
// AUTHOR unset is a mistake the user sees, not a commit by the vault owner.
func TestCLI_EmptyFlagValues(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "", "init")
	head := git(t, dir, "rev-parse", "HEAD")
	for _, args := range [][]string{
		{"write", "a.md", "--author", ""},
		{"write", "a.md", "--author=", "--email", "x@example.com"},
		{"write", "a.md", "--author", "Bot", "--email", ""},
		{"--vault", "", "write", "a.md"},
		{"write", "a.md", "--vault="},
	} {
		out, errs, code := cli(t, dir, "# A\n", args...)
		if code != exitUsage || !strings.Contains(errs, "empty value") {
			t.Errorf("%q: exit %d, want 2\n%s%s", args, code, out, errs)
		}
	}
	if got := git(t, dir, "rev-parse", "HEAD"); got != head {
		t.Fatal("a refused command committed")
	}
	mustCLI(t, dir, "# A\n", "write", "a.md", "--author", "Bot")
	if got := git(t, dir, "log", "-1", "--format=%an"); got != "Bot\n" {
		t.Fatalf("author: %q", got)
	}
}

// TestCLI_AuthorIsPlainText: an author name or email holding control characters
// (an escape sequence that would reach every terminal showing norn log) is refused
// and nothing is committed.
func TestCLI_AuthorIsPlainText(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "", "init")
	head := git(t, dir, "rev-parse", "HEAD")
	for _, args := range [][]string{
		{"write", "a.md", "--author", "evil\x1b]0;pwned\x07\x1b[2J"},
		{"write", "a.md", "--author", "Bot", "--email", "b\u009b31m@x"},
	} {
		if _, errs, code := cli(t, dir, "# A\n", args...); code != exitError || !strings.Contains(errs, "control characters") {
			t.Errorf("%q: exit %d\n%s", args, code, errs)
		}
	}
	if git(t, dir, "rev-parse", "HEAD") != head {
		t.Fatal("a refused write committed")
	}
}
