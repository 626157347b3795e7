package mcp

import (
	"context"

	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/vault"
)

func (t *mcpTools) addSyncTools() {
	addTool(t, toolDef{name: "sync_status", title: "Sync status", scope: auth.ScopeRead, readOnly: true, idempotent: true,
		desc: "How the vault stands against its git remotes, without reaching them: per remote, commits ahead (written " +
			"here, not on the remote yet) and behind (fetched, not here yet) as of the last fetch, the last successful " +
			"fetch, push and sync, the last error with its code and since when failures began, and what the periodic " +
			"sync is doing (loop). remote: one remote's name; omit for all. To a caller without the private scope, " +
			"commits that changed only private notes are not counted, commit ids are left out and the last error is " +
			"its code's text."}, t.syncStatus)
}

// SyncStatusArgs are sync_status's arguments.
type SyncStatusArgs struct {
	Remote string `json:"remote,omitempty" jsonschema:"one remote's name; omit for every remote"`
}

func (t *mcpTools) syncStatus(ctx context.Context, c *caller, in SyncStatusArgs) (*vault.SyncStatus, error) {
	if t.sync == nil {
		return &vault.SyncStatus{Remotes: []vault.RemoteStatus{}}, nil
	}
	var names []string
	if in.Remote != "" {
		names = []string{in.Remote}
	}
	return t.sync.Status(ctx, c.Viewer, names)
}
