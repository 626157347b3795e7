package mcp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/internal/testvault"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/server/mcp"
	"github.com/norn-vault/norn/vault"
)

// syncEnv is an MCP server over a vault whose remote origin is a bare
// repository on disk, synced once.
func syncEnv(t *testing.T) (*vault.Vault, *testmcp.Env, string) {
	t.Helper()
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	bare := filepath.Join(t.TempDir(), "remote.git")
	testmcp.Git(t, "", "init", "-q", "--bare", "-b", "main", bare)
	if err := e.Sync.Remotes().Add("origin", bare); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Sync.Sync(context.Background(), "origin"); err != nil {
		t.Fatal(err)
	}
	return v, e, bare
}

// TestSyncStatus_Privacy: sync_status gives the owner every commit ahead, the
// tip and the error's text; a reader without the private scope does not count
// the commits that changed only private notes, gets no commit ids, and gets the
// error's code instead of its text.
func TestSyncStatus_Privacy(t *testing.T) {
	v, e, bare := syncEnv(t)
	for _, w := range [][2]string{{"personal-notes/diary.md", "# Diary\nanother day\n"}, {"tech/secret.md", "---\ntitle: Secret plan\nprivate: true\ntags: [hashing]\n---\n# Secret plan\nmore\n"}, {"pub.md", "# Pub\n"}} {
		if err := testvault.Write(v, w[0], w[1], hooks.RoleOwner); err != nil {
			t.Fatal(err)
		}
	}
	owner, octx := e.Connect(&testmcp.Owner, false)
	reader, rctx := e.Connect(&testmcp.Reader, false)
	var so, sr vault.SyncStatus
	testmcp.MustCall(t, owner, octx, "sync_status", nil, &so)
	testmcp.MustCall(t, reader, rctx, "sync_status", map[string]any{"remote": "origin"}, &sr)
	if len(so.Remotes) != 1 || so.Remotes[0].Ahead != 3 || so.Remotes[0].Tip == "" || so.Head != v.Head() || so.Remotes[0].LastPush.IsZero() {
		t.Fatalf("owner: %+v", so)
	}
	if len(sr.Remotes) != 1 || sr.Remotes[0].Ahead != 1 || sr.Remotes[0].Tip != "" || sr.Head != "" {
		t.Fatalf("reader: %+v, want 1 ahead (pub.md), no commit ids", sr)
	}

	if err := os.RemoveAll(bare); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Sync.Sync(context.Background(), "origin"); err == nil {
		t.Fatal("sync of a removed remote succeeded")
	}
	testmcp.MustCall(t, owner, octx, "sync_status", nil, &so)
	testmcp.MustCall(t, reader, rctx, "sync_status", nil, &sr)
	o, r := so.Remotes[0], sr.Remotes[0]
	if o.LastErrorCode != "remote_unreachable" || !strings.Contains(o.LastError, "unreachable") || o.ErrorSince.IsZero() {
		t.Errorf("owner after a failure: %+v", o)
	}
	if r.LastErrorCode != "remote_unreachable" || strings.Contains(r.LastError, o.LastError) || r.ErrorSince != o.ErrorSince {
		t.Errorf("reader after a failure: %+v", r)
	}
}

// TestWriteTools_Remote: write tools report remote {pushed, ahead, last_error}
// when the vault has a remote; wait "pushed" syncs until the commit is on it; a
// remote that refuses pushes (a pre-receive hook) or cannot be reached leaves
// pushed false with the reason, the write committed and the remote unmoved. A
// bad wait, or wait "pushed" without a remote, writes nothing.
func TestWriteTools_Remote(t *testing.T) {
	v, e, bare := syncEnv(t)
	if err := testvault.Write(v, "personal-notes/today.md", "# Today\n", hooks.RoleOwner); err != nil {
		t.Fatal(err)
	}
	agent := auth.Principal{Name: "agent", Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite}}
	c, ctx := e.Connect(&agent, false)
	tip := func() string { return strings.TrimSpace(testmcp.Git(t, bare, "rev-parse", "main")) }
	note := func(p string) map[string]any {
		return map[string]any{"path": p, "content": "---\ntitle: " + p + "\ntype: note\nstatus: active\ntags: [a, b]\nupdated: 2026-12-07\n---\n# " + p + "\n"}
	}
	with := func(m map[string]any, k string, val any) map[string]any { m[k] = val; return m }

	var w mcp.WriteResult
	testmcp.MustCall(t, c, ctx, "write_note", note("n1.md"), &w)
	if w.Remote == nil || w.Remote.Remote != "origin" || w.Remote.Pushed || w.Remote.Ahead != 1 {
		t.Fatalf("write: remote %+v, want not pushed, 1 ahead (the private write uncounted)", w.Remote)
	}
	testmcp.MustCall(t, c, ctx, "write_note", with(note("n2.md"), "wait", "pushed"), &w)
	if w.Remote == nil || !w.Remote.Pushed || w.Remote.Ahead != 0 || tip() != string(w.Commit) {
		t.Fatalf("wait pushed: remote %+v, commit %s, remote at %s", w.Remote, w.Commit, tip())
	}
	var cr mcp.CaptureResult
	testmcp.MustCall(t, c, ctx, "capture", map[string]any{"text": "a thought", "wait": "pushed"}, &cr)
	if cr.Remote == nil || !cr.Remote.Pushed || tip() != string(cr.Commit) {
		t.Fatalf("capture, wait pushed: %+v", cr.Remote)
	}
	var cl mcp.ClaimWriteResult
	testmcp.MustCall(t, c, ctx, "assert_claim", map[string]any{"subject": "n1", "property": "kind", "scope": "global",
		"value": "note", "source": "n1.md", "wait": "pushed"}, &cl)
	if cl.Remote == nil || !cl.Remote.Pushed || tip() != string(cl.Commit) {
		t.Fatalf("assert_claim, wait pushed: %+v", cl.Remote)
	}
	var sr mcp.SynthesisRegistered
	testmcp.MustCall(t, c, ctx, "register_synthesis", map[string]any{"summary": "n2.md", "sources": []string{"n1.md"}, "wait": "pushed"}, &sr)
	if sr.Remote == nil || !sr.Remote.Pushed || sr.Commit == "" || tip() != string(sr.Commit) {
		t.Fatalf("register_synthesis, wait pushed: %+v", sr)
	}

	// Bad waits write nothing.
	head := v.Head()
	testmcp.WantError(t, c, ctx, "write_note", with(note("n3.md"), "wait", "soon"), mcp.CodeInvalidInput, mcp.ClassFixInput)
	if v.Head() != head {
		t.Fatal("a bad wait wrote")
	}

	// A remote that refuses every push.
	hook := filepath.Join(bare, "hooks", "pre-receive")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	before := tip()
	testmcp.MustCall(t, c, ctx, "write_note", with(note("n3.md"), "wait", "pushed"), &w)
	if w.Remote == nil || w.Remote.Pushed || w.Remote.LastErrorCode != "remote_rejected" || w.Remote.Ahead != 1 || tip() != before || v.Head() != w.Commit {
		t.Fatalf("wait pushed, refused: %+v, commit %s, remote at %s", w.Remote, w.Commit, tip())
	}
	// An unreachable one.
	if err := os.RemoveAll(bare); err != nil {
		t.Fatal(err)
	}
	testmcp.MustCall(t, c, ctx, "write_note", with(note("n4.md"), "wait", "pushed"), &w)
	if w.Remote == nil || w.Remote.Pushed || w.Remote.LastErrorCode != "remote_unreachable" || w.Remote.Ahead != 2 {
		t.Fatalf("wait pushed, unreachable: %+v", w.Remote)
	}
	if strings.Contains(w.Remote.LastError, bare) {
		t.Errorf("an agent without the private scope sees the error's text: %q", w.Remote.LastError)
	}

	// No remote: wait pushed is refused before writing; without wait, no remote field.
	v2, e2 := testmcp.NewEnv(t, testmcp.Fixture)
	c2, ctx2 := e2.Connect(&agent, false)
	head = v2.Head()
	testmcp.WantError(t, c2, ctx2, "write_note", with(note("n5.md"), "wait", "pushed"), mcp.CodeInvalidInput, mcp.ClassFixInput)
	if v2.Head() != head {
		t.Fatal("wait pushed without a remote wrote")
	}
	var w2 mcp.WriteResult
	testmcp.MustCall(t, c2, ctx2, "write_note", note("n5.md"), &w2)
	if w2.Remote != nil || w2.Commit == "" {
		t.Fatalf("a vault without a remote reports %+v", w2.Remote)
	}
}
