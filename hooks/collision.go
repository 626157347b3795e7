package hooks

import (
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"

	"github.com/norn-vault/norn/note"
)

// NamesFunc yields the entries of a folder ("" is the root) of a tree, each with
// whether it is a folder; nothing when folder is not a folder of the tree.
type NamesFunc func(folder string) iter.Seq2[string, bool]

// TwinsFunc yields the entries of a folder of a tree whose names fold to key
// (note.Fold), each with whether it is a folder.
type TwinsFunc func(folder, key string) iter.Seq2[string, bool]

// caseCollisions applies path-case-collision to the paths p creates (created): each
// must not equal, ignoring case and Unicode normalisation (note.Fold), a different
// path at HEAD (p.Twins, or p.Names) that the change leaves in place, nor a different path
// another change of p creates. Every component counts: "case/Foo.md" collides with
// "Case/foo.md" through the folders "case" and "Case". Only the names a path adds to
// the tree are compared, so a note inside folders that already collide at HEAD is
// not refused for them, and the tree is asked only about the folders on the path
// down to where it first leaves the tree at HEAD (never walked).
func caseCollisions(p Proposal, created []note.Path) []Violation {
	if len(created) == 0 {
		return nil
	}
	var removed map[string]bool // what p takes away: archived paths, moves' old paths
	for _, c := range p.Changes {
		switch c.Kind {
		case KindArchive:
			removed = setAdd(removed, string(c.Path))
		case KindMove:
			removed = setAdd(removed, string(c.From))
		}
	}
	var vs []Violation
	added := map[string]string{} // fold → the path or folder a created path adds
	for _, np := range created {
		parts := strings.Split(string(np), "/")
		first := 0 // the first component np adds to the tree at HEAD
		if p.Twins != nil || p.Names != nil {
			var twin string
			first, twin = twinAtHead(p, parts, removed)
			if twin != "" {
				vs = append(vs, collision(np, parts, twin, "at HEAD"))
				continue
			}
		}
		for i := first; i < len(parts); i++ {
			prefix := strings.Join(parts[:i+1], "/")
			k := note.Fold(prefix)
			if other, ok := added[k]; ok && other != prefix {
				vs = append(vs, collision(np, parts, other, "in the same change"))
				break
			}
			added[k] = prefix
		}
	}
	return vs
}

// twinAtHead walks parts down the tree at HEAD. It returns the index of the first
// component that is not in the tree, and the path of an entry beside it that folds
// alike and that the change keeps (not in removed), or "".
func twinAtHead(p Proposal, parts []string, removed map[string]bool) (int, string) {
	twins := p.Twins
	if twins == nil {
		twins = scanTwins(p.Names)
	}
	dir := ""
	for i, name := range parts {
		exact := false
		var twin string
		for n, isDir := range twins(dir, note.Fold(name)) {
			if n == name {
				exact = true
				break
			}
			if full := join(dir, n); twin == "" && !gone(p.Names, full, isDir, removed) {
				twin = full
			}
		}
		if !exact {
			return i, twin
		}
		dir = join(dir, name)
	}
	return len(parts), ""
}

// scanTwins is a TwinsFunc that folds every name names lists.
func scanTwins(names NamesFunc) TwinsFunc {
	return func(folder, key string) iter.Seq2[string, bool] {
		return func(yield func(string, bool) bool) {
			for n, isDir := range names(folder) {
				if note.Fold(n) == key && !yield(n, isDir) {
					return
				}
			}
		}
	}
}

// gone reports whether the entry at path (a folder when dir) is gone once the
// change's removals are made: a file the change removes, or a folder every file of
// which it removes.
func gone(names NamesFunc, path string, dir bool, removed map[string]bool) bool {
	if !dir {
		return removed[path]
	}
	under := false
	for r := range removed {
		if strings.HasPrefix(r, path+"/") {
			under = true
			break
		}
	}
	if !under || names == nil {
		return false
	}
	for n, isDir := range names(path) {
		if !gone(names, join(path, n), isDir, removed) {
			return false
		}
	}
	return true
}

// collision is the violation of created path np (split into parts) colliding with
// other (a path or folder), found where.
func collision(np note.Path, parts []string, other, where string) Violation {
	depth := strings.Count(other, "/") + 1
	mine := strings.Join(parts[:depth], "/")
	what := "the note"
	if depth < len(parts) {
		what = "the folder"
	}
	fix := "pick a name that differs in more than case or accents"
	if depth < len(parts) {
		fix = fmt.Sprintf("write into %q instead, or pick a folder name that differs in more than case or accents",
			other+"/"+strings.Join(parts[depth:], "/"))
	}
	q := "%q" // names that differ only in normalisation look alike: show their code points
	if !isASCII(mine) || !isASCII(other) {
		q = "%+q"
	}
	return Violation{Rule: RulePathCaseCollision, Path: np, Message: fmt.Sprintf(
		q+" differs from %s "+q+" %s only in letter case or Unicode normalisation: Windows and macOS take them for one name, so a clone there could not check out both; %s",
		mine, what, other, where, fix)}
}

func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

func setAdd(m map[string]bool, k string) map[string]bool {
	if m == nil {
		m = map[string]bool{}
	}
	m[k] = true
	return m
}

// LintPaths judges existing paths (every file of a tree) by the rules for new ones:
// path-portable for each, and path-case-collision once for each set of different
// spellings of one name (a folder's counts once, not once per file in it). `norn
// doctor` reports the result as warnings; nothing refuses an existing path. The
// violations are sorted; nil means none.
func LintPaths(paths []note.Path) []Violation {
	var vs []Violation
	spellings := map[string][]string{} // fold of a path or folder → its spellings, first seen first
	for _, p := range paths {
		vs = append(vs, portableViolations(p)...)
		s := string(p)
		for i := 0; i <= len(s); i++ {
			if i < len(s) && s[i] != '/' {
				continue
			}
			prefix := s[:i]
			k := note.Fold(prefix)
			if sp := spellings[k]; !slices.Contains(sp, prefix) {
				spellings[k] = append(sp, prefix)
			}
		}
	}
	for _, all := range spellings {
		if len(all) < 2 {
			continue
		}
		// Report names that collide inside one folder; spellings that differ only
		// in a folder above are that folder's collision, reported once.
		byFolder := map[string][]string{}
		for _, s := range all {
			dir := note.Path(s).Folder()
			byFolder[dir] = append(byFolder[dir], s)
		}
		for _, sp := range byFolder {
			if len(sp) >= 2 {
				vs = append(vs, lintCollision(sp))
			}
		}
	}
	if len(vs) == 0 {
		return nil
	}
	sortViolations(vs)
	return vs
}

// lintCollision is LintPaths' violation for spellings sp of one name in one folder.
func lintCollision(sp []string) Violation {
	slices.Sort(sp)
	quoted := make([]string, len(sp))
	for i, s := range sp {
		quoted[i] = strconv.QuoteToASCII(s)
	}
	return Violation{Rule: RulePathCaseCollision, Path: note.Path(sp[len(sp)-1]), Message: fmt.Sprintf(
		"%s differ only in letter case or Unicode normalisation: Windows and macOS take them for one name, so a clone there cannot check out all of them; move all but one to distinct names",
		strings.Join(quoted, " and "))}
}
