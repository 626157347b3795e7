package repo

import (
	"path/filepath"
	"strings"
)

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
