package hooks_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/note"
)

// targets is a toy vault for EdgeTargets: name → where it resolves.
func targets(asked *[]string) hooks.EdgeResolver {
	return func(from note.Path, e note.Edge) hooks.EdgeTarget {
		*asked = append(*asked, e.Target)
		switch e.Target {
		case "Count-min sketch":
			return hooks.EdgeTarget{Known: true, Path: "tech/cms.md"}
		case "dup":
			return hooks.EdgeTarget{Known: true, Candidates: []note.Path{"a/dup.md", "b/dup.md"}}
		case "pic.png":
			return hooks.EdgeTarget{Known: true, Path: "pic.png"}
		case "Later":
			return hooks.EdgeTarget{} // the resolver cannot tell
		}
		return hooks.EdgeTarget{Known: true}
	}
}

func withEdges(tos ...string) string {
	var b strings.Builder
	b.WriteString("---\ntitle: Bloom filters\ntags: [data-structures, hashing]\nedges:\n")
	for _, to := range tos {
		b.WriteString("  - to: \"[[" + to + "]]\"\n    type: supports\n    why: Both hash items into a small array and trade exactness for memory.\n")
	}
	b.WriteString("---\n# Bloom filters\nBody.\n")
	return b.String()
}

// TestGates_EdgeTargets: an edge a change adds must name exactly one note; an
// edge the note already had is not asked about again; moves are judged too;
// without a resolver the rules are skipped.
func TestGates_EdgeTargets(t *testing.T) {
	g := hooks.New(config.Default())
	ctx := context.Background()
	run := func(c hooks.Change, r hooks.EdgeResolver) []hooks.Violation {
		t.Helper()
		err := g.Check(ctx, hooks.Proposal{Writer: agent, Op: "write", Changes: []hooks.Change{c}, EdgeTargets: r})
		var rej *hooks.Rejection
		if err == nil {
			return nil
		}
		if !errors.As(err, &rej) {
			t.Fatalf("check: %v", err)
		}
		return rej.Violations
	}
	var asked []string
	raw := withEdges("Count-min sketch", "Nowhere", "dup", "pic.png", "Later")
	vs := run(hooks.Change{Kind: hooks.KindPut, Path: "tech/bloom.md", New: []byte(raw)}, targets(&asked))
	want := []hit{{hooks.RuleEdgeTargetMissing, 8}, {hooks.RuleEdgeTargetAmbiguous, 11}, {hooks.RuleEdgeTargetMissing, 14}}
	if len(vs) != len(want) {
		t.Fatalf("violations: %v", vs)
	}
	for i, v := range vs {
		if (hit{v.Rule, v.Line}) != want[i] || v.Path != "tech/bloom.md" {
			t.Fatalf("violation %d: %v, want %v", i, v, want[i])
		}
	}
	if !strings.Contains(vs[0].Message, "[[Nowhere]]") || !strings.Contains(vs[0].Message, "create that note first") ||
		!strings.Contains(vs[1].Message, "a/dup.md, b/dup.md") || !strings.Contains(vs[1].Message, "[[a/dup]]") ||
		!strings.Contains(vs[2].Message, "attachment pic.png") {
		t.Fatalf("messages: %v", vs)
	}
	// An edit that keeps the broken edge and adds a good one: only the new one is asked.
	asked = nil
	old := withEdges("Nowhere")
	vs = run(hooks.Change{Kind: hooks.KindPut, Path: "tech/bloom.md", Old: []byte(old), New: []byte(withEdges("Nowhere", "Count-min sketch"))}, targets(&asked))
	if len(vs) != 0 || len(asked) != 1 || asked[0] != "Count-min sketch" {
		t.Fatalf("edit: %v, asked %v", vs, asked)
	}
	// A move that rewrites an edge's `to` is judged on it.
	vs = run(hooks.Change{Kind: hooks.KindMove, From: "old.md", Path: "tech/bloom.md", Old: []byte(withEdges("Count-min sketch")), New: []byte(withEdges("Nowhere"))}, targets(&asked))
	if len(vs) != 1 || vs[0].Rule != hooks.RuleEdgeTargetMissing {
		t.Fatalf("move: %v", vs)
	}
	// Self edges are edge-self's business; no resolver, no rule.
	asked = nil
	vs = run(hooks.Change{Kind: hooks.KindPut, Path: "tech/bloom.md", New: []byte(withEdges("Bloom filters"))}, targets(&asked))
	if len(vs) != 1 || vs[0].Rule != hooks.RuleEdgeSelf || len(asked) != 0 {
		t.Fatalf("self: %v, asked %v", vs, asked)
	}
	if vs := run(hooks.Change{Kind: hooks.KindPut, Path: "tech/bloom.md", New: []byte(raw)}, nil); len(vs) != 0 {
		t.Fatalf("without a resolver: %v", vs)
	}
	if vs := g.Lint("tech/bloom.md", []byte(raw)); len(vs) != 0 {
		t.Fatalf("lint: %v", vs)
	}
}
