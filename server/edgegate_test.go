package server_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server"
)

// edgeNote is a note of the default profile with one typed edge to `to`.
func edgeNote(title, to string) string {
	return "---\ntitle: " + title + "\nedges:\n  - to: \"" + to + "\"\n    type: supports\n    why: " + goodWhy + "\n---\n# " + title + "\n"
}

// TestVault_EdgeTargetGate: a write whose `edges:` name a note that does not
// exist, several notes or an attachment is rejected, naming the edge; a target
// the same commit creates, moves or keeps is fine, and an edge the note already
// had is not judged again when its target goes.
func TestVault_EdgeTargetGate(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{"pic.png": "png\n"}
	for p, c := range edgeFixture {
		files[p] = c
	}
	v := openServed(t, files)
	put := func(changes ...repo.Change) error {
		tx := repo.Tx{Author: repo.Author{Name: "agent"}, Roles: []string{"agent"}, Op: repo.OpWrite, Changes: changes}
		for _, c := range changes {
			if c.Kind == repo.Archive {
				tx.Op, tx.Reason = repo.OpArchive, repo.ReasonArchived
			}
		}
		_, err := v.Apply(ctx, tx)
		return err
	}
	rules := func(err error) []string {
		var rej *hooks.Rejection
		if !errors.As(err, &rej) {
			t.Fatalf("not a rejection: %v", err)
		}
		var out []string
		for _, vi := range rej.Violations {
			out = append(out, vi.Rule+"@"+string(vi.Path)+": "+vi.Message)
		}
		return out
	}
	head := v.Head()
	for _, tc := range []struct{ to, rule, says string }{
		{"[[HyperLogLog]]", hooks.RuleEdgeTargetMissing, "names no note"},
		{"[[dup]]", hooks.RuleEdgeTargetAmbiguous, "a/dup.md, b/dup.md"},
		{"[[pic.png]]", hooks.RuleEdgeTargetMissing, "attachment pic.png"},
	} {
		err := put(repo.Change{Kind: repo.Put, Path: "new/hll.md", Content: []byte(edgeNote("HLL", tc.to))})
		if !errors.Is(err, repo.ErrRejected) {
			t.Fatalf("%s: %v", tc.to, err)
		}
		got := rules(err)
		if len(got) != 1 || !strings.HasPrefix(got[0], tc.rule+"@new/hll.md") || !strings.Contains(got[0], tc.says) || !strings.Contains(got[0], tc.to) {
			t.Fatalf("%s: %v", tc.to, got)
		}
	}
	if v.Head() != head {
		t.Fatal("a rejected write moved HEAD")
	}
	// Existing targets pass, by title or path.
	if err := put(repo.Change{Kind: repo.Put, Path: "new/a.md", Content: []byte(edgeNote("A", "[[Count-min sketch]]"))}); err != nil {
		t.Fatal(err)
	}
	// A target created in the same commit passes.
	if err := put(
		repo.Change{Kind: repo.Put, Path: "new/b.md", Content: []byte(edgeNote("B", "[[HyperLogLog]]"))},
		repo.Change{Kind: repo.Put, Path: "new/hll.md", Content: []byte("---\ntitle: HyperLogLog\n---\n# HyperLogLog\n")},
	); err != nil {
		t.Fatal(err)
	}
	// A target archived in the same commit does not.
	err := put(
		repo.Change{Kind: repo.Put, Path: "new/c.md", Content: []byte(edgeNote("C", "[[HyperLogLog]]"))},
		repo.Change{Kind: repo.Archive, Path: "new/hll.md", ExpectedRevision: v.Revision("new/hll.md")},
	)
	if got := rules(err); len(got) != 1 || !strings.HasPrefix(got[0], hooks.RuleEdgeTargetMissing+"@new/c.md") {
		t.Fatalf("target archived meanwhile: %v", got)
	}
	// Archive the target: b's edge dangles, and b stays editable.
	if _, err := v.ArchiveNote(ctx, server.ArchiveRequest{Path: "new/hll.md", Reason: repo.ReasonArchived, Author: repo.Author{Name: "agent"}, Roles: []string{"agent"}}); err != nil {
		t.Fatal(err)
	}
	if err := put(repo.Change{Kind: repo.Put, Path: "new/b.md", Content: []byte(edgeNote("B", "[[HyperLogLog]]") + "More.\n"), ExpectedRevision: v.Revision("new/b.md")}); err != nil {
		t.Fatalf("an edit keeping an old dangling edge: %v", err)
	}
	// A move rewrites the edges to the moved note, and they pass.
	if _, err := v.MoveNote(ctx, server.MoveRequest{From: "tech/cms.md", To: "sketch/cms2.md", Author: repo.Author{Name: "agent"}, Roles: []string{"agent"}}); err != nil {
		t.Fatal(err)
	}
	if got := headBytes(t, v, "new/a.md"); !strings.Contains(got, "to: \"[[Count-min sketch]]\"") {
		t.Fatalf("a.md after the move: %s", got)
	}
	// Through LinkNotes the gate agrees.
	if _, err := v.LinkNotes(ctx, server.EdgeRequest{From: "new/a.md", To: "sketch/cms2.md", Type: "refines", Why: goodWhy, Author: repo.Author{Name: "agent"}, Roles: []string{"agent"}}); err != nil {
		t.Fatal(err)
	}
}

// TestMCP_WriteNoteEdgeTarget: write_note with an edge to no note is
// gate_rejected (fix_input), the violation naming the rule and the edge's line.
func TestMCP_WriteNoteEdgeTarget(t *testing.T) {
	_, e := newMCPEnv(t, mcpFixture)
	c, ctx := e.connect(&mcpAgent, false)
	te := wantError(t, c, ctx, "write_note", map[string]any{"path": "tech/hll.md", "content": edgeNote("HyperLogLog", "[[Nowhere at all]]")},
		server.CodeGateRejected, server.ClassFixInput)
	if len(te.Violations) != 1 || te.Violations[0].Rule != hooks.RuleEdgeTargetMissing || te.Violations[0].Line != 4 ||
		!strings.Contains(te.Violations[0].Message, "[[Nowhere at all]]") {
		t.Fatalf("violations: %+v", te.Violations)
	}
	mustCall(t, c, ctx, "write_note", map[string]any{"path": "tech/hll.md", "content": edgeNote("HyperLogLog", "[[Bloom filters]]")}, nil)
}
