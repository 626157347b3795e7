package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/vault"
)

// TestReport_InvalidInput: a note or config the command cannot use, however it is
// wrapped, is invalid input: exit 1 with code "invalid" (docs/cli.md), never the
// generic "error"; and the errors a surface owns keep their own codes.
func TestReport_InvalidInput(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code string
		exit int
	}{
		{fmt.Errorf("edit a.md: %w", &note.ParseError{Path: "a.md", Line: 2, Rule: note.RuleYAMLSyntax, Msg: "bad"}), "invalid", exitError},
		{fmt.Errorf("set status: %w", note.ErrUneditable), "invalid", exitError},
		{errors.Join(&config.Error{Line: 1, Key: "gates.profile", Msg: "unknown"}, &config.Error{Key: "x", Msg: "y"}), "invalid", exitError},
		{fmt.Errorf("hubs: %w", &graph.QueryError{Query: "a", Reason: "r"}), "invalid", exitError},
		{fmt.Errorf("mv: %w", vault.ErrForbidden), "forbidden", exitError},
		{fmt.Errorf("graph: %w", vault.ErrIndexUnavailable), "index_stale", exitError},
		{fmt.Errorf("search: %w", context.DeadlineExceeded), "canceled", exitError},
		{usagef("bad flag"), "usage", exitUsage},
		{errors.New("disk on fire"), "error", exitError},
	} {
		var out, errs strings.Builder
		e := &env{stdout: &out, stderr: &errs, getenv: func(string) string { return "" }}
		got := report(e, &globals{json: true}, command{name: "x"}, tc.err)
		var m map[string]any
		if jerr := json.Unmarshal([]byte(out.String()), &m); jerr != nil || got != tc.exit || m["code"] != tc.code || m["error"] != tc.err.Error() {
			t.Errorf("%v: exit %d, %q (%v); want exit %d, code %q", tc.err, got, out.String(), jerr, tc.exit, tc.code)
		}
	}
}

// TestCLI_InvalidNoteIsInvalidInput: a command that has to edit a note whose
// frontmatter does not parse refuses with exit 1 and code "invalid", and writes
// nothing (a bad machine.yaml: TestMachine_Precedence; config errors as such:
// TestReport_InvalidInput).
func TestCLI_InvalidNoteIsInvalidInput(t *testing.T) {
	dir := linkVault(t)
	if err := os.WriteFile(filepath.Join(dir, "tech", "bad.md"), []byte("---\ntitle: [unclosed\n---\n# Bad\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, dir, "", "commit")
	head := git(t, dir, "rev-parse", "HEAD")
	out, _, code := cli(t, dir, "", "link", "tech/bad.md", "tech/bloom.md", "--type", "supports", "--why", why, "--json")
	if m := decode(t, out); code != exitError || m["code"] != "invalid" || !strings.Contains(m["error"].(string), "yaml-syntax") {
		t.Fatalf("link from a note that does not parse: exit %d %s", code, out)
	}
	if git(t, dir, "rev-parse", "HEAD") != head || git(t, dir, "status", "--porcelain") != "" {
		t.Fatal("a refused link changed the vault")
	}
}

// TestCLI_ExpectedRevisionWords: the CLI's conflict messages name the flag,
// --expected-revision, not the tools' argument; a value that is no revision (not
// hex) is a usage error, exit 2, naming the flag, and nothing is written.
func TestCLI_ExpectedRevisionWords(t *testing.T) {
	dir := linkVault(t)
	head := git(t, dir, "rev-parse", "HEAD")
	_, errs, code := cli(t, dir, "# new\n", "write", "tech/bloom.md")
	if code != exitConflict || !strings.Contains(errs, "as --expected-revision to update it") || strings.Contains(errs, "expected_revision") {
		t.Errorf("blind overwrite: exit %d, %q; want 3 naming --expected-revision", code, errs)
	}
	out, _, _ := cli(t, dir, "# new\n", "write", "tech/bloom.md", "--json")
	if m := decode(t, out); !strings.Contains(m["error"].(string), "--expected-revision") {
		t.Errorf("blind overwrite --json: %v", m)
	}
	for _, args := range [][]string{
		{"write", "tech/bloom.md", "--expected-revision", "HEAD"},
		{"edit", "tech/bloom.md", "--op", "append", "--content", "x\n", "--expected-revision", "not-hex"},
		{"mv", "tech/bloom.md", "tech/b2.md", "--expected-revision", "xyz"},
		{"archive", "tech/bloom.md", "--reason", "archived", "--expected-revision", "g" + strings.Repeat("0", 39)},
		{"link", "tech/cms.md", "tech/bloom.md", "--type", "supports", "--why", why, "--expected-revision", "DEADBEEF!"},
		{"unlink", "tech/cms.md", "tech/bloom.md", "--expected-revision", strings.Repeat("a", 41)},
	} {
		_, errs, code := cli(t, dir, "# x\n", args...)
		if code != exitUsage || !strings.Contains(errs, "expected-revision") || !strings.Contains(errs, "not a revision") {
			t.Errorf("norn %v: exit %d, %q; want 2 naming the flag", args, code, errs)
		}
	}
	if git(t, dir, "rev-parse", "HEAD") != head || git(t, dir, "status", "--porcelain") != "" {
		t.Fatal("a refused command changed the vault")
	}
}
