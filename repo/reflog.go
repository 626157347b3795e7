package repo

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// logRefUpdate appends the branch's move from old to new to git's reflogs (the
// branch's, and HEAD's, which names the branch: the batch checked that under
// git's index lock, which it still holds), as git does for its own
// commits, so that `git reflog` and HEAD@{n} know Norn's commits too: after a
// `git reset --hard` a person finds them there, not only with git fsck. It follows
// git's rule: logs are kept when core.logAllRefUpdates is true, or unset in a
// repository with a working tree, or when the log file already exists. A failure
// is logged; the commit stands. commits is how many commits of Norn's the move
// made; 0 (a fast-forward to commits made elsewhere) logs subject as it is.
func (v *Vault) logRefUpdate(old, new hash, commits int, subject string, when time.Time) {
	msg := "commit (norn): " + subject
	switch {
	case commits == 0:
		msg = subject // not a commit of Norn's (a fast-forward)
	case commits > 1:
		msg = fmt.Sprintf("commit (norn): %d commits, the last: %s", commits, subject)
	}
	line := fmt.Sprintf("%s %s %s\t%s\n", old, new, sig(v.opts.Committer, when), strings.ReplaceAll(msg, "\n", " "))
	for _, ref := range []string{v.branch, "HEAD"} {
		p := filepath.Join(v.gitDir, "logs", filepath.FromSlash(ref))
		if !v.logRefs && !exists(p) {
			continue
		}
		if err := appendLine(p, line); err != nil {
			v.log.Warn("write reflog", "ref", ref, "err", err)
		}
	}
}

func appendLine(p, line string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// logAllRefUpdates is git's core.logAllRefUpdates: its value when set, else true
// unless the repository is bare.
func logAllRefUpdates(gitDir string) bool {
	if on, set := gitConfigBool(gitDir, "core", "logAllRefUpdates"); set {
		return on
	}
	bare, _ := gitConfigBool(gitDir, "core", "bare")
	return !bare
}
