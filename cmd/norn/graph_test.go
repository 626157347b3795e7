package main

import (
	"strings"
	"testing"
)

func TestCLI_GraphQueries(t *testing.T) {
	dir := linkVault(t)
	nb := decode(t, mustCLI(t, dir, "", "--json", "neighborhood", "tech/bloom.md", "--depth", "2"))
	nodes, _ := nb["nodes"].([]any)
	if len(nodes) != 3 || nb["truncated"] != false {
		t.Errorf("neighborhood: %v", nb)
	}
	hubs := decode(t, mustCLI(t, dir, "", "--json", "hubs", "--limit", "1"))
	if hn, _ := hubs["nodes"].([]any); len(hn) != 1 || hn[0].(map[string]any)["id"] != "tech/bloom.md" || hubs["total"] != float64(1) || hubs["next_offset"] != nil {
		t.Errorf("hubs: %v", hubs)
	}
	if out := mustCLI(t, dir, "", "path", "b/ref.md", "tech/cms.md"); !strings.HasPrefix(out, "2 hops") {
		t.Errorf("path: %q", out)
	}
	orph := decode(t, mustCLI(t, dir, "", "--json", "orphans"))
	if orph["total"] != float64(0) {
		t.Errorf("orphans: %v", orph)
	}
	// Bad input: exit 2 (usage) or 1 (unknown note), nothing written.
	head := git(t, dir, "rev-parse", "HEAD")
	for _, args := range [][]string{
		{"neighborhood", "tech/bloom.md", "--depth", "9"},
		{"hubs", "--limit", "0"},
		{"path", "tech/bloom.md"},
	} {
		if _, _, code := cli(t, dir, "", args...); code != 2 {
			t.Errorf("norn %v: exit %d, want 2", args, code)
		}
	}
	if _, errs, code := cli(t, dir, "", "neighborhood", "nope.md"); code != 1 || !strings.Contains(errs, "nope.md") {
		t.Errorf("unknown note: exit %d %q", code, errs)
	}
	if git(t, dir, "rev-parse", "HEAD") != head || git(t, dir, "status", "--porcelain") != "" {
		t.Error("a query changed the vault")
	}
}
