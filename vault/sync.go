package vault

import (
	"context"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// The repository operations the sync engine (sync/remote.Remotes.Sync) needs
// beyond reads: taking in fetched commits, in turn with a move's commit (see
// writeMu) like every other write.

// Advance fast-forwards the branch from old to target (repo.Vault.Advance).
func (v *Vault) Advance(ctx context.Context, old, target repo.CommitID) (*repo.Result, error) {
	v.writeMu.RLock()
	defer v.writeMu.RUnlock()
	return v.repo.Advance(ctx, old, target)
}

// Merge commits a merge transaction (repo.Vault.Merge).
func (v *Vault) Merge(ctx context.Context, m repo.MergeTx) (*repo.Result, error) {
	v.writeMu.RLock()
	defer v.writeMu.RUnlock()
	return v.repo.Merge(ctx, m)
}

// MergeBase is a best common ancestor of two commits (repo.Vault.MergeBase).
func (v *Vault) MergeBase(ctx context.Context, a, b repo.CommitID) (repo.CommitID, error) {
	return v.repo.MergeBase(ctx, a, b)
}

// KindAt is what a path holds at a commit (repo.Vault.KindAt).
func (v *Vault) KindAt(ctx context.Context, p note.Path, at string) (repo.EntryKind, error) {
	return v.repo.KindAt(ctx, p, at)
}

// KeepPacks holds the repository's packs in place while another reader of the
// object folder (a transfer) runs (repo.Vault.KeepPacks).
func (v *Vault) KeepPacks() (release func()) { return v.repo.KeepPacks() }
