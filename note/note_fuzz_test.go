package note

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// knownRules is every Rule a ParseError may carry.
func knownRule(r Rule) bool {
	switch r {
	case RuleInvalidUTF8, RuleUnterminated, RuleTooLarge, RuleYAMLSyntax, RuleNotMapping,
		RuleDuplicateKey, RuleYAMLAlias, RuleInvalidEdges, RuleInvalidTags, RuleInvalidAliases:
		return true
	}
	return false
}

// fuzzParse parses raw and checks the properties every input must have: no panic,
// errors are *ParseError with a known rule and a line inside the note, and a parsed
// note keeps every invariant of checkNote.
func fuzzParse(t *testing.T, raw []byte) *Note {
	n, err := Parse("fuzz/note.md", raw)
	if err != nil {
		var pe *ParseError
		if !errors.As(err, &pe) || !errors.Is(err, ErrInvalid) {
			t.Fatalf("error %T %v is not a *ParseError", err, err)
		}
		if !knownRule(pe.Rule) || pe.Msg == "" {
			t.Fatalf("error %v has rule %q", err, pe.Rule)
		}
		if pe.Line < 0 || pe.Line > lineOf(raw, len(raw))+1 {
			t.Fatalf("error %v: line %d outside the note's %d lines", err, pe.Line, lineOf(raw, len(raw)))
		}
		return nil
	}
	if msg := checkNote(n, raw); msg != "" {
		t.Fatalf("%s\ninput %q", msg, raw)
	}
	return n
}

func FuzzParseFrontmatter(f *testing.F) {
	for _, s := range []string{
		"title: x\ntags: [a, b]",
		"edges:\n  - to: \"[[A|b]]\"\n    type: refines\n    why: because it is so",
		"a: &x [1]\nb: *x",
		"<<: {a: 1}",
		"a: 1\na: 2",
		"x:\n  y: 1\n  y: 2",
		"- a\n- b",
		"a: [\n",
		"tags: a, #b c",
		"aliases:\n- Opener: x",
		"d: 2026-11-30\nn: ~\nf: .inf",
		"  a: 1\n  b: |\n    text",
		"{a: 1}",
		"? [a]\n: b",
		"a: !!binary aGVsbG8=",
		"a: \"\\u00e9\"\n# comment",
	} {
		f.Add(s, "# Title\nbody [[x]] #tag\n")
	}
	f.Fuzz(func(t *testing.T, yaml, body string) {
		raw := []byte("---\n" + yaml + "\n---\n" + body)
		n := fuzzParse(t, raw)
		if n == nil {
			return
		}
		if n.Frontmatter == nil {
			t.Fatalf("no frontmatter parsed from %q", raw)
		}
		// SetField keeps every other field and the body, or refuses. It refuses
		// with a *ParseError when the edited block would not parse: YAML quirks
		// such as a plain scalar continued at column 0 under indented keys
		// (" a:\n0\n") make an appended key part of that scalar.
		out, err := SetField(raw, "zz-fuzz", "v")
		if err != nil {
			var pe *ParseError
			if errors.Is(err, ErrUneditable) || errors.As(err, &pe) {
				return
			}
			t.Fatalf("SetField on a valid note: %v\ninput %q", err, raw)
		}
		m, err := Parse("fuzz/note.md", out)
		if err != nil {
			t.Fatalf("SetField result does not parse: %v\ninput %q\noutput %q", err, raw, out)
		}
		want := map[string]any{"zz-fuzz": "v"}
		for k, v := range n.Frontmatter.Fields {
			if k != "zz-fuzz" {
				want[k] = v
			}
		}
		if fmt.Sprint(m.Frontmatter.Fields) != fmt.Sprint(want) {
			t.Fatalf("SetField changed other fields:\n got %v\nwant %v\ninput %q\noutput %q", m.Frontmatter.Fields, want, raw, out)
		}
		if string(out[m.BodyStart:]) != string(raw[n.BodyStart:]) {
			t.Fatalf("SetField changed the body: %q", out)
		}
	})
}

func FuzzLinks(f *testing.F) {
	for _, s := range []string{
		"[[a]] ![[b|c]] [[d#h|e]] [[#x]] [[f#^g]]",
		"| [[t\\|alias]] |\n| - |",
		"[x](a.md#h) [y](<b c.md>) ![z](d.png) [w](https://e.org/f.md)",
		"```\n[[no]]\n```\n~~~~\n[[no]]\n~~~~\n`[[no]]` ``[[no]]``",
		"    indented [[no]]\n\npara\n    lazy [[yes]]",
		"<!-- [[no]] -->\n<!--\n[[no]]\n-->",
		"# H1\n## H2 ##\n### H3\n# H1b #tag C# #123",
		"> ```\n> [[no]]\n\n[[yes]]",
		"- item\n\t- [[nested]]\n\n  ```\n  [[no]]\n  ```",
		"[a\nb](c.md) [[[x]]] [[a [[b]] \\[[c]]",
		"---\ntitle: t\n---\n# T\n[[x]]",
		"[`code`](x.md) [a [b] c](d.md) [\\[x\\]](y.md)",
		"text `unclosed [[x]] <!-- unclosed [[y]]",
		"%% [[no]] %% [[yes]]\n%%\n[[no]]\n\n# no\n%% after [[yes]]",
		"| %% [[no]] %% | `%%` [[yes]] |\n# H %% [[no]]\n[[no]]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		raw := []byte(body)
		n := fuzzParse(t, raw)
		if n == nil {
			return
		}
		// Parsing is deterministic.
		again, _ := Parse("fuzz/note.md", raw)
		if !reflect.DeepEqual(linksOf(again), linksOf(n)) || !reflect.DeepEqual(again.Tags, n.Tags) {
			t.Fatalf("two parses differ for %q", raw)
		}
		// A section found by a heading's own text is that heading's range or an
		// earlier heading with the same text.
		for _, h := range n.Headings {
			if strings.TrimSpace(h.Text) == "" {
				continue
			}
			start, end, ok := Section(n, h.Text)
			if !ok || start > h.Start || start < 0 || end > len(raw) || start > end {
				t.Fatalf("Section(%q) = %d, %d, %v; heading at %d", h.Text, start, end, ok, h.Start)
			}
		}
	})
}
