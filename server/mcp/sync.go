package mcp

import (
	"context"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/vault"
)

// WaitArg is the wait argument every write tool takes.
type WaitArg struct {
	Wait string `json:"wait,omitempty" jsonschema:"pushed: after the commit, sync with the vault's default remote until the commit is on it (bounded: 30s); remote says whether it got there and, if not, why. Omit to answer at once (remote still says where the commit stands)"`
}

func (w WaitArg) waitFor() string { return w.Wait }

// waiter is a tool input with a wait argument (WaitArg).
type waiter interface{ waitFor() string }

// checkWait refuses a wait the server cannot honour, before anything is written.
func (t *mcpTools) checkWait(wait string) error {
	switch wait {
	case "":
		return nil
	case "pushed":
		name := ""
		if t.sync != nil {
			var err error
			if name, err = t.sync.DefaultRemote(); err != nil {
				return err
			}
		}
		if name == "" {
			return errInput("wait: pushed: the vault has no remote to push to (norn remote add NAME URL); omit wait")
		}
		return nil
	}
	return errInput("wait: want \"pushed\" or nothing, not %q", wait)
}

// remoteReporter is a write tool's answer: the commit it made and where to
// report how that commit stands against the remote (WriteResult, and the
// answers that embed it or carry their own remote).
type remoteReporter interface {
	remoteSlot() (repo.CommitID, **vault.WriteRemote)
}

func (w *WriteResult) remoteSlot() (repo.CommitID, **vault.WriteRemote) { return w.Commit, &w.Remote }

// reportRemote sets where the write's commit stands against the default remote
// (vault.Syncer.WriteRemote), first syncing until it is there for wait
// "pushed" (vault.Syncer.WaitPushed). A failure to tell is logged and leaves
// remote out: never a pushed it cannot vouch for.
func (t *mcpTools) reportRemote(ctx context.Context, c *caller, r remoteReporter, wait string) {
	commit, remote := r.remoteSlot()
	if t.sync == nil || commit == "" {
		return
	}
	var err error
	if wait == "pushed" {
		*remote, err = t.sync.WaitPushed(ctx, c.Viewer, commit)
	} else {
		*remote, err = t.sync.WriteRemote(ctx, c.Viewer, commit)
	}
	if err != nil {
		*remote = nil
		t.log.Warn("where the write stands against the remote is unknown", "commit", commit.Short(), "err", err)
	}
}

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
