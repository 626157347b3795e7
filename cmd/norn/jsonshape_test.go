package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// oneJSON decodes s as exactly one JSON document and fails the test if anything
// but white space follows it.
func oneJSON(t *testing.T, s string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	var more any
	if err := dec.Decode(&more); err != io.EOF {
		t.Fatalf("more than one JSON document on stdout:\n%s", s)
	}
	return m
}

func TestCLI_DryRunRejectedIsOneDocument(t *testing.T) {
	dir := linkVault(t)
	head := git(t, dir, "rev-parse", "HEAD")
	for _, tc := range []struct {
		name, stdin string
		args        []string
		rule        string
	}{
		{"write", "---\ntitle: [bad\n---\n", []string{"--json", "write", "x.md", "--dry-run"}, "yaml-syntax"},
		{"link", "", []string{"--json", "link", "tech/bloom.md", "cms", "--type", "similar_to", "--why", why, "--dry-run"}, "edge-type-unknown"},
	} {
		out, _, code := cli(t, dir, tc.stdin, tc.args...)
		if code != exitRejected {
			t.Errorf("%s: exit %d, want 4\n%s", tc.name, code, out)
			continue
		}
		m := oneJSON(t, out)
		if m["dry_run"] != true || m["verdict"] != "rejected" || m["code"] != "gate_rejected" || m["error"] == nil || m["changes"] == nil {
			t.Errorf("%s: %v", tc.name, m)
		}
		vs, _ := m["violations"].([]any)
		if len(vs) == 0 || vs[0].(map[string]any)["rule"] != tc.rule {
			t.Errorf("%s: violations %v", tc.name, m["violations"])
		}
	}
	// A dry run refused before it had a result (a conflict, an unknown note) is the
	// same one document, with the failure's fields.
	for _, tc := range []struct {
		name, stdin, code string
		args              []string
		exit              int
	}{
		{"write conflict", "x\n", "conflict", []string{"--json", "write", "tech/bloom.md", "--dry-run", "--expected-revision", "deadbeef"}, exitConflict},
		{"archive unknown", "", "not_found", []string{"--json", "archive", "nope.md", "--reason", "archived", "--dry-run"}, exitError},
		{"mv unknown", "", "not_found", []string{"--json", "mv", "nope.md", "other.md", "--dry-run"}, exitError},
	} {
		out, _, code := cli(t, dir, tc.stdin, tc.args...)
		m := oneJSON(t, out)
		if code != tc.exit || m["dry_run"] != true || m["verdict"] != "rejected" || m["code"] != tc.code || m["error"] == nil {
			t.Errorf("%s: exit %d, %v", tc.name, code, m)
		}
		human, errs, code := cli(t, dir, tc.stdin, tc.args[1:]...)
		if code != tc.exit || !strings.HasPrefix(human, "dry run, nothing written; it would be refused:") || errs == "" {
			t.Errorf("%s, human: exit %d, %q %q", tc.name, code, human, errs)
		}
	}
	// A dry run that passes is unchanged: no error fields.
	m := oneJSON(t, mustCLI(t, dir, "# Y\n", "--json", "write", "y.md", "--dry-run"))
	if m["verdict"] != "pass" || m["error"] != nil || m["code"] != nil {
		t.Errorf("pass: %v", m)
	}
	if git(t, dir, "rev-parse", "HEAD") != head {
		t.Fatal("a dry run moved HEAD")
	}
}

// TestCLI_OneShapePerCommand: ls --json gives every entry the same keys (a
// folder's revision is its tree id, a file's its blob id, as git ls-tree shows),
// and commit --json has the same keys whether or not there was anything to commit.
func TestCLI_OneShapePerCommand(t *testing.T) {
	dir := linkVault(t)
	tree := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(git(t, dir, "ls-tree", "HEAD")), "\n") {
		f := strings.Fields(l) // mode type id\tname
		tree[f[3]] = f[2]
	}
	m := oneJSON(t, mustCLI(t, dir, "", "ls", "--json"))
	entries := m["entries"].([]any)
	if len(entries) < 3 {
		t.Fatalf("ls: %v", m)
	}
	for _, en := range entries {
		e := en.(map[string]any)
		if len(e) != 3 || e["path"] == nil || e["dir"] == nil || e["revision"] != tree[e["path"].(string)] {
			t.Errorf("entry %v; want path, dir and revision %s", e, tree[e["path"].(string)])
		}
	}
	keys := func(m map[string]any) string {
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		return strings.Join(ks, ",")
	}
	os.WriteFile(filepath.Join(dir, "tech", "new.md"), []byte("# New\n"), 0o644)
	head := strings.TrimSpace(git(t, dir, "rev-parse", "HEAD"))
	did := oneJSON(t, mustCLI(t, dir, "", "commit", "--json"))
	if did["parent"] != head {
		t.Fatalf("commit: %v", did)
	}
	none := oneJSON(t, mustCLI(t, dir, "", "commit", "--json"))
	if keys(none) != keys(did) || none["parent"] != did["commit"] || none["commit"] != nil {
		t.Fatalf("nothing to commit: %v; want the keys of %v, parent HEAD", none, did)
	}
}

// A restore dry run refused by a gate still shows the change it would make.
func TestCLI_RestoreDryRunRejectedKeepsChanges(t *testing.T) {
	dir := linkVault(t)
	if err := os.WriteFile(filepath.Join(dir, "bad.md"), []byte("---\ntitle: [bad\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "add", "bad.md")
	git(t, dir, "commit", "-q", "-m", "bad by git")
	git(t, dir, "rm", "-q", "bad.md")
	git(t, dir, "commit", "-q", "-m", "gone by git")
	head := git(t, dir, "rev-parse", "HEAD")
	out, _, code := cli(t, dir, "", "--json", "restore", "bad.md", "--from", "HEAD~1", "--dry-run")
	m := oneJSON(t, out)
	chs, _ := m["changes"].([]any)
	if code != exitRejected || m["verdict"] != "rejected" || m["code"] != "gate_rejected" || len(chs) != 1 || chs[0].(map[string]any)["path"] != "bad.md" {
		t.Fatalf("exit %d, %v", code, m)
	}
	if git(t, dir, "rev-parse", "HEAD") != head {
		t.Fatal("a dry run committed")
	}
}
