package mcp_test

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/internal/testvault"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/server/mcp"
	"github.com/norn-vault/norn/vault"
)

// edgeNote is a note of the default profile with one typed edge to `to`.
func edgeNote(title, to string) string {
	return "---\ntitle: " + title + "\nedges:\n  - to: \"" + to + "\"\n    type: supports\n    why: " + testvault.GoodWhy + "\n---\n# " + title + "\n"
}

// TestVault_EdgeTargetGate: a write whose `edges:` name a note that does not
// exist, several notes or an attachment is rejected, naming the edge; a target
// the same commit creates, moves or keeps is fine, and an edge the note already
// had is not judged again when its target goes.
func TestVault_EdgeTargetGate(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{"pic.png": "png\n"}
	for p, c := range testvault.EdgeFixture {
		files[p] = c
	}
	v := testvault.OpenServed(t, files)
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
	if _, err := v.ArchiveNote(ctx, vault.ArchiveRequest{Path: "new/hll.md", Reason: repo.ReasonArchived, Author: repo.Author{Name: "agent"}, Roles: []string{"agent"}}); err != nil {
		t.Fatal(err)
	}
	if err := put(repo.Change{Kind: repo.Put, Path: "new/b.md", Content: []byte(edgeNote("B", "[[HyperLogLog]]") + "More.\n"), ExpectedRevision: v.Revision("new/b.md")}); err != nil {
		t.Fatalf("an edit keeping an old dangling edge: %v", err)
	}
	// A move rewrites the edges to the moved note, and they pass.
	if _, err := v.MoveNote(ctx, vault.MoveRequest{From: "tech/cms.md", To: "sketch/cms2.md", Author: repo.Author{Name: "agent"}, Roles: []string{"agent"}}); err != nil {
		t.Fatal(err)
	}
	if got := testvault.HeadBytes(t, v, "new/a.md"); !strings.Contains(got, "to: \"[[Count-min sketch]]\"") {
		t.Fatalf("a.md after the move: %s", got)
	}
	// Through LinkNotes the gate agrees.
	if _, err := v.LinkNotes(ctx, vault.EdgeRequest{From: "new/a.md", To: "sketch/cms2.md", Type: "refines", Why: testvault.GoodWhy, Author: repo.Author{Name: "agent"}, Roles: []string{"agent"}}); err != nil {
		t.Fatal(err)
	}
}

// TestMCP_WriteNoteEdgeTarget: write_note with an edge to no note is
// gate_rejected (fix_input), the violation naming the rule and the edge's line.
func TestMCP_WriteNoteEdgeTarget(t *testing.T) {
	_, e := testmcp.NewEnv(t, testmcp.Fixture)
	c, ctx := e.Connect(&testmcp.Agent, false)
	te := testmcp.WantError(t, c, ctx, "write_note", map[string]any{"path": "tech/hll.md", "content": edgeNote("HyperLogLog", "[[Nowhere at all]]")},
		mcp.CodeGateRejected, mcp.ClassFixInput)
	if len(te.Violations) != 1 || te.Violations[0].Rule != hooks.RuleEdgeTargetMissing || te.Violations[0].Line != 4 ||
		!strings.Contains(te.Violations[0].Message, "[[Nowhere at all]]") {
		t.Fatalf("violations: %+v", te.Violations)
	}
	testmcp.MustCall(t, c, ctx, "write_note", map[string]any{"path": "tech/hll.md", "content": edgeNote("HyperLogLog", "[[Bloom filters]]")}, nil)
}

// TestMCP_EdgeGateHidesPrivateTargets: over HTTP, to a token without the private
// scope an edge in a note's frontmatter to a private note (by `private: true` or
// by folder) is refused by write_note and file_note, dry run or not, exactly as an
// edge to a note that does not exist (edge-target-missing, message for message),
// and nothing is committed; a name ambiguous in the whole vault is refused naming
// only the visible candidates. A token with the private scope links to the
// private note, and sees every candidate.
func TestMCP_EdgeGateHidesPrivateTargets(t *testing.T) {
	files := maps.Clone(testmcp.Fixture)
	files["priv/plan.md"] = "---\ntitle: Private plan\nprivate: true\n---\n# Private plan\n"
	files["pub/plan.md"] = "---\ntitle: Public plan\n---\n# Public plan\n"
	v, e := testmcp.NewEnv(t, files)
	tok, secret := testmcp.Tokens(t, v, map[string][]auth.Scope{
		"agent":   {auth.ScopeRead, auth.ScopeWrite},
		"trusted": {auth.ScopeRead, auth.ScopeWrite, auth.ScopePrivate},
	})
	url := testmcp.ServeHTTP(t, e.S, tok)
	ctx := context.Background()
	agent, err := testmcp.Dial(t, url, testmcp.Bearer(secret["agent"]), false)
	if err != nil {
		t.Fatal(err)
	}
	trusted, err := testmcp.Dial(t, url, testmcp.Bearer(secret["trusted"]), false)
	if err != nil {
		t.Fatal(err)
	}
	s := &e2eSession{v: v}
	state := s.vaultState(t)

	const missing = "[[Nonexist plan]]"
	for _, hidden := range []string{"[[Secret plan]]", "[[tech/secret]]", "[[diary]]", "[[personal-notes/diary]]"} {
		for _, tool := range []string{"write_note", "file_note"} {
			for _, dry := range []bool{true, false} {
				args := func(to string) map[string]any {
					return map[string]any{"path": "tech/hll.md", "content": edgeNote("HyperLogLog", to), "dry_run": dry}
				}
				h := testmcp.WantError(t, agent, ctx, tool, args(hidden), mcp.CodeGateRejected, mcp.ClassFixInput)
				m := testmcp.WantError(t, agent, ctx, tool, args(missing), mcp.CodeGateRejected, mcp.ClassFixInput)
				if len(h.Violations) != 1 || h.Violations[0].Rule != hooks.RuleEdgeTargetMissing {
					t.Fatalf("%s (dry run %v) to %s: violations %+v", tool, dry, hidden, h.Violations)
				}
				hv, mv := h.Violations[0], m.Violations[0]
				hv.Message = strings.ReplaceAll(hv.Message, hidden, missing)
				if hv != mv || strings.ReplaceAll(h.Message, hidden, missing) != m.Message {
					t.Fatalf("%s (dry run %v): an edge to the hidden %s answers\n%+v\nan edge to a missing note\n%+v", tool, dry, hidden, h, m)
				}
			}
		}
	}
	// A name that a private note makes ambiguous names the visible note, as in
	// the vault without the private one: refusing it would tell that a private
	// note shares the name.
	var w mcp.WriteResult
	testmcp.MustCall(t, agent, ctx, "write_note", map[string]any{"path": "tech/hll.md", "content": edgeNote("HyperLogLog", "[[plan]]"), "dry_run": true}, &w)
	if !w.DryRun || w.Commit != "" {
		t.Fatalf("an edge ambiguous only with a private note, without the private scope: %+v", w)
	}
	if after := s.vaultState(t); after != state {
		t.Fatalf("a refused write changed the vault: %s, then %s", state, after)
	}

	// With the private scope the names resolve in the whole vault.
	te := testmcp.WantError(t, trusted, ctx, "write_note", map[string]any{"path": "tech/hll.md", "content": edgeNote("HyperLogLog", "[[plan]]")},
		mcp.CodeGateRejected, mcp.ClassFixInput)
	if len(te.Violations) != 1 || te.Violations[0].Rule != hooks.RuleEdgeTargetAmbiguous || !strings.Contains(te.Violations[0].Message, "priv/plan.md, pub/plan.md") {
		t.Fatalf("ambiguous edge with the private scope: %+v", te.Violations)
	}
	w = mcp.WriteResult{}
	testmcp.MustCall(t, trusted, ctx, "file_note", map[string]any{"path": "tech/hll.md", "content": edgeNote("HyperLogLog", "[[diary]]"), "dry_run": true}, &w)
	testmcp.MustCall(t, trusted, ctx, "write_note", map[string]any{"path": "tech/hll.md", "content": edgeNote("HyperLogLog", "[[Secret plan]]")}, &w)
	s.who = "trusted"
	s.committed(t, w, repo.OpWrite)
}
