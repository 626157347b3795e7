package repo

import (
	"context"
	"fmt"
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
