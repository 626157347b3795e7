package mcp_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/ledger"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/server/mcp"
)

var claimNotes = map[string]string{
	"tech/payments.md":        "# Payments\n\nOwned by team A.\n",
	"personal-notes/diary.md": "# Diary\n\nPayments is really owned by team Z.\n",
}

func claimArgs(value string) map[string]any {
	return map[string]any{"subject": "payments", "property": "owner", "scope": "prod", "value": value, "source": "tech/payments.md"}
}

var payKey = map[string]any{"subject": "payments", "property": "owner", "scope": "prod"}

// TestMCP_Claims: assert, value, supersede, history and retract through the
// tools, with their output schemas checked; bad arguments are fix_input and
// write nothing.
func TestMCP_Claims(t *testing.T) {
	v, e := testmcp.NewEnv(t, claimNotes)
	c, ctx := e.Connect(&testmcp.Agent, false)
	var a mcp.ClaimWriteResult
	testmcp.MustCall(t, c, ctx, "assert_claim", claimArgs("team-a"), &a)
	if a.Commit == "" || a.Claim.ID == "" || a.Claim.Source == nil || a.Claim.Source.Revision != v.Revision("tech/payments.md") || !a.Claim.Fresh ||
		a.Claim.AssertedBy.Name != "claude" || !strings.HasPrefix(string(a.Path), ".norn/claims/") {
		t.Fatalf("assert_claim: %+v", a)
	}
	var val mcp.ClaimValueResult
	testmcp.MustCall(t, c, ctx, "claim_value", payKey, &val)
	if val.Status != ledger.StatusCurrent || val.Value != "team-a" || len(val.Claims) != 1 || val.Claims[0].ID != a.Claim.ID {
		t.Fatalf("claim_value: %+v", val)
	}
	// read_note and search hits carry the live claims read from the note.
	var rn mcp.ReadNoteResult
	testmcp.MustCall(t, c, ctx, "read_note", map[string]any{"path": "tech/payments.md"}, &rn)
	if rn.ClaimsTotal != 1 || len(rn.Claims) != 1 || rn.Claims[0].ID != a.Claim.ID || !rn.Claims[0].Fresh || rn.Claims[0].Value != "team-a" {
		t.Fatalf("read_note claims: %+v", rn)
	}
	var sr mcp.SearchResult
	testmcp.MustCall(t, c, ctx, "search", map[string]any{"query": "payments owned"}, &sr)
	if len(sr.Hits) == 0 || sr.Hits[0].Path != "tech/payments.md" || len(sr.Hits[0].Claims) != 1 || !sr.Hits[0].Claims[0].Fresh {
		t.Fatalf("search hit claims: %+v", sr.Hits)
	}
	args := claimArgs("team-b")
	args["supersedes"] = string(a.Claim.ID)
	var b mcp.ClaimWriteResult
	testmcp.MustCall(t, c, ctx, "assert_claim", args, &b)
	var r mcp.ClaimWriteResult
	testmcp.MustCall(t, c, ctx, "retract_claim", map[string]any{"id": string(b.Claim.ID)}, &r)
	if r.Claim.Kind != ledger.KindRetraction || r.Claim.Supersedes != b.Claim.ID {
		t.Fatalf("retract_claim: %+v", r)
	}
	val = mcp.ClaimValueResult{}
	testmcp.MustCall(t, c, ctx, "claim_value", payKey, &val)
	if val.Status != ledger.StatusUnknown || val.Value != "" {
		t.Fatalf("after retraction: %+v", val)
	}
	rn = mcp.ReadNoteResult{}
	testmcp.MustCall(t, c, ctx, "read_note", map[string]any{"path": "tech/payments.md"}, &rn)
	if rn.ClaimsTotal != 0 || len(rn.Claims) != 0 {
		t.Fatalf("read_note after the chain was retracted: %+v", rn.Claims)
	}
	// A stale claim shows as such on the note.
	testmcp.MustCall(t, c, ctx, "assert_claim", claimArgs("team-c"), nil)
	testmcp.MustCall(t, c, ctx, "edit_note", map[string]any{"path": "tech/payments.md", "op": "append", "content": "Now team D.\n",
		"expected_revision": string(v.Revision("tech/payments.md"))}, nil)
	rn = mcp.ReadNoteResult{}
	testmcp.MustCall(t, c, ctx, "read_note", map[string]any{"path": "tech/payments.md"}, &rn)
	if len(rn.Claims) != 1 || rn.Claims[0].Fresh || rn.Claims[0].Value != "team-c" {
		t.Fatalf("read_note after an edit: %+v", rn.Claims)
	}
	var h mcp.ClaimHistoryResult
	testmcp.MustCall(t, c, ctx, "claim_history", map[string]any{"id": string(a.Claim.ID)}, &h)
	if len(h.Claims) != 4 || h.Claims[0].ID != a.Claim.ID || len(h.Claims[0].SupersededBy) != 1 || h.Claims[0].SupersededBy[0] != b.Claim.ID ||
		h.Claims[2].Live == nil || !*h.Claims[2].Live || *h.Claims[0].Live {
		t.Fatalf("claim_history: %+v", h)
	}
	// Bad input: classified, nothing written.
	head := v.Head()
	across := claimArgs("x")
	across["subject"], across["supersedes"] = "search", string(a.Claim.ID)
	for _, tc := range []struct {
		tool string
		args map[string]any
		code mcp.ErrorCode
	}{
		{"assert_claim", map[string]any{"subject": "s"}, mcp.CodeInvalidInput},
		{"assert_claim", map[string]any{"subject": "s", "property": "p", "scope": "x", "value": "v", "source": "missing.md"}, mcp.CodeNotFound},
		{"assert_claim", map[string]any{"subject": "s", "property": "p", "scope": "x", "value": "v", "source": "personal-notes/diary.md"}, mcp.CodeNotFound},
		{"assert_claim", across, mcp.CodeInvalidInput},
		{"assert_claim", func() map[string]any { a := claimArgs("v"); a["valid_to"] = "soon"; return a }(), mcp.CodeInvalidInput},
		{"assert_claim", func() map[string]any { a := claimArgs("v"); a["extra"] = 1; return a }(), mcp.CodeInvalidInput},
		{"retract_claim", map[string]any{"id": "nope"}, mcp.CodeInvalidInput},
		{"retract_claim", map[string]any{"id": string(b.Claim.ID)}, mcp.CodeInvalidInput}, // already retracted
		{"claim_value", map[string]any{"subject": "payments"}, mcp.CodeInvalidInput},
		{"claim_history", map[string]any{"id": string(a.Claim.ID), "subject": "payments"}, mcp.CodeInvalidInput},
	} {
		testmcp.WantError(t, c, ctx, tc.tool, tc.args, tc.code, mcp.ClassFixInput)
	}
	if v.Head() != head {
		t.Fatal("a refused call wrote")
	}
}

// TestMCP_ClaimsPrivacy: a caller without the private scope learns nothing of
// a claim bound to a private note: not its value, nor its history, nor a count.
func TestMCP_ClaimsPrivacy(t *testing.T) {
	_, e := testmcp.NewEnv(t, claimNotes)
	trusted, tctx := e.Connect(&testmcp.Trusted, false)
	agent, actx := e.Connect(&testmcp.Agent, false)
	args := claimArgs("team-z")
	args["source"] = "personal-notes/diary.md"
	var z mcp.ClaimWriteResult
	testmcp.MustCall(t, trusted, tctx, "assert_claim", args, &z)
	var val mcp.ClaimValueResult
	testmcp.MustCall(t, trusted, tctx, "claim_value", payKey, &val)
	if val.Status != ledger.StatusCurrent || val.Value != "team-z" {
		t.Fatalf("trusted: %+v", val)
	}
	val = mcp.ClaimValueResult{}
	testmcp.MustCall(t, agent, actx, "claim_value", payKey, &val)
	if val.Status != ledger.StatusUnknown || len(val.Claims) != 0 {
		t.Fatalf("agent sees a private claim: %+v", val)
	}
	var h mcp.ClaimHistoryResult
	testmcp.MustCall(t, agent, actx, "claim_history", payKey, &h)
	if len(h.Claims) != 0 {
		t.Fatalf("agent history: %+v", h)
	}
	te := testmcp.WantError(t, agent, actx, "claim_history", map[string]any{"id": string(z.Claim.ID)}, mcp.CodeNotFound, "")
	testmcp.WantError(t, agent, actx, "retract_claim", map[string]any{"id": string(z.Claim.ID)}, te.Code, "")
	if strings.Contains(te.Message, "diary") || strings.Contains(te.Message, "team-z") {
		t.Fatalf("the refusal names the private claim: %s", te.Message)
	}
}

// TestMCP_ClaimsConcurrentAgents: two agents asserting at once over streamable
// HTTP on 127.0.0.1 never conflict: every assertion lands as its own commit and
// file, and the value is a conflict between the two agents' claims (never a
// pick).
func TestMCP_ClaimsConcurrentAgents(t *testing.T) {
	v, e := testmcp.NewEnv(t, claimNotes)
	tok, secret := testmcp.Tokens(t, v, map[string][]auth.Scope{"agent-a": {auth.ScopeRead, auth.ScopeWrite}, "agent-b": {auth.ScopeRead, auth.ScopeWrite}})
	url := testmcp.ServeHTTP(t, e.S, tok)
	const each = 15
	var wg sync.WaitGroup
	errs := make(chan error, 2*each)
	ids := make(chan ledger.ClaimID, 2*each)
	for _, name := range []string{"agent-a", "agent-b"} {
		c, err := testmcp.Dial(t, url, testmcp.Bearer(secret[name]), false)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				var out mcp.ClaimWriteResult
				args := claimArgs(name)
				args["subject"] = fmt.Sprintf("svc-%d", i)
				te, err := e2eCall(context.Background(), c, "assert_claim", args, &out)
				switch {
				case err != nil:
					errs <- err
				case te != nil:
					errs <- fmt.Errorf("%s: %s %s", name, te.Code, te.Message)
				default:
					ids <- out.Claim.ID
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	close(ids)
	for err := range errs {
		t.Error(err)
	}
	seen := map[ledger.ClaimID]bool{}
	for id := range ids {
		if seen[id] {
			t.Fatalf("id %s twice", id)
		}
		seen[id] = true
	}
	if len(seen) != 2*each {
		t.Fatalf("%d claims landed, want %d", len(seen), 2*each)
	}
	if n := testmcp.Git(t, v.Dir(), "log", "--format=%an", "--grep=Norn-Op: claim"); strings.Count(n, "agent-") != 2*each {
		t.Fatalf("claim commits:\n%s", n)
	}
	c, ctx := e.Connect(&testmcp.Agent, false)
	for i := range each {
		var val mcp.ClaimValueResult
		testmcp.MustCall(t, c, ctx, "claim_value", map[string]any{"subject": fmt.Sprintf("svc-%d", i), "property": "owner", "scope": "prod"}, &val)
		if val.Status != ledger.StatusConflict || len(val.Claims) != 2 {
			t.Fatalf("svc-%d: %+v", i, val)
		}
	}
	if out := testmcp.Git(t, v.Dir(), "status", "--porcelain"); out != "" {
		t.Fatalf("working tree: %s", out)
	}
}
