package main

import (
	"strings"
	"testing"
)

// TestCLI_Synthesis: register a chain of summaries, edit the leaf, and the top
// is stale with the leaf's path and the summaries it is reached through; bad
// arguments are classified and write nothing.
func TestCLI_Synthesis(t *testing.T) {
	dir := linkVault(t)
	mustCLI(t, dir, "# Mid\n", "write", "sum/mid.md")
	mustCLI(t, dir, "# Top\n", "write", "sum/top.md")
	reg := decode(t, mustCLI(t, dir, "", "synthesis", "register", "sum/mid.md", "tech/bloom.md", "tech/cms.md", "--author", "agent-s", "--json"))
	if reg["file"] != ".norn/synthesis/sum/mid.md.yaml" || len(reg["sources"].([]any)) != 2 {
		t.Fatalf("register: %v", reg)
	}
	mustCLI(t, dir, "", "synthesis", "register", "sum/top.md", "sum/mid.md", "b/ref.md")
	st := decode(t, mustCLI(t, dir, "", "synthesis", "status", "sum/top.md", "--json"))
	if st["status"] != "current" || st["checked"].(float64) != 4 || st["budget"].(map[string]any)["checks"].(float64) != 128 {
		t.Fatalf("status: %v", st)
	}
	mustCLI(t, dir, "---\ntitle: Bloom filters\n---\n# Bloom filters\nNow with counting.\n", "write", "tech/bloom.md",
		"--expected-revision", strings.TrimSpace(git(t, dir, "rev-parse", "HEAD:tech/bloom.md")))
	st = decode(t, mustCLI(t, dir, "", "synthesis", "status", "sum/top.md", "--json"))
	d := st["drifted"].([]any)
	if st["status"] != "stale" || len(d) != 1 || d[0].(map[string]any)["path"] != "tech/bloom.md" ||
		strings.Join(toStrings(d[0].(map[string]any)["via"]), ">") != "sum/top.md>sum/mid.md" {
		t.Fatalf("stale status: %v", st)
	}
	text := mustCLI(t, dir, "", "synthesis", "status", "sum/top.md")
	if !strings.Contains(text, "sum/top.md: stale") || !strings.Contains(text, "tech/bloom.md") {
		t.Fatalf("text status:\n%s", text)
	}
	if st := decode(t, mustCLI(t, dir, "", "synthesis", "status", "tech/cms.md", "--json")); st["status"] != "unregistered" {
		t.Fatalf("unregistered: %v", st)
	}
	head := git(t, dir, "rev-parse", "HEAD")
	for _, tc := range []struct {
		args []string
		code int
		json string
	}{
		{[]string{"synthesis", "register", "sum/top.md"}, exitUsage, ""},
		{[]string{"synthesis", "frobnicate", "sum/top.md"}, exitUsage, ""},
		{[]string{"synthesis", "register", "sum/top.md", "tech/nope.md"}, exitError, "not_found"},
		{[]string{"synthesis", "register", "sum/top.md", "sum/top.md"}, exitError, "invalid"},
		{[]string{"synthesis", "register", "sum/top.md", "pic.png"}, exitError, "invalid"},
		{[]string{"synthesis", "status", "tech/nope.md"}, exitError, "not_found"},
	} {
		out, _, code := cli(t, dir, "", append(tc.args, "--json")...)
		if code != tc.code || tc.json != "" && decode(t, out)["code"] != tc.json {
			t.Errorf("%v: exit %d, want %d (%s)\n%s", tc.args, code, tc.code, tc.json, out)
		}
	}
	if git(t, dir, "rev-parse", "HEAD") != head {
		t.Fatal("a refused registration committed")
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
