package hooks_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/note"
)

// kebabRE is the oracle for lowercase kebab-case tags, nested with '/'.
var kebabRE = regexp.MustCompile(`^[\p{Ll}\p{Lo}\p{Nd}]+(-[\p{Ll}\p{Lo}\p{Nd}]+)*(/[\p{Ll}\p{Lo}\p{Nd}]+(-[\p{Ll}\p{Lo}\p{Nd}]+)*)*$`)

// quotedTag extracts the offending tag from a tags-format message ("…, not `X`" or
// "`X` is not").
func quotedTag(msg string) (string, bool) {
	if i := strings.LastIndex(msg, ", not `"); i >= 0 {
		return strings.TrimSuffix(msg[i+len(", not `"):], "`"), true
	}
	if i := strings.Index(msg, ": `"); i >= 0 {
		rest := msg[i+3:]
		if j := strings.Index(rest, "` is not"); j >= 0 {
			return rest[:j], true
		}
	}
	return "", false
}

// TestGates_Lint_Corpora lints two real Obsidian vaults (written by nobody on this
// team) with the default profile and checks each result against an independent
// oracle: every path is safe, final-newline fires exactly on the files that do not
// end in "\n", a codec rule fires exactly when note.Parse refuses the note (under
// the same rule and line), and tags-format fires only on tags that really are not
// lowercase kebab-case.
func TestGates_Lint_Corpora(t *testing.T) {
	g := hooks.New(config.Default())
	for _, vault := range []string{"vault-obsidian-help-en", "vault-obsidian-hub"} {
		t.Run(vault, func(t *testing.T) {
			root := filepath.Join("..", "..", "shared", "corpora", vault, "notes")
			if _, err := os.Stat(root); err != nil {
				t.Skipf("corpus %s not found at %s (see ../shared/corpora/README.md, relative to the repository)", vault, root)
			}
			notes, counts := 0, map[string]int{}
			err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() || filepath.Ext(path) != ".md" {
					return err
				}
				rel, err := filepath.Rel(root, path)
				if err != nil {
					return err
				}
				p := note.Path(filepath.ToSlash(rel))
				raw, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				notes++
				if err := hooks.ValidPath(string(p)); err != nil {
					t.Errorf("ValidPath: %v", err)
				}
				vs := g.Lint(p, raw)
				var finalNL, codec *hooks.Violation
				for i, v := range vs {
					counts[v.Rule]++
					if v.Path != p || v.Message == "" {
						t.Errorf("%s: violation %+v has the wrong path or no message", p, v)
					}
					switch v.Rule {
					case hooks.RuleFinalNewline:
						finalNL = &vs[i]
					case hooks.RuleTagsFormat:
						if v.Line < 2 {
							t.Errorf("%s: tags-format without a frontmatter line: %+v", p, v)
						}
						if tag, ok := quotedTag(v.Message); !ok || kebabRE.MatchString(tag) {
							t.Errorf("%s: tags-format on a kebab-case tag (or none named): %s", p, v.Message)
						}
					case hooks.RuleTitleMissing, hooks.RuleEdgeTypeUnknown, hooks.RuleEdgeWhyShort,
						hooks.RuleEdgeWhyRestates, hooks.RuleEdgeSelf:
					default:
						codec = &vs[i]
					}
				}
				if want := !bytes.HasSuffix(raw, []byte("\n")); (finalNL != nil) != want {
					t.Errorf("%s: final-newline reported %v, want %v", p, finalNL != nil, want)
				}
				_, perr := note.Parse(p, raw)
				var pe *note.ParseError
				switch {
				case perr == nil && codec != nil:
					t.Errorf("%s: %s reported but note.Parse accepts the note", p, codec)
				case perr != nil && !errors.As(perr, &pe):
					t.Errorf("%s: note.Parse error %v is not a ParseError", p, perr)
				case perr != nil && (codec == nil || codec.Rule != string(pe.Rule) || codec.Line != pe.Line):
					t.Errorf("%s: note.Parse says %v, Lint says %v", p, perr, codec)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if notes < 100 {
				t.Fatalf("only %d notes under %s", notes, root)
			}
			t.Logf("%d notes; violations by rule: %v", notes, counts)
		})
	}
}
