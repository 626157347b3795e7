package repo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"
)

// inProgress are the files and folders git leaves in .git while an operation is
// stopped half-way, and what each means. While one is there the working tree and
// git's index belong to that operation (conflict markers, stages 1–3 of a conflict,
// a detached rebase), not to the branch.
var inProgress = []struct{ name, what, finish string }{
	{"rebase-merge", "a rebase", "git rebase --continue or --abort"},
	{"rebase-apply", "a rebase or git am", "git rebase --continue or --abort, or git am --continue or --abort"},
	{"MERGE_HEAD", "a merge", "commit the merge, or git merge --abort"},
	{"CHERRY_PICK_HEAD", "a cherry-pick", "git cherry-pick --continue or --abort"},
	{"REVERT_HEAD", "a revert", "git revert --continue or --abort"},
}

// BusyError says that git has the working tree (see gitBusy). It matches
// ErrConflict: nothing was written, and the same call succeeds once a person
// finishes what git is doing — retrying sooner fails the same way.
type BusyError struct {
	Reason string
	// Locked: only a git command holding .git/index.lock, or finishing a
	// checkout (see indexForOtherTree): a moment's.
	Locked bool
}

func (e *BusyError) Error() string { return "git has the working tree: " + e.Reason }

// Is makes errors.Is(err, ErrConflict) true.
func (e *BusyError) Is(target error) bool { return target == ErrConflict }

// gitBusy says why the working tree and git's index are not the vault's branch's
// to touch now (a *BusyError), or returns nil when they are: no git operation may
// be stopped half-way, no git command may hold .git/index.lock, sparse checkout
// must be off (files outside its cone are not deleted notes), HEAD must still
// name the branch the vault opened on (a `git switch` beside a running server
// makes the working tree another branch's), and git's index must not have just been
// written for another tree (a switch between its index and HEAD updates; see
// indexForOtherTree).
func (v *Vault) gitBusy() error { return v.gitState(true) }

// gitState is gitBusy; without lock, index.lock is not looked at (the caller
// holds it).
func (v *Vault) gitState(lock bool) error {
	short := strings.TrimPrefix(v.branch, "refs/heads/")
	if err := stoppedOp(v.busyMarks, "then retry"); err != nil {
		return err
	}
	if lock && exists(v.busyMarks[len(inProgress)]) {
		return &BusyError{Locked: true, Reason: "a git command is running (.git/index.lock exists; if none is, a crashed one left it: remove the file)"}
	}
	if exists(v.busyMarks[len(inProgress)+1]) && sparseCheckout(v.gitDir) {
		return &BusyError{Reason: "sparse checkout is on, and Norn needs the whole working tree (it would take the files outside the cone for deleted notes): git sparse-checkout disable"}
	}
	ref, detached, err := readHead(v.gitDir)
	switch {
	case err != nil:
		return err
	case ref == "":
		return &BusyError{Reason: fmt.Sprintf("HEAD is detached (at %.12s), and this vault writes to branch %s: git switch %s when you are done", detached, short, short)}
	case ref != v.branch:
		return &BusyError{Reason: fmt.Sprintf("the working tree is checked out at %s, and this vault writes to branch %s: git switch %s, or restart norn on the new branch", strings.TrimPrefix(ref, "refs/heads/"), short, short)}
	}
	// HEAD names the branch, but git may be a step short of moving it: a switch
	// renames its new index into place before it writes HEAD.
	return v.indexForOtherTree()
}

// stoppedOp returns a *BusyError for the git operation stopped half-way whose
// file or folder of marks (busyMarkPaths) exists, or nil; then says what to do
// once it is finished.
func stoppedOp(marks []string, then string) error {
	for i, p := range inProgress {
		if exists(marks[i]) {
			return &BusyError{Reason: fmt.Sprintf("%s is in progress (.git/%s): finish it (%s), %s", p.what, p.name, p.finish, then)}
		}
	}
	return nil
}

// lockWait bounds how long a write waits for a git command to release
// .git/index.lock (git status takes it briefly to refresh the index, and editors
// run git status all the time).
const lockWait = 2 * time.Second

// gitBusyWait is gitBusy for a write: while the only reason is index.lock, it waits
// for the lock to go, up to lockWait.
func (v *Vault) gitBusyWait(ctx context.Context) error {
	deadline := time.Now().Add(lockWait)
	for {
		err := v.gitBusy()
		if err == nil || !exists(v.busyMarks[len(inProgress)]) || time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// sparseCheckout reports whether core.sparseCheckout is true in the repository's
// config or its worktree config (git sparse-checkout set/disable switch it there).
func sparseCheckout(gitDir string) bool {
	on, _ := gitConfigBool(gitDir, "core", "sparseCheckout")
	return on
}

// busyMarkPaths returns the paths gitBusy looks for: inProgress's, index.lock, and
// the sparse-checkout file.
func busyMarkPaths(gitDir string) []string {
	out := make([]string, 0, len(inProgress)+2)
	for _, p := range inProgress {
		out = append(out, filepath.Join(gitDir, p.name))
	}
	return append(out, filepath.Join(gitDir, "index.lock"), filepath.Join(gitDir, "info", "sparse-checkout"))
}

// Busy reports, as a *BusyError, why writes and the committing of working-tree
// edits are refused right now (see gitBusy), or nil.
func (v *Vault) Busy() error { return v.gitBusy() }

// refuse answers every request of a batch git's state refuses.
func (v *Vault) refuse(group []*request, err error) {
	v.noteAway(err)
	for _, r := range group {
		r.reply <- reply{err: err}
	}
}

// noteAway records, for a refusal other than a moment's (see BusyError.Locked),
// that the working tree and git's index are another branch's or a stopped git
// operation's: a commit here would overwrite its files (and the branch would get
// them back as edits), and git may leave its index behind the branch (see
// exclusive).
func (v *Vault) noteAway(err error) {
	var busy *BusyError
	if errors.As(err, &busy) && !busy.Locked {
		v.away.Store(true)
		v.mendLater = true
	}
}

// errIndexMoved: git rewrote its index since Norn last read it, or is at work; the
// batch is staged again on what git left (restageMax times, then refused with it).
var errIndexMoved = &BusyError{Locked: true, Reason: "git kept working in the working tree while the write was prepared (a person's git commands): retry"}

// lockForPublish takes git's index lock and checks, holding it, that the working
// tree is the branch's and git's index the file Norn last read or wrote. It
// returns holding the lock only when it returns nil. Where git is at work (its
// index rewritten, its lock held, a checkout finishing) it does not wait, holding
// the branch's lock (git's own ref updates would fail on it): it returns
// errIndexMoved, and the batch stages again once git has been quiet.
func (v *Vault) lockForPublish() error {
	if v.idx.changedOnDisk() { // looked at first, so as not to take the lock at all
		v.sawGit()
		return errIndexMoved
	}
	err := v.idx.lockIndex(0)
	switch {
	case errors.Is(err, fs.ErrExist):
		v.sawGit()
		return errIndexMoved
	case err != nil:
		return fmt.Errorf("lock git index: %w", err)
	}
	err = v.gitState(false)
	if err == nil && v.idx.changedOnDisk() {
		err = errIndexMoved
	}
	if err == nil {
		return nil
	}
	v.idx.unlockIndex()
	var busy *BusyError
	if errors.As(err, &busy) && busy.Locked {
		v.sawGit()
		return errIndexMoved
	}
	return err
}

// gitQuiet is how long the committer leaves git's index lock alone after it saw
// git at work (git's index rewritten, the branch moved by another process, git
// holding index.lock). git stash, stash pop, switch and rebase take the lock
// several times, and read HEAD before: a Norn commit in between fails the command
// half-way, on the lock or on HEAD having moved (a stash then saved but not reset).
// A person's commands come in runs; writes wait out the run instead.
const gitQuiet = 200 * time.Millisecond

// sawGit records that git is at work now (see gitQuiet).
func (v *Vault) sawGit() { v.gitSeen = time.Now() }

// gitQuietNow reports whether gitQuiet has passed since git was last seen at work:
// work that can wait (idle index refreshes) waits.
func (v *Vault) gitQuietNow() bool { return time.Since(v.gitSeen) >= gitQuiet }

// waitGitQuiet waits until gitQuiet has passed since git was last seen at work.
func (v *Vault) waitGitQuiet() {
	if d := gitQuiet - time.Since(v.gitSeen); d > 0 {
		time.Sleep(d)
	}
}

// gitReady returns nil once the working tree and git's index are the branch's
// (see gitState), waiting up to lockWait while git is busy for a moment (its
// index.lock, a checkout finishing) and then for gitQuiet; else why not.
func (v *Vault) gitReady() error {
	deadline := time.Now().Add(lockWait)
	for {
		v.waitGitQuiet()
		err := v.gitState(true)
		var busy *BusyError
		if err == nil || !errors.As(err, &busy) || !busy.Locked || time.Now().After(deadline) {
			return err
		}
		v.sawGit()
	}
}
