package remote

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// TrailerRefused names, in a merge commit, a path of the remote's the merge left
// out and why (RefusedPath.Trailer).
const TrailerRefused = "Norn-Refused"

// Outcome says what a sync did.
type Outcome string

// The outcomes of Sync.
const (
	UpToDate    Outcome = "up-to-date"   // both sides at the same commit
	FastForward Outcome = "fast-forward" // the remote was ahead: the branch moved to it
	Pushed      Outcome = "pushed"       // the vault was ahead: the remote moved to it
	Merged      Outcome = "merged"       // both had moved: merged, and the merge pushed
	FirstPush   Outcome = "first-push"   // the remote had no branch: it got the vault's
)

// Vault is what Sync and PlanMerge need of a vault: a *repo.Vault has it, and so
// does the application layer's vault, which forwards to its repo.
type Vault interface {
	Head() repo.CommitID
	Advance(ctx context.Context, old, target repo.CommitID) (*repo.Result, error)
	Merge(ctx context.Context, m repo.MergeTx) (*repo.Result, error)
	MergeBase(ctx context.Context, a, b repo.CommitID) (repo.CommitID, error)
	Diff(ctx context.Context, from, to string) ([]repo.FileChange, error)
	Read(ctx context.Context, p note.Path, at string) (*repo.Blob, error)
	ReadRevision(ctx context.Context, rev repo.Revision) ([]byte, error)
	KindAt(ctx context.Context, p note.Path, at string) (repo.EntryKind, error)
	KeepPacks() (release func())
}

// SyncOptions configure Sync.
type SyncOptions struct {
	// Machine names conflict siblings (note.ConflictPath); default "norn".
	Machine string
	// Now dates conflict siblings; default time.Now.
	Now func() time.Time
	// MaxRounds bounds how often a push refused because the remote moved leads to
	// another fetch and merge (default 5).
	MaxRounds int
	// Author authors merge commits; default the vault's owner.
	Author repo.Author
	// Classify names a failed sync's error for Status.LastErrorCode (the
	// application layer passes its error vocabulary's classifier); nil: no code.
	Classify func(error) string
}

// SyncResult is what Sync did.
type SyncResult struct {
	Remote  string        `json:"remote"`
	Outcome Outcome       `json:"outcome"`
	Head    repo.CommitID `json:"head"`
	// Rounds is how many fetches it took (more than one when the remote moved
	// during the sync).
	Rounds    int             `json:"rounds"`
	Merges    []repo.CommitID `json:"merges,omitempty"`
	Conflicts []Conflict      `json:"conflicts,omitempty"`
	Kept      []string        `json:"kept,omitempty"`
	// Refused are the paths of the remote's the merges left out (MergePlan.Refused):
	// they stay in history, in the remote's commits.
	Refused []RefusedPath `json:"refused,omitempty"`

	fetched, pushed time.Time     // for the recorded state
	tip             repo.CommitID // the remote's tip as last seen: fetched, or pushed
}

// Sync brings the vault and remote name to the same commit: fetch; the remote
// ahead → fast-forward the branch (repo.Vault.Advance); the vault ahead → push;
// both moved → merge (PlanMerge, repo.Vault.Merge) and push; a push refused
// because the remote moved → fetch and merge again, up to MaxRounds; a remote
// without the branch gets the first push. A local write landing meanwhile is
// taken along in the next round. The outcome is recorded for Status. Errors:
// repo.ErrWorktreeDirty (a person's uncommitted edits where the sync must write),
// the transfer errors of Fetch and Push, ErrSyncBusy.
func (r *Remotes) Sync(ctx context.Context, v Vault, name string, opts SyncOptions) (*SyncResult, error) {
	if opts.Machine == "" {
		opts.Machine = "norn"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MaxRounds <= 0 {
		opts.MaxRounds = 5
	}
	res := &SyncResult{Remote: name}
	release := v.KeepPacks() // go-git lists the packs once per transfer
	err := r.syncRounds(ctx, v, name, opts, res)
	release()
	code := ""
	if err != nil && opts.Classify != nil {
		code = opts.Classify(err)
	}
	r.record(name, opts.Now(), res, err, code)
	if err != nil {
		return res, fmt.Errorf("sync %s: %w", name, err)
	}
	return res, nil
}

func (r *Remotes) syncRounds(ctx context.Context, v Vault, name string, opts SyncOptions, res *SyncResult) error {
	for res.Rounds < opts.MaxRounds {
		res.Rounds++
		tip, err := r.Fetch(ctx, name, nil)
		if packsMoved(err) {
			continue
		}
		if err != nil {
			return err
		}
		res.fetched, res.tip = opts.Now(), tip
		done, err := r.syncOnce(ctx, v, name, tip, opts, res)
		if packsMoved(err) {
			continue
		}
		if done || err != nil {
			res.Head = v.Head()
			return err
		}
	}
	return ErrSyncBusy
}

// packsMoved reports a transfer that lost a race with the vault's committer:
// go-git listed a pack that was gone when it read it (packs are merged while no
// KeepPacks hold is on; a fetch then ends without the remote's tip), or read a
// ref file while it was empty. Another round reads them again.
func packsMoved(err error) bool {
	return errors.Is(err, dotgit.ErrPackfileNotFound) || errors.Is(err, dotgit.ErrEmptyRefFile) || errors.Is(err, ErrFetchIncomplete)
}

// syncOnce does one round against the remote's tip; done false means go again
// (the remote or the branch moved under it).
func (r *Remotes) syncOnce(ctx context.Context, v Vault, name string, tip repo.CommitID, opts SyncOptions, res *SyncResult) (done bool, err error) {
	local := v.Head()
	push := func(local repo.CommitID, outcome Outcome, expected repo.CommitID) (bool, error) {
		err := r.Push(ctx, name, local, expected, nil)
		if errors.Is(err, ErrRemoteMoved) || errors.Is(err, ErrNotFastForward) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		res.pushed, res.tip = opts.Now(), local
		if res.Outcome == "" || outcome == Merged {
			res.Outcome = outcome
		}
		return true, nil
	}
	switch {
	case tip == local:
		if res.Outcome == "" {
			res.Outcome = UpToDate
		}
		return true, nil
	case tip == "":
		return push(local, FirstPush, "")
	}
	base := repo.CommitID("") // an unborn branch takes the remote's
	if local != "" {
		var err error
		if base, err = v.MergeBase(ctx, local, tip); err != nil {
			return false, err
		}
	}
	if base == local {
		// A fast-forward takes theirs' tree whole: with a path the vault cannot
		// take in it, merge instead (the merge leaves the path out).
		refused, err := r.wouldRefuse(ctx, v, local, tip)
		if err != nil {
			return false, err
		}
		if refused {
			return r.mergeAndPush(ctx, v, name, local, local, tip, opts, res, push)
		}
	}
	switch base {
	case local:
		_, err := v.Advance(ctx, local, tip)
		var stale *repo.StaleBaseError
		if errors.As(err, &stale) {
			return false, nil // a local write landed: merge it next round
		}
		if err != nil {
			return false, err
		}
		if res.Outcome == "" {
			res.Outcome = FastForward
		}
		return true, nil
	case tip:
		return push(local, Pushed, tip)
	}
	return r.mergeAndPush(ctx, v, name, base, local, tip, opts, res, push)
}

// mergeAndPush merges tip into local and pushes the merge over tip.
func (r *Remotes) mergeAndPush(ctx context.Context, v Vault, name string, base, local, tip repo.CommitID, opts SyncOptions, res *SyncResult,
	push func(local repo.CommitID, outcome Outcome, expected repo.CommitID) (bool, error)) (bool, error) {
	merged, err := r.merge(ctx, v, name, base, local, tip, opts, res)
	var stale *repo.StaleBaseError
	if errors.As(err, &stale) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return push(merged, Merged, tip)
}

// wouldRefuse reports whether the commits from local to tip bring a path the
// vault cannot take (entryRefusal).
func (r *Remotes) wouldRefuse(ctx context.Context, v Vault, local, tip repo.CommitID) (bool, error) {
	fcs, err := v.Diff(ctx, string(local), string(tip))
	if err != nil {
		return false, err
	}
	for _, fc := range fcs {
		reason, err := entryRefusal(ctx, v, fc, string(tip))
		if err != nil || reason != "" {
			return reason != "", err
		}
	}
	return false, nil
}

// merge merges tip into local and returns the merge commit.
func (r *Remotes) merge(ctx context.Context, v Vault, name string, base, local, tip repo.CommitID, opts SyncOptions, res *SyncResult) (repo.CommitID, error) {
	plan, err := PlanMerge(ctx, v, base, local, tip, opts.Machine, opts.Now())
	if err != nil {
		return "", err
	}
	trailers := [][2]string{{repo.TrailerRemote, name}, {repo.TrailerOurs, string(local)}, {repo.TrailerTheirs, string(tip)}}
	for _, c := range plan.Conflicts {
		trailers = append(trailers, [2]string{repo.TrailerConflict, c.Detail})
	}
	for _, rp := range plan.Refused {
		trailers = append(trailers, [2]string{TrailerRefused, rp.Trailer()})
	}
	m := repo.MergeTx{Base: local, Theirs: tip, Author: opts.Author, Trailers: trailers, Changes: plan.Changes,
		Message: repo.Subject(fmt.Sprintf("merge %s/%s", name, r.opts.Branch))}
	out, err := v.Merge(ctx, m)
	if err != nil {
		return "", err
	}
	res.Merges = append(res.Merges, out.Commit)
	res.Conflicts = append(res.Conflicts, plan.Conflicts...)
	res.Kept = append(res.Kept, plan.Kept...)
	res.Refused = append(res.Refused, plan.Refused...)
	for _, rp := range plan.Refused {
		r.opts.Logger.WarnContext(ctx, "sync left out a path of the remote's", "remote", name, "path", fmt.Sprintf("%q", rp.Path),
			"reason", rp.Reason, "merge", out.Commit.Short(), "theirs", tip.Short())
	}
	return out.Commit, nil
}
