package repo

import (
	"bytes"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// IgnoreCovers reports whether the .gitignore patterns in patterns ignore the
// file at path (slash-separated, relative to the folder of the .gitignore), with
// git's rules: later patterns win, "!" negates, a trailing "/" matches folders
// (and so everything under one).
func IgnoreCovers(patterns []byte, path string) bool {
	var ps []gitignore.Pattern
	for line := range bytes.SplitSeq(patterns, []byte{'\n'}) {
		l := strings.TrimRight(string(line), "\r")
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(l, nil))
	}
	return gitignore.NewMatcher(ps).Match(strings.Split(path, "/"), false)
}
