package repo

import (
	"bytes"
	"os"
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// IgnoreCovers reports whether the .gitignore patterns in patterns ignore the
// file at path (slash-separated, relative to the folder of the .gitignore), with
// git's rules: later patterns win, "!" negates, a trailing "/" matches folders
// (and so everything under one).
func IgnoreCovers(patterns []byte, path string) bool {
	return gitignore.NewMatcher(parseIgnore(patterns, nil)).Match(strings.Split(path, "/"), false)
}

// parseIgnore parses the lines of an ignore file whose patterns apply under the
// folder domain (nil: everywhere), as git reads them: blank lines and comments
// skipped, a CR before the newline dropped.
func parseIgnore(b []byte, domain []string) []gitignore.Pattern {
	var ps []gitignore.Pattern
	for line := range bytes.SplitSeq(b, []byte{'\n'}) {
		l := strings.TrimRight(string(line), "\r")
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(l, domain))
	}
	return ps
}

// ignoreRules is what a working-tree scan skips: editor state always
// (builtinIgnores); what the person's ignore files, .git/info/exclude and the
// vault's .gitignore files name, unless the path is tracked at the scan's HEAD (an
// edit to a tracked file counts, as it does for git). Each .gitignore is read when
// the scan first needs its folder's rules, so a scan walks the tree once (go-git's
// ReadPatterns walked it a second time for them). Rules are for one scan.
type ignoreRules struct {
	wt      *os.Root
	head    *node
	builtin gitignore.Matcher
	// dirs holds, per folder ("" is the root), the patterns that apply in it:
	// the global ones, then info/exclude, then each .gitignore from the root down.
	dirs map[string][]gitignore.Pattern
	// hidden caches whether a folder is itself ignored or lies under an ignored
	// one: [0] by the builtin rules, [1] by the person's and the vault's.
	hidden map[string][2]bool
}

// builtinMatcher matches builtinIgnores; the patterns never change.
var builtinMatcher = func() gitignore.Matcher {
	var ps []gitignore.Pattern
	for _, p := range builtinIgnores {
		ps = append(ps, gitignore.ParsePattern(p, nil))
	}
	return gitignore.NewMatcher(ps)
}()

// ignoreRules returns the rules of one scan against snap's HEAD.
func (v *Vault) ignoreRules(snap *snapshot) *ignoreRules {
	base := globalIgnores()
	if b, err := os.ReadFile(v.gitDir + "/info/exclude"); err == nil {
		base = append(base, parseIgnore(b, nil)...)
	}
	r := &ignoreRules{wt: v.wt, head: snap.root, builtin: builtinMatcher,
		dirs: map[string][]gitignore.Pattern{}, hidden: map[string][2]bool{}}
	r.dirs[""] = r.withFile(base, "")
	return r
}

// withFile returns ps followed by the patterns of dir's .gitignore, if any.
func (r *ignoreRules) withFile(ps []gitignore.Pattern, dir string) []gitignore.Pattern {
	name := ".gitignore"
	var domain []string
	if dir != "" {
		name = dir + "/.gitignore"
		domain = strings.Split(dir, "/")
	}
	b, err := r.wt.ReadFile(name)
	if err != nil || len(b) == 0 {
		return ps
	}
	own := parseIgnore(b, domain)
	if len(own) == 0 {
		return ps
	}
	return append(append(make([]gitignore.Pattern, 0, len(ps)+len(own)), ps...), own...)
}

// patterns returns the patterns that apply in folder dir ("" is the root).
func (r *ignoreRules) patterns(dir string) []gitignore.Pattern {
	if ps, ok := r.dirs[dir]; ok {
		return ps
	}
	ps := r.withFile(r.patterns(parentDir(dir)), dir)
	r.dirs[dir] = ps
	return ps
}

// folderHidden reports whether folder dir ("" is the root, never hidden) or one
// above it is ignored: [0] by the builtin rules, [1] by the person's and vault's.
func (r *ignoreRules) folderHidden(dir string) [2]bool {
	if dir == "" {
		return [2]bool{}
	}
	if h, ok := r.hidden[dir]; ok {
		return h
	}
	up := parentDir(dir)
	h := r.folderHidden(up)
	parts := strings.Split(dir, "/")
	h[0] = h[0] || r.builtin.Match(parts, true)
	h[1] = h[1] || gitignore.NewMatcher(r.patterns(up)).Match(parts, true)
	r.hidden[dir] = h
	return h
}

// ignored reports whether the scan skips p (a folder when dir): editor state
// always; what the ignore files name unless p is tracked at HEAD. A path under an
// ignored folder is ignored too.
func (r *ignoreRules) ignored(p string, dir bool) bool {
	up := parentDir(p)
	h := r.folderHidden(up)
	parts := strings.Split(p, "/")
	if h[0] || r.builtin.Match(parts, dir) {
		return true
	}
	if r.head.lookup(p) != nil {
		return false
	}
	return h[1] || gitignore.NewMatcher(r.patterns(up)).Match(parts, dir)
}

// parentDir returns the folder holding p ("" for the root's entries).
func parentDir(p string) string {
	d := path.Dir(p)
	if d == "." {
		return ""
	}
	return d
}
