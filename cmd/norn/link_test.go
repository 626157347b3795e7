package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// linkVault makes a vault from a folder of notes with `norn init`.
func linkVault(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range map[string]string{
		"tech/bloom.md": "---\ntitle: Bloom filters\n---\n# Bloom filters\n",
		"tech/cms.md":   "---\ntitle: Count-min sketch\n---\n# Count-min sketch\nSee [[bloom]] and [the filter](bloom.md#Bloom%20filters).\n",
		"b/ref.md":      "# Ref\n![[bloom]] [[tech/bloom|filters]]\n",
		"pic.png":       "png\n",
	} {
		full := filepath.Join(dir, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustCLI(t, dir, "", "init")
	return dir
}

const why = "Both hash items into a small array and trade exactness for memory."

func TestCLI_LinkUnlink(t *testing.T) {
	dir := linkVault(t)
	head := git(t, dir, "rev-parse", "HEAD")
	// Refusals: exit codes and classified JSON errors; nothing written.
	for _, tc := range []struct {
		args []string
		code int
		json string
	}{
		{[]string{"link", "tech/bloom.md", "cms", "--why", why}, exitUsage, "usage"},
		{[]string{"link", "tech/bloom.md", "--type", "supports"}, exitUsage, "usage"},
		{[]string{"link", "tech/bloom.md", "cms", "--type", "similar_to", "--why", why}, exitRejected, "gate_rejected"},
		{[]string{"link", "tech/bloom.md", "cms", "--type", "supports", "--why", "short"}, exitRejected, "gate_rejected"},
		{[]string{"link", "tech/bloom.md", "HyperLogLog", "--type", "supports", "--why", why}, exitError, "not_found"},
		{[]string{"link", "tech/nope.md", "cms", "--type", "supports", "--why", why}, exitError, "not_found"},
		{[]string{"unlink", "tech/bloom.md", "cms"}, exitError, "not_found"},
	} {
		out, _, code := cli(t, dir, "", append(tc.args, "--json")...)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d\n%s", tc.args, code, tc.code, out)
			continue
		}
		if tc.code != exitUsage && decode(t, out)["code"] != tc.json {
			t.Errorf("%v: %s", tc.args, out)
		}
	}
	out, _, _ := cli(t, dir, "", "link", "tech/bloom.md", "cms", "--type", "similar_to", "--why", why, "--json")
	if v := decode(t, out)["violations"].([]any); len(v) != 1 || v[0].(map[string]any)["rule"] != "edge-type-unknown" {
		t.Fatalf("violations: %s", out)
	}
	_, errs, _ := cli(t, dir, "", "link", "tech/bloom.md", "cms", "--type", "supports", "--why", "short")
	if !strings.Contains(errs, "edge-why-short") {
		t.Fatalf("human rejection: %s", errs)
	}
	if _, _, code := cli(t, dir, "", "link", "tech/bloom.md", "cms", "--type", "supports", "--why", why, "--message", "x\nNorn-Op: archive"); code != exitError {
		t.Errorf("a two-line --message: exit %d", code)
	}
	if git(t, dir, "rev-parse", "HEAD") != head {
		t.Fatal("a refused link moved HEAD")
	}

	dry := decode(t, mustCLI(t, dir, "", "link", "tech/bloom.md", "Count-min sketch", "--type", "same_mechanism_as", "--why", why, "--dry-run", "--json"))
	if dry["dry_run"] != true || dry["verdict"] != "pass" || dry["target"] != "tech/cms.md" || git(t, dir, "rev-parse", "HEAD") != head {
		t.Fatalf("dry run: %v", dry)
	}
	out = mustCLI(t, dir, "", "link", "tech/bloom.md", "Count-min sketch", "--type", "same_mechanism_as", "--why", why, "--message", "bloom and cms share a mechanism")
	if got := git(t, dir, "log", "-1", "--format=%s"); got != "bloom and cms share a mechanism\n" {
		t.Errorf("link's --message is not the subject: %q", got)
	}
	if !strings.Contains(out, "edge: tech/bloom.md -[same_mechanism_as]-> tech/cms.md") {
		t.Fatalf("link: %s", out)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "tech", "bloom.md"))
	if want := "---\ntitle: Bloom filters\nedges:\n  - to: \"[[cms]]\"\n    type: same_mechanism_as\n    why: " + why + "\n---\n# Bloom filters\n"; string(b) != want {
		t.Fatalf("bloom.md:\n%s", b)
	}
	if msg := git(t, dir, "log", "-1", "--format=%B"); !strings.Contains(msg, "Norn-Op: link") {
		t.Fatalf("commit: %s", msg)
	}
	un := decode(t, mustCLI(t, dir, "", "unlink", "tech/bloom.md", "tech/cms.md", "--type", "same_mechanism_as", "--json"))
	if un["target"] != "tech/cms.md" || un["commit"] == nil {
		t.Fatalf("unlink: %v", un)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "tech", "bloom.md")); string(b) != "---\ntitle: Bloom filters\n---\n# Bloom filters\n" {
		t.Fatalf("after unlink: %q", b)
	}
	if st := git(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("status: %s", st)
	}
}

func TestCLI_MvArchive(t *testing.T) {
	dir := linkVault(t)
	head := git(t, dir, "rev-parse", "HEAD")
	dry := decode(t, mustCLI(t, dir, "", "mv", "tech/bloom.md", "ds/Bloom filters.md", "--dry-run", "--json"))
	rw, _ := dry["rewritten"].([]any)
	if dry["dry_run"] != true || len(rw) != 2 || rw[0] != "b/ref.md" || rw[1] != "tech/cms.md" || git(t, dir, "rev-parse", "HEAD") != head {
		t.Fatalf("dry run: %v", dry)
	}
	out := mustCLI(t, dir, "", "mv", "tech/bloom.md", "ds/Bloom filters.md")
	if !strings.Contains(out, "links rewritten in 2 notes:\n  b/ref.md\n  tech/cms.md\n") {
		t.Fatalf("mv: %s", out)
	}
	if got := strings.Fields(git(t, dir, "show", "--name-status", "--no-renames", "--format=", "HEAD")); strings.Join(got, " ") != "M b/ref.md A ds/Bloom filters.md D tech/bloom.md M tech/cms.md" {
		t.Fatalf("git show: %v", got)
	}
	cms, _ := os.ReadFile(filepath.Join(dir, "tech", "cms.md"))
	ref, _ := os.ReadFile(filepath.Join(dir, "b", "ref.md"))
	if !strings.Contains(string(cms), "See [[Bloom filters]] and [the filter](../ds/Bloom%20filters.md#Bloom%20filters).") ||
		string(ref) != "# Ref\n![[Bloom filters]] [[ds/Bloom filters|filters]]\n" {
		t.Fatalf("rewritten:\n%s\n%s", cms, ref)
	}
	// Only notes move.
	if out, _, code := cli(t, dir, "", "mv", "pic.png", "img/pic.png", "--json"); code != exitError || decode(t, out)["code"] != "invalid" {
		t.Fatalf("mv of a file: %d %s", code, out)
	}

	// Archive: the dry run lists the links it would leave dangling.
	head = git(t, dir, "rev-parse", "HEAD")
	out = mustCLI(t, dir, "", "archive", "ds/Bloom filters.md", "--reason", "retracted", "--dry-run")
	if !strings.Contains(out, "4 links would be left dangling:\n  b/ref.md:2  embed Bloom filters  | ![[Bloom filters]] [[ds/Bloom filters|filters]]\n") ||
		!strings.Contains(out, "tech/cms.md:5  markdown ../ds/Bloom filters.md  | See [[Bloom filters]]") || git(t, dir, "rev-parse", "HEAD") != head {
		t.Fatalf("archive dry run:\n%s", out)
	}
	res := decode(t, mustCLI(t, dir, "", "archive", "ds/Bloom filters.md", "--reason", "retracted", "--json"))
	if d, _ := res["dangling"].([]any); len(d) != 4 || d[0].(map[string]any)["status"] != "broken" {
		t.Fatalf("archive: %v", res)
	}
	if msg := git(t, dir, "log", "-1", "--format=%B"); !strings.Contains(msg, "Norn-Reason: retracted") {
		t.Fatalf("commit: %s", msg)
	}
	if st := git(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("status: %s", st)
	}
}
