package main

import (
	"strings"
	"testing"
)

// TestCLI_StatsAndLinks: stats pages its tables (totals and next offsets), links
// lists typed edges, both from the index.
func TestCLI_StatsAndLinks(t *testing.T) {
	dir := linkVault(t)
	mustCLI(t, dir, "", "link", "b/ref.md", "cms", "--type", "supports", "--why", why)
	p1 := decode(t, mustCLI(t, dir, "", "--json", "stats", "--limit", "2"))
	p2 := decode(t, mustCLI(t, dir, "", "--json", "stats", "--limit", "2", "--offset", "2"))
	links := p1["links"].(map[string]any)
	if p1["notes"] != float64(3) || links["total"] != float64(4) || links["resolved"] != float64(4) ||
		p1["edges"].(map[string]any)["total"] != float64(1) {
		t.Errorf("stats: %v", p1)
	}
	// Folders of notes: tech (2) and b (1); pic.png is an attachment.
	if p1["folders_total"] != float64(2) || len(p1["folders"].([]any)) != 2 || p1["folders_next_offset"] != nil {
		t.Errorf("page 1: %v", p1)
	}
	if len(p2["folders"].([]any)) != 0 || p2["folders_total"] != float64(2) {
		t.Errorf("page 2: %v", p2)
	}
	if out := mustCLI(t, dir, "", "stats", "--limit", "1"); !strings.Contains(out, "folders (1-1 of 2):") || !strings.Contains(out, "(more: --offset 1)") {
		t.Errorf("human stats: %s", out)
	}
	if _, _, code := cli(t, dir, "", "stats", "--offset", "-1"); code != exitUsage {
		t.Errorf("negative offset: exit %d", code)
	}
	l := decode(t, mustCLI(t, dir, "", "--json", "links", "tech/cms.md"))
	back := l["backlinks"].([]any)
	if l["backlinks_total"] != float64(1) || back[0].(map[string]any)["kind"] != "edge" || back[0].(map[string]any)["type"] != "supports" {
		t.Errorf("links: %v", l)
	}
	if out := mustCLI(t, dir, "", "links", "b/ref.md"); !strings.Contains(out, "→ tech/cms.md (supports edge)") {
		t.Errorf("human links: %s", out)
	}
}
