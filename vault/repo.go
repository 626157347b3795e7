package vault

import (
	"context"
	"fmt"
	"iter"

	"github.com/norn-vault/norn/ledger"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// The repository as the surfaces reach it: reads at HEAD or at any revision, the
// history, commit events, and upkeep. Writes go through Apply and CommitExternal,
// which take the move lock (writeMu); nothing outside this package reaches
// repo.Vault.Apply.

// Dir is the vault's working tree.
func (v *Vault) Dir() string { return v.repo.Dir() }

// GitDir is the vault's git directory.
func (v *Vault) GitDir() string { return v.repo.GitDir() }

// Branch is the branch the vault writes to.
func (v *Vault) Branch() string { return v.repo.Branch() }

// Owner is the vault's person: the author of external edits and of the CLI's writes.
func (v *Vault) Owner() repo.Author { return v.repo.Owner() }

// Head is the commit at the tip of the vault's branch ("" before the first).
func (v *Vault) Head() repo.CommitID { return v.repo.Head() }

// Read reads p at HEAD (at "") or at a commit-ish (repo.Vault.Read), or as it was
// at a date or time (YYYY-MM-DD or RFC 3339: the last commit at or before it,
// ledger.ResolveAt).
func (v *Vault) Read(ctx context.Context, p note.Path, at string) (*repo.Blob, error) {
	at, err := ledger.ResolveAt(ctx, v.repo, at)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return v.repo.Read(ctx, p, at)
}

// ReadRevision reads the bytes of a revision (a blob id).
func (v *Vault) ReadRevision(ctx context.Context, rev repo.Revision) ([]byte, error) {
	return v.repo.ReadRevision(ctx, rev)
}

// Revision is p's revision at HEAD ("" when p is not there).
func (v *Vault) Revision(p note.Path) repo.Revision { return v.repo.Revision(p) }

// List lists a folder at HEAD or at a commit-ish.
func (v *Vault) List(ctx context.Context, folder, at string) ([]repo.Entry, error) {
	return v.repo.List(ctx, folder, at)
}

// Files lists every file at HEAD or at a commit-ish, with the commit it read.
func (v *Vault) Files(ctx context.Context, at string) ([]repo.File, repo.CommitID, error) {
	return v.repo.Files(ctx, at)
}

// Contents yields the bytes of files.
func (v *Vault) Contents(ctx context.Context, files []repo.File) iter.Seq2[repo.File, []byte] {
	return v.repo.Contents(ctx, files)
}

// Commit describes the commit at a commit-ish.
func (v *Vault) Commit(ctx context.Context, at string) (*repo.Commit, error) {
	return v.repo.Commit(ctx, at)
}

// Log lists the commits that changed p ("" for all), newest first, at most limit.
func (v *Vault) Log(ctx context.Context, p note.Path, limit int) ([]repo.Commit, error) {
	return v.repo.Log(ctx, p, limit)
}

// RevisionWasAt reports whether rev was p's blob in the history reachable from HEAD.
func (v *Vault) RevisionWasAt(ctx context.Context, p note.Path, rev repo.Revision) (bool, error) {
	return v.repo.RevisionWasAt(ctx, p, rev)
}

// Diff lists the changes between two commit-ishes.
func (v *Vault) Diff(ctx context.Context, from, to string) ([]repo.FileChange, error) {
	return v.repo.Diff(ctx, from, to)
}

// Subscribe registers fn for commit events (repo.Vault.Subscribe).
func (v *Vault) Subscribe(fn func(repo.Event)) (cancel func()) { return v.repo.Subscribe(fn) }

// SubscribeRewinds is repo.Vault.SubscribeRewinds: fn hears of every move of the
// branch back or onto rewritten history (a `git reset` made by hand), in order
// with the events.
func (v *Vault) SubscribeRewinds(fn func(repo.Rewind)) (cancel func()) {
	return v.repo.SubscribeRewinds(fn)
}

// CommitsBetween lists the commits between two ids with their changes, paged
// (repo.Vault.CommitsBetween).
func (v *Vault) CommitsBetween(ctx context.Context, from, to, after repo.CommitID, limit int) ([]repo.Event, repo.CommitID, error) {
	return v.repo.CommitsBetween(ctx, from, to, after, limit)
}

// Changes lists the edits a person made in the working tree (repo.Vault.Changes).
func (v *Vault) Changes(ctx context.Context) ([]repo.Change, error) { return v.repo.Changes(ctx) }

// ChangesIn lists the edits a person made in part of the working tree
// (repo.Vault.ChangesIn).
func (v *Vault) ChangesIn(ctx context.Context, scope repo.Scope) ([]repo.Change, error) {
	return v.repo.ChangesIn(ctx, scope)
}

// Watch starts watching the working tree for hand edits (repo.Vault.Watch).
func (v *Vault) Watch(opts repo.WatchOptions) *repo.Watcher { return v.repo.Watch(opts) }

// Refresh catches the vault up with commits another process made.
func (v *Vault) Refresh(ctx context.Context) error { return v.repo.Refresh(ctx) }

// Behind reports a commit another process made that Refresh has not taken in yet
// (repo.Vault.Behind).
func (v *Vault) Behind() bool { return v.repo.Behind() }

// Busy reports git working in the working tree (repo.Vault.Busy).
func (v *Vault) Busy() error { return v.repo.Busy() }

// Packs counts the vault's pack files.
func (v *Vault) Packs() int { return v.repo.Packs() }

// LooseObjects counts the vault's loose objects.
func (v *Vault) LooseObjects() int { return v.repo.LooseObjects() }

// GC packs the vault's objects (repo.Vault.GC).
func (v *Vault) GC(ctx context.Context, opts repo.GCOptions) (*repo.GCResult, error) {
	return v.repo.GC(ctx, opts)
}

// RemoveTempFiles removes temporary files a crashed write left behind.
func (v *Vault) RemoveTempFiles(ctx context.Context) (int, error) { return v.repo.RemoveTempFiles(ctx) }

// CommitExternal commits the edits a person made in the working tree
// (repo.Vault.CommitExternal), in turn with a move's commit (see writeMu).
func (v *Vault) CommitExternal(ctx context.Context, op repo.Op, message string) (*repo.Result, error) {
	return v.CommitExternalIn(ctx, repo.Scope{Full: true}, op, message)
}

// CommitExternalIn is CommitExternal over the paths of scope only
// (repo.Vault.CommitExternalIn).
func (v *Vault) CommitExternalIn(ctx context.Context, scope repo.Scope, op repo.Op, message string) (*repo.Result, error) {
	v.writeMu.RLock()
	defer v.writeMu.RUnlock()
	return v.repo.CommitExternalIn(ctx, scope, op, message)
}

// ResolveCommit turns a commit-ish (an id, a branch, HEAD, with ~N or ^N) into
// the commit it names.
func (v *Vault) ResolveCommit(at string) (repo.CommitID, error) {
	h, err := v.repo.ResolveCommit(at)
	if err != nil {
		return "", err
	}
	return repo.CommitID(h.String()), nil
}

// ResolvePrefix turns a full or abbreviated object id into the commit or the
// blob it names (repo.Vault.ResolvePrefix).
func (v *Vault) ResolvePrefix(prefix string) (repo.CommitID, repo.Revision, error) {
	return v.repo.ResolvePrefix(prefix)
}

// IndexDir is where the vault's search index lives (IndexDir).
func (v *Vault) IndexDir() string { return IndexDir(v.repo) }
