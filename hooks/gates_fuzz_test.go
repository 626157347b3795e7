package hooks_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/note"
)

// FuzzCheck feeds random paths and contents through every kind of change and every
// profile: Check must never panic, and a rejection always holds at least one
// violation with a non-empty rule, a message and a path from the proposal.
func FuzzCheck(f *testing.F) {
	for _, s := range []struct{ path, content string }{
		{"tech/bloom.md", strictGood},
		{"a.md", good},
		{"../x.md", "x"},
		{"/etc/passwd", "root:x:0:0"},
		{"a/.GIT/x.md", ""},
		{"C:\\x.md", "\xff"},
		{"personal-notes/d.md", "---\nprivate: true\n---\n"},
		{".norn/config.yaml", "gates: {profile: strict}\n"},
		{"a.md", "---\na: &a [1]\nb: *a\n---\n"},
		{"a.md", "---\nedges:\n  - {to: \"[[a]]\", type: x, why: \"\"}\n---\n"},
		{"a.md", "<!-- norn:related:start -->\nx\n<!-- norn:related:end -->\n"},
		{"a\x00.md", "---\n---\n\n\n"},
	} {
		f.Add(s.path, []byte(s.content))
	}
	gates := []*hooks.Gates{hooks.New(config.Default())}
	for _, p := range []config.Profile{config.ProfileStrict, config.ProfileOff} {
		c := config.Default()
		c.Gates.Profile = p
		c.Gates.MaxNoteBytes = 4096
		gates = append(gates, hooks.New(c))
	}
	writers := []hooks.Writer{
		{Name: "a", Roles: []string{hooks.RoleAgent}},
		{Name: "o", Roles: []string{hooks.RoleOwner, hooks.RoleMaintenance}},
	}
	f.Fuzz(func(t *testing.T, path string, content []byte) {
		p := note.Path(path)
		changes := [][]hooks.Change{
			{{Kind: hooks.KindPut, Path: p, New: content}},
			{{Kind: hooks.KindPut, Path: p, Old: content, New: content[:len(content)/2]}},
			{{Kind: hooks.KindArchive, Path: p, Old: content}},
			{{Kind: hooks.KindRestore, Path: p, New: content}},
		}
		if p != "" { // a move needs a From: an empty one is the caller's bug (ErrInvalidProposal)
			changes = append(changes, []hooks.Change{{Kind: hooks.KindMove, From: p, Path: "moved/" + p, Old: content, New: content}})
		}
		isLink := func(s string) bool { return len(s)%7 == 3 }
		// A write that leaves the bytes as they are introduces no content
		// violation, whatever the note already breaks (baseline.go).
		for _, g := range gates {
			err := g.Check(context.Background(), hooks.Proposal{Writer: writers[1], IsSymlink: isLink,
				Changes: []hooks.Change{{Kind: hooks.KindPut, Path: p, Old: content, New: content}}})
			var rej *hooks.Rejection
			if errors.As(err, &rej) {
				for _, v := range rej.Violations {
					if !strings.HasPrefix(v.Rule, "path-") && v.Rule != hooks.RuleNoteTooLarge {
						t.Fatalf("an unchanged note is refused for %+v", v)
					}
				}
			}
		}
		for _, g := range gates {
			_ = g.Lint(p, content)
			for _, w := range writers {
				for _, cs := range changes {
					err := g.Check(context.Background(), hooks.Proposal{Writer: w, Changes: cs, IsSymlink: isLink})
					if err == nil {
						continue
					}
					var rej *hooks.Rejection
					if !errors.As(err, &rej) {
						t.Fatalf("Check = %v, want nil or a Rejection", err)
					}
					if len(rej.Violations) == 0 {
						t.Fatal("a Rejection with no violations")
					}
					for _, v := range rej.Violations {
						if v.Rule == "" || v.Message == "" {
							t.Fatalf("violation without a rule or message: %+v", v)
						}
						if v.Path != cs[0].Path && v.Path != cs[0].From {
							t.Fatalf("violation on %q, not a path of the change", v.Path)
						}
					}
				}
			}
		}
	})
}
