package repo

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
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

// gitBusy says why the working tree and git's index are not the vault's branch's
// to touch now, or returns nil when they are. HEAD must still name the branch the
// vault opened on (a `git switch` beside a running server makes the working tree
// another branch's), and no git operation may be stopped half-way. With lockToo, a
// running git command (.git/index.lock) counts as well. The error matches
// ErrConflict: nothing is written, and the same call succeeds once git is done.
func (v *Vault) gitBusy(lockToo bool) error {
	short := strings.TrimPrefix(v.branch, "refs/heads/")
	b, err := readSmall(filepath.Join(v.gitDir, "HEAD"))
	if err != nil {
		return fmt.Errorf("read HEAD: %w", err)
	}
	b = bytes.TrimSpace(b)
	if ref, ok := bytes.CutPrefix(b, []byte("ref: ")); !ok {
		return &ConflictError{Reason: fmt.Sprintf("the working tree's HEAD is detached (at %.12s), and this vault writes to branch %s: switch back (git switch %s), or finish what detached it", b, short, short)}
	} else if string(ref) != v.branch {
		return &ConflictError{Reason: fmt.Sprintf("the working tree is checked out at %s, and this vault writes to branch %s: switch back (git switch %s), or restart norn on the new branch", bytes.TrimPrefix(ref, []byte("refs/heads/")), short, short)}
	}
	for i, p := range inProgress {
		if exists(v.busyMarks[i]) {
			return &ConflictError{Reason: fmt.Sprintf("%s is in progress in the working tree (.git/%s): finish it (%s), then retry", p.what, p.name, p.finish)}
		}
	}
	if lockToo && exists(v.busyMarks[len(inProgress)]) {
		return &ConflictError{Reason: "a git command is running in the working tree (.git/index.lock exists; if no git command is running, a crashed one left it: remove it)"}
	}
	return nil
}

// busyMarkPaths returns the paths gitBusy looks for: inProgress's, then index.lock.
func busyMarkPaths(gitDir string) []string {
	out := make([]string, 0, len(inProgress)+1)
	for _, p := range inProgress {
		out = append(out, filepath.Join(gitDir, p.name))
	}
	return append(out, filepath.Join(gitDir, "index.lock"))
}

// Busy reports, as an error matching ErrConflict, why writes and the committing of
// working-tree edits are refused right now (see gitBusy), or nil.
func (v *Vault) Busy() error { return v.gitBusy(false) }
