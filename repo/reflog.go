package repo

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// logRefUpdate appends the branch's move from old to new to git's reflogs (the
// branch's, and HEAD's while HEAD names the branch), as git does for its own
// commits, so that `git reflog` and HEAD@{n} know Norn's commits too: after a
// `git reset --hard` a person finds them there, not only with git fsck. It follows
// git's rule: logs are kept when core.logAllRefUpdates is true, or unset in a
// repository with a working tree, or when the log file already exists. A failure
// is logged; the commit stands.
func (v *Vault) logRefUpdate(old, new hash, commits int, subject string, when time.Time) {
	msg := "commit (norn): " + subject
	if commits > 1 {
		msg = fmt.Sprintf("commit (norn): %d commits, the last: %s", commits, subject)
	}
	line := fmt.Sprintf("%s %s %s\t%s\n", old, new, sig(v.opts.Committer, when), strings.ReplaceAll(msg, "\n", " "))
	for _, ref := range []string{v.branch, "HEAD"} {
		if ref == "HEAD" {
			if b, err := readSmall(filepath.Join(v.gitDir, "HEAD")); err != nil || strings.TrimSpace(string(b)) != "ref: "+v.branch {
				continue
			}
		}
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

// gitConfigBool returns the value of a boolean in the repository's config (and
// config.worktree, which wins), and whether it is set. Only the plain
// `[section]` / `key = value` forms are read; includes are not followed.
func gitConfigBool(gitDir, section, key string) (val, set bool) {
	for _, name := range []string{"config", "config.worktree"} {
		b, err := readSmall(filepath.Join(gitDir, name))
		if err != nil {
			continue
		}
		cur := ""
		for _, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSpace(line)
			if strings.HasPrefix(line, "[") {
				cur = strings.ToLower(strings.Trim(line, "[] \t"))
				continue
			}
			if i := strings.IndexAny(line, "#;"); i >= 0 {
				line = strings.TrimSpace(line[:i]) // a comment
			}
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				k, v = line, "true" // a bare key is true
			}
			v = strings.Trim(strings.TrimSpace(v), `"`)
			if cur == section && strings.EqualFold(strings.TrimSpace(k), key) {
				switch strings.ToLower(strings.TrimSpace(v)) {
				case "true", "yes", "on", "1", "always":
					val, set = true, true
				default:
					val, set = false, true
				}
			}
		}
	}
	return val, set
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
