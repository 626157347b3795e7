package main

import (
	"strings"
	"testing"
)

// TestCLI_Claims: norn claim assert, value, history and retract, each with
// --json; an edit of the source makes the value abstain; bad input is a
// classified error that writes nothing.
func TestCLI_Claims(t *testing.T) {
	dir := linkVault(t)
	key := []string{"--subject", "bloom", "--property", "kind", "--scope", "global"}
	out, errOut, code := cli(t, dir, "", append([]string{"--json", "claim", "assert", "--value", "probabilistic", "--source", "tech/bloom.md"}, key...)...)
	if code != exitOK {
		t.Fatalf("assert: exit %d %s", code, errOut)
	}
	a := oneJSON(t, out)
	claim, _ := a["claim"].(map[string]any)
	id, _ := claim["id"].(string)
	if id == "" || a["commit"] == nil || !strings.HasPrefix(a["path"].(string), ".norn/claims/") {
		t.Fatalf("assert: %s", out)
	}
	if log := git(t, dir, "log", "-1", "--format=%B"); !strings.Contains(log, "Norn-Op: claim") {
		t.Fatalf("commit:\n%s", log)
	}
	out, _, code = cli(t, dir, "", append([]string{"--json", "claim", "value"}, key...)...)
	if v := oneJSON(t, out); code != exitOK || v["status"] != "current" || v["value"] != "probabilistic" {
		t.Fatalf("value: exit %d %s", code, out)
	}
	mustCLI(t, dir, "---\ntitle: Bloom filters\n---\n# Bloom filters\nNow exact.\n", "write", "tech/bloom.md",
		"--expected-revision", strings.TrimSpace(git(t, dir, "rev-parse", "HEAD:tech/bloom.md")))
	out, _, _ = cli(t, dir, "", append([]string{"--json", "claim", "value"}, key...)...)
	v := oneJSON(t, out)
	claims, _ := v["claims"].([]any)
	if v["status"] != "abstained_stale_source" || len(claims) != 1 || claims[0].(map[string]any)["diff"] == nil {
		t.Fatalf("after an edit: %s", out)
	}
	head := git(t, dir, "rev-parse", "HEAD")
	for _, args := range [][]string{
		append([]string{"claim", "assert", "--value", "x", "--source", "tech/none.md"}, key...),
		{"claim", "assert", "--subject", "bloom", "--value", "x", "--source", "tech/bloom.md"},
		append([]string{"claim", "assert", "--value", "x", "--source", "tech/bloom.md", "--supersedes", "aaaaaaaaaaaaaaaaaaaaaaaaaa"}, key...),
		{"claim", "retract", "aaaaaaaaaaaaaaaaaaaaaaaaaa"},
	} {
		if _, errOut, code := cli(t, dir, "", args...); code != exitError || errOut == "" {
			t.Errorf("%v: exit %d %s", args, code, errOut)
		}
	}
	for _, args := range [][]string{{"claim"}, {"claim", "nope"}, {"claim", "retract", "not-an-id"}, append([]string{"claim", "value", "--at", "soon"}, key...)} {
		if _, _, code := cli(t, dir, "", args...); code != exitUsage {
			t.Errorf("%v: exit %d, want usage", args, code)
		}
	}
	if git(t, dir, "rev-parse", "HEAD") != head {
		t.Fatal("a refused claim command wrote")
	}
	out, _, code = cli(t, dir, "", "--json", "claim", "retract", id)
	if r := oneJSON(t, out); code != exitOK || r["claim"].(map[string]any)["kind"] != "retraction" {
		t.Fatalf("retract: exit %d %s", code, out)
	}
	out, _, _ = cli(t, dir, "", "--json", "claim", "history", id)
	h := oneJSON(t, out)
	if hc, _ := h["claims"].([]any); len(hc) != 2 || h["subject"] != "bloom" {
		t.Fatalf("history: %s", out)
	}
	out, _, _ = cli(t, dir, "", append([]string{"claim", "value"}, key...)...)
	if !strings.HasPrefix(out, "unknown") {
		t.Fatalf("value after retraction: %s", out)
	}
}
