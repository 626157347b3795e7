package hooks_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/note"
)

// TestGates_Check_Baseline: a content gate rejects only the violations a change
// introduces or touches, never those the note already had.
func TestGates_Check_Baseline(t *testing.T) {
	dflt := gatesWith(nil)
	strict := gatesWith(strictCfg)
	const noEOL = "# Aliases\nSee [[Old name]] for more.\nLast line" // no final newline
	const badTag = "---\ntitle: Bloom\ntags: [Hashing]\n---\n# Bloom\nBody.\n"
	const shortEdge = "---\ntitle: Bloom\nedges:\n  - to: \"[[Other]]\"\n    type: supports\n    why: short\n---\nBody.\n"
	const twoShortEdges = "---\ntitle: Bloom\nedges:\n  - to: \"[[Other]]\"\n    type: supports\n    why: short\n  - to: \"[[Other]]\"\n    type: supports\n    why: short\n---\nBody.\n"

	edit := func(path, old, new string) hooks.Change {
		return hooks.Change{Kind: hooks.KindPut, Path: note.Path(path), Old: []byte(old), New: []byte(new)}
	}
	tests := []struct {
		name   string
		g      *hooks.Gates
		change hooks.Change
		want   []hit
	}{
		{"edit a note without a final newline", dflt,
			edit("a.md", noEOL, strings.Replace(noEOL, "[[Old name]]", "[[New name]]", 1)), nil},
		{"append to the last line of a note without a final newline", dflt,
			edit("a.md", noEOL, noEOL+" and more"), nil},
		{"move and rewrite a note without a final newline", dflt,
			hooks.Change{Kind: hooks.KindMove, From: "old/a.md", Path: "new/a.md", Old: []byte(noEOL),
				New: []byte(strings.Replace(noEOL, "[[Old name]]", "[[../Old name]]", 1))}, nil},
		{"drop the final newline a note had", dflt,
			edit("a.md", good, strings.TrimSuffix(good, "\n")), []hit{{hooks.RuleFinalNewline, 6}}},
		{"a new note without a final newline", dflt,
			put("a.md", noEOL), []hit{{hooks.RuleFinalNewline, 3}}},
		{"an old bad tag shifted down by an edit above it", dflt,
			edit("a.md", badTag, strings.Replace(badTag, "title: Bloom\n", "title: Bloom\nsource: book\n", 1)), nil},
		{"an edit of the bad tag's line touches it", dflt,
			edit("a.md", badTag, strings.Replace(badTag, "[Hashing]", "[Hashing, go]", 1)), []hit{{hooks.RuleTagsFormat, 3}}},
		{"a second bad tag line is the change's", dflt,
			edit("a.md", badTag, strings.Replace(badTag, "tags: [Hashing]\n", "tags: [Hashing]\ntag: Other\n", 1)), []hit{{hooks.RuleTagsFormat, 4}}},
		{"an old short why stays", dflt,
			edit("a.md", shortEdge, strings.Replace(shortEdge, "Body.", "Body, longer.", 1)), nil},
		{"a second identical short why is counted", dflt,
			edit("a.md", shortEdge, twoShortEdges), []hit{{hooks.RuleEdgeWhyRestates, 7}, {hooks.RuleEdgeWhyShort, 7}}},
		{"a rewritten why is the change's", dflt,
			edit("a.md", shortEdge, strings.Replace(shortEdge, "why: short", "why: still short", 1)),
			[]hit{{hooks.RuleEdgeWhyRestates, 4}, {hooks.RuleEdgeWhyShort, 4}}},
		{"strict: old missing keys stay when the body changes", strict,
			edit("a.md", "# A\nBody.\n", "# A\nBody, edited.\n"), nil},
		{"strict: blank lines at the end grow", strict,
			edit("a.md", "# A\nBody.\n\n", "# A\nBody.\n\n\n"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := hooks.Proposal{Writer: agent, Op: "edit", Changes: []hooks.Change{tt.change}}
			if got := hits(check(t, tt.g, p)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("violations = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestGates_Lint_KeepsOldViolations: doctor still lists what the gates let an
// edit keep.
func TestGates_Lint_KeepsOldViolations(t *testing.T) {
	vs := gatesWith(nil).Lint("a.md", []byte("# A\nBody"))
	if got := hits(vs); !reflect.DeepEqual(got, []hit{{hooks.RuleFinalNewline, 2}}) {
		t.Errorf("Lint = %v, want final-newline@2", got)
	}
}
