package repo_test

import (
	"context"
	"slices"
	"testing"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// TestProposal_TwinsAndNames: the gate sees the base tree's folders: Names lists a
// folder, Twins the entries of a folder whose names fold alike (note.Fold), folders
// and files, in any case and normalisation; a missing folder lists nothing.
func TestProposal_TwinsAndNames(t *testing.T) {
	type entry struct {
		name string
		dir  bool
	}
	collect := func(seq func(func(string, bool) bool)) []entry {
		var out []entry
		for n, d := range seq {
			out = append(out, entry{n, d})
		}
		return out
	}
	var got map[string][]entry
	v := newVault(t, repo.Options{Gate: func(ctx context.Context, p *repo.Proposal) error {
		if p.Changes[0].Path != "probe.md" {
			return nil
		}
		got = map[string][]entry{
			"names Case":    collect(p.Names("Case")),
			"names missing": collect(p.Names("missing")),
			"twins foo":     collect(p.Twins("Case", note.Fold("FOO.md"))),
			"twins case":    collect(p.Twins("", note.Fold("CASE"))),
			"twins cafe":    collect(p.Twins("", note.Fold("cafe\u0301.md"))),
			"twins none":    collect(p.Twins("Case", note.Fold("bar.md"))),
			"twins missing": collect(p.Twins("missing", "x")),
		}
		return nil
	}})
	write(t, v, put("Case/Foo.md", "# A\n", ""), put("Case/b.md", "# B\n", ""), put("caf\u00e9.md", "# C\n", ""))
	write(t, v, put("probe.md", "# P\n", ""))
	want := map[string][]entry{
		"names Case":    {{"Foo.md", false}, {"b.md", false}},
		"names missing": nil,
		"twins foo":     {{"Foo.md", false}},
		"twins case":    {{"Case", true}},
		"twins cafe":    {{"caf\u00e9.md", false}},
		"twins none":    nil,
		"twins missing": nil,
	}
	for k, w := range want {
		if !slices.Equal(got[k], w) {
			t.Errorf("%s: %v, want %v", k, got[k], w)
		}
	}
}
