package hooks_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/note"
)

// FuzzPathPortable feeds random paths to the rules for new paths. Neither Check nor
// LintPaths may panic; a path with a character Windows forbids in names is refused
// as path-portable; and a valid path whose letters are swapped in case collides
// with the original, both at HEAD (Check with Names) and in doctor (LintPaths).
func FuzzPathPortable(f *testing.F) {
	for _, p := range append(append([]string{"Case/Foo.md", "a/b/c.md", "caf\u00e9.md", "\u212a.md", "ß.md", "ǅ/x.md", "İ.md"}, unportable...), portable...) {
		f.Add(p)
	}
	g := hooks.New(config.Config{Gates: config.Gates{Profile: config.ProfileOff}})
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, p string) {
		if len(p) > 300 {
			return
		}
		put := hooks.Change{Kind: hooks.KindPut, Path: note.Path(p), New: []byte("x\n")}
		err := g.Check(ctx, hooks.Proposal{Writer: owner, Changes: []hooks.Change{put}, Names: tree(p, "a/b.md")})
		if err != nil && !errors.Is(err, hooks.ErrRejected) {
			t.Fatalf("Check(%q) = %v", p, err)
		}
		valid := hooks.ValidPath(p) == nil
		if valid && strings.ContainsAny(p, `<>:"|?*`) && !hasRule(err, hooks.RulePathPortable) && !hasRule(err, hooks.RulePathAbsolute) {
			t.Fatalf("%q: %v, want path-portable", p, err)
		}
		swapped := strings.Map(func(r rune) rune {
			if unicode.IsUpper(r) {
				return unicode.ToLower(r)
			}
			return unicode.ToUpper(r)
		}, p)
		if swapped == p || !valid || hooks.ValidPath(swapped) != nil || !isASCIIString(p) {
			return
		}
		err = g.Check(ctx, hooks.Proposal{Writer: owner, Changes: []hooks.Change{{Kind: hooks.KindPut, Path: note.Path(swapped), New: []byte("x\n")}}, Names: tree(p)})
		if !hasRule(err, hooks.RulePathCaseCollision) {
			t.Fatalf("%q beside %q: %v, want path-case-collision", swapped, p, err)
		}
		found := false
		for _, v := range hooks.LintPaths([]note.Path{note.Path(p), note.Path(swapped)}) {
			found = found || v.Rule == hooks.RulePathCaseCollision
		}
		if !found {
			t.Fatalf("LintPaths(%q, %q) found no collision", p, swapped)
		}
	})
}

func hasRule(err error, rule string) bool {
	var rej *hooks.Rejection
	if !errors.As(err, &rej) {
		return false
	}
	for _, v := range rej.Violations {
		if v.Rule == rule {
			return true
		}
	}
	return false
}

func isASCIIString(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
