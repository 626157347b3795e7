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
