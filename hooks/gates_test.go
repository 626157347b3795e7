package hooks_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/note"
)

// A note that passes the default profile.
const good = `---
title: Bloom filters
tags: [data-structures, hashing]
---
# Bloom filters
Body.
`

// A note that passes the strict profile (DESIGN.md's example).
const strictGood = `---
title: Bloom filters
type: concept
status: active
tags: [data-structures, hashing]
updated: 2026-11-30
edges:
  - to: "[[Count-min sketch]]"
    type: same_mechanism_as
    why: Both hash items into a small array and trade exactness for memory.
---
# Bloom filters
Body with [[wikilinks]], [markdown](links.md) and #tags.
`

var (
	agent       = hooks.Writer{Name: "claude", Roles: []string{hooks.RoleAgent}}
	owner       = hooks.Writer{Name: "ada", Roles: []string{hooks.RoleOwner}}
	maintenance = hooks.Writer{Name: "norn", Roles: []string{hooks.RoleMaintenance}}
	admin       = hooks.Writer{Name: "root", Roles: []string{hooks.RoleAdmin}}
	privAgent   = hooks.Writer{Name: "diary-bot", Roles: []string{hooks.RoleAgent, hooks.RolePrivate}}
	nobody      = hooks.Writer{Name: "anon"}
)

// hit is a violation's rule and line.
type hit struct {
	Rule string
	Line int
}

func (h hit) String() string { return fmt.Sprintf("%s@%d", h.Rule, h.Line) }

// check runs g.Check and returns the violations as hits, checking the Rejection's
// invariants: errors.Is ErrRejected, non-empty, sorted by path, line and rule, every
// violation with a rule, a path and a message.
func check(t *testing.T, g *hooks.Gates, p hooks.Proposal) []hooks.Violation {
	t.Helper()
	err := g.Check(context.Background(), p)
	if err == nil {
		return nil
	}
	var rej *hooks.Rejection
	if !errors.As(err, &rej) {
		t.Fatalf("Check = %v, want nil or a *hooks.Rejection", err)
	}
	if !errors.Is(err, hooks.ErrRejected) || len(rej.Violations) == 0 {
		t.Fatalf("Check = %v: not ErrRejected or empty", err)
	}
	if !slices.IsSortedFunc(rej.Violations, cmpViolation) {
		t.Errorf("violations are not sorted by path, line, rule: %v", rej.Violations)
	}
	for _, v := range rej.Violations {
		if v.Rule == "" || v.Message == "" {
			t.Errorf("violation without a rule or message: %+v", v)
		}
	}
	return rej.Violations
}

func cmpViolation(a, b hooks.Violation) int {
	switch {
	case a.Path != b.Path:
		return strings.Compare(string(a.Path), string(b.Path))
	case a.Line != b.Line:
		return a.Line - b.Line
	}
	return strings.Compare(a.Rule, b.Rule)
}

func hits(vs []hooks.Violation) []hit {
	var out []hit
	for _, v := range vs {
		out = append(out, hit{v.Rule, v.Line})
	}
	return out
}

func put(path, content string) hooks.Change {
	return hooks.Change{Kind: hooks.KindPut, Path: note.Path(path), New: []byte(content)}
}

func gatesWith(edit func(*config.Config)) *hooks.Gates {
	c := config.Default()
	if edit != nil {
		edit(&c)
	}
	return hooks.New(c)
}

func strictCfg(c *config.Config) { c.Gates.Profile = config.ProfileStrict }

// replace returns s with old replaced by new once, failing if old is absent.
func replace(t *testing.T, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("%q not in the note", old)
	}
	return strings.Replace(s, old, new, 1)
}

// TestGates_Check has one row per rule that fails it and, nearby, one that passes.
func TestGates_Check(t *testing.T) {
	dflt := gatesWith(nil)
	strict := gatesWith(strictCfg)
	off := gatesWith(func(c *config.Config) { c.Gates.Profile = config.ProfileOff })
	small := gatesWith(func(c *config.Config) { c.Gates.MaxNoteBytes = 100 })
	links := func(p string) bool { return p == "linked" || p == "a/file.md" }

	type row struct {
		name   string
		g      *hooks.Gates
		w      hooks.Writer
		change hooks.Change
		links  func(string) bool
		want   []hit
	}
	sg := strictGood
	tests := []row{
		{"good note passes default", dflt, agent, put("tech/bloom.md", good), nil, nil},
		{"strict note passes strict", strict, agent, put("tech/bloom.md", sg), nil, nil},
		{"strict note passes default", dflt, agent, put("tech/bloom.md", sg), nil, nil},

		// Path safety.
		{"path-invalid", dflt, agent, put("a//b.md", good), nil, []hit{{"path-invalid", 0}}},
		{"path-absolute", dflt, agent, put("/a.md", good), nil, []hit{{"path-absolute", 0}}},
		{"path-dotdot", dflt, agent, put("a/../b.md", good), nil, []hit{{"path-dotdot", 0}}},
		{"path-git-dir", dflt, agent, put("a/.git/b.md", good), nil, []hit{{"path-git-dir", 0}}},
		{"path-not-markdown", dflt, agent, put("a/b.txt", good), nil, []hit{{"path-not-markdown", 0}}},
		{"path-norn-dir agent", dflt, agent, put(".norn/config.yaml", "gates: {}\n"), nil, []hit{{"path-norn-dir", 0}}},
		{"path-norn-dir any case", dflt, agent, put(".Norn/config.yaml", "gates: {}\n"), nil, []hit{{"path-norn-dir", 0}}},
		{"path-norn-dir no roles", dflt, nobody, put(".norn/x.yaml", "a: 1\n"), nil, []hit{{"path-norn-dir", 0}}},
		{"path-norn-dir maintenance passes", dflt, maintenance, put(".norn/claims/c1.yaml", "a: 1\n"), nil, nil},
		{"path-norn-dir admin passes", dflt, admin, put(".norn/config.yaml", "gates: {}\n"), nil, nil},
		{"path-norn-dir owner passes", dflt, owner, put(".norn/config.yaml", "gates: {}\n"), nil, nil},
		{"norn yaml is not linted as a note", dflt, admin, put(".norn/config.yaml", "no newline: [at the end"), nil, nil},
		{"norn md is not markdown", dflt, admin, put(".norn/x.md", good), nil, []hit{{"path-not-markdown", 0}}},
		{"path-symlink-escape folder", dflt, agent, put("linked/x.md", good), links, []hit{{"path-symlink-escape", 0}}},
		{"path-symlink-escape file", dflt, agent, put("a/file.md", good), links, []hit{{"path-symlink-escape", 0}}},
		{"path-symlink-escape passes", dflt, agent, put("linkedx/x.md", good), links, nil},

		// Size.
		{"note-too-large", small, agent, put("a.md", strings.Repeat("x", 100)+"\n"), nil, []hit{{"note-too-large", 0}}},
		{"note-too-large at the limit passes", small, agent, put("a.md", strings.Repeat("x", 99)+"\n"), nil, nil},
		{"note-too-large in profile off", gatesWith(func(c *config.Config) {
			c.Gates.Profile, c.Gates.MaxNoteBytes = config.ProfileOff, 10
		}), agent, put("a.md", "0123456789\n"), nil, []hit{{"note-too-large", 0}}},

		// The codec's rules, under the codec's ids and lines.
		{"invalid-utf8", dflt, agent, put("a.md", "ok\nbad \xff\n"), nil, []hit{{"invalid-utf8", 2}}},
		{"frontmatter-unterminated", dflt, agent, put("a.md", "---\ntitle: x\nbody\n"), nil, []hit{{"frontmatter-unterminated", 1}}},
		{"frontmatter-too-large", dflt, agent, put("a.md", "---\nx: "+strings.Repeat("a", 17<<10)+"\n---\n"), nil, []hit{{"frontmatter-too-large", 1}}},
		{"yaml-syntax", dflt, agent, put("a.md", "---\ntitle: a: b\n---\n"), nil, []hit{{"yaml-syntax", 2}}},
		{"frontmatter-not-mapping", dflt, agent, put("a.md", "---\n- a\n---\n"), nil, []hit{{"frontmatter-not-mapping", 2}}},
		{"yaml-duplicate-key", dflt, agent, put("a.md", "---\ntitle: a\ntags: [x]\ntitle: b\n---\n"), nil, []hit{{"yaml-duplicate-key", 4}}},
		{"yaml-alias", dflt, agent, put("a.md", "---\nx: 1\na: &x [1]\nb: *x\n---\n"), nil, []hit{{"yaml-alias", 3}}},
		{"edges-invalid", dflt, agent, put("a.md", "---\nedges:\n  - to: x\n---\n"), nil, []hit{{"edges-invalid", 3}}},
		{"tags-invalid", dflt, agent, put("a.md", "---\ntags: {a: 1}\n---\n"), nil, []hit{{"tags-invalid", 2}}},
		{"aliases-invalid", dflt, agent, put("a.md", "---\naliases: {a: 1}\n---\n"), nil, []hit{{"aliases-invalid", 2}}},
		{"codec error and final newline both reported", dflt, agent, put("a.md", "---\ntitle: x\nbody"), nil,
			[]hit{{"frontmatter-unterminated", 1}, {"final-newline", 3}}},

		// Profile default.
		{"title-missing", dflt, agent, put(".md", "no heading here\n"), nil, []hit{{"title-missing", 0}}},
		{"title-missing nested", dflt, agent, put("a/.md", "text\n"), nil, []hit{{"title-missing", 0}}},
		{"title from H1 passes", dflt, agent, put(".md", "# A title\n"), nil, nil},
		{"title from frontmatter passes", dflt, agent, put(".md", "---\ntitle: T\n---\n"), nil, nil},
		{"title from file name passes", dflt, agent, put("x.md", "text\n"), nil, nil},
		{"tags-format", dflt, agent, put("a.md", "---\ntitle: T\ntags:\n  - ok\n  - Data Structures\n---\n"), nil, []hit{{"tags-format", 5}}},
		{"tags-format flow list", dflt, agent, put("a.md", "---\ntags: [good, Bad_Tag, a--b]\n---\n"), nil, []hit{{"tags-format", 2}, {"tags-format", 2}}},
		{"tags-format string", dflt, agent, put("a.md", "---\ntags: ok, Caps\n---\n"), nil, []hit{{"tags-format", 2}}},
		{"tags-format nested", dflt, agent, put("a.md", "---\ntags: [lang/go, lang/Go, lang//go, /x]\n---\n"), nil, []hit{{"tags-format", 2}, {"tags-format", 2}, {"tags-format", 2}}},
		{"tags-format tag key", dflt, agent, put("a.md", "---\ntag: Caps\n---\n"), nil, []hit{{"tags-format", 2}}},
		{"tags-format passes", dflt, agent, put("a.md", "---\ntags: [a, b-c, d/e-f, x2, \"#hash\", 日本, ünï]\n---\n"), nil, nil},
		{"inline tags are not checked", dflt, agent, put("a.md", "Some #CamelCase text.\n"), nil, nil},
		{"final-newline", dflt, agent, put("a.md", "# T\nlast line"), nil, []hit{{"final-newline", 2}}},
		{"final-newline empty file", dflt, agent, put("a.md", ""), nil, []hit{{"final-newline", 1}}},
		{"final-newline default allows blank lines", dflt, agent, put("a.md", "# T\n\n\n"), nil, nil},
		{"final-newline CRLF passes", dflt, agent, put("a.md", "# T\r\nx\r\n"), nil, nil},

		// Profile strict.
		{"title-required missing", strict, agent, put("a.md", replace(t, sg, "title: Bloom filters\n", "")), nil, []hit{{"title-required", 0}}},
		{"title-required empty", strict, agent, put("a.md", replace(t, sg, "title: Bloom filters", "title: \"  \"")), nil, []hit{{"title-required", 2}}},
		{"title-required list", strict, agent, put("a.md", replace(t, sg, "title: Bloom filters", "title: [a]")), nil, []hit{{"title-required", 2}}},
		{"type-required", strict, agent, put("a.md", replace(t, sg, "type: concept\n", "")), nil, []hit{{"type-required", 0}}},
		{"type-required null", strict, agent, put("a.md", replace(t, sg, "type: concept", "type:")), nil, []hit{{"type-required", 3}}},
		{"status-required", strict, agent, put("a.md", replace(t, sg, "status: active", "status: ''")), nil, []hit{{"status-required", 4}}},
		{"tags-count one", strict, agent, put("a.md", replace(t, sg, "[data-structures, hashing]", "[hashing]")), nil, []hit{{"tags-count", 5}}},
		{"tags-count duplicates", strict, agent, put("a.md", replace(t, sg, "[data-structures, hashing]", "[hashing, hashing]")), nil, []hit{{"tags-count", 5}}},
		{"tags-count six", strict, agent, put("a.md", replace(t, sg, "[data-structures, hashing]", "[a, b, c, d, e, f]")), nil, []hit{{"tags-count", 5}}},
		{"tags-count five passes", strict, agent, put("a.md", replace(t, sg, "[data-structures, hashing]", "[a, b, c, d, e]")), nil, nil},
		{"tags-count none", strict, agent, put("a.md", replace(t, sg, "tags: [data-structures, hashing]\n", "")), nil, []hit{{"tags-count", 0}}},
		{"tags-count bad tags do not count", strict, agent, put("a.md", replace(t, sg, "[data-structures, hashing]", "[hashing, Caps]")), nil, []hit{{"tags-count", 5}, {"tags-format", 5}}},
		{"updated-date impossible", strict, agent, put("a.md", replace(t, sg, "2026-11-30", "2026-02-30")), nil, []hit{{"updated-date", 6}}},
		{"updated-date words", strict, agent, put("a.md", replace(t, sg, "2026-11-30", "last tuesday")), nil, []hit{{"updated-date", 6}}},
		{"updated-date number", strict, agent, put("a.md", replace(t, sg, "2026-11-30", "20261130")), nil, []hit{{"updated-date", 6}}},
		{"updated-date missing", strict, agent, put("a.md", replace(t, sg, "updated: 2026-11-30\n", "")), nil, []hit{{"updated-date", 0}}},
		{"updated-date timestamp passes", strict, agent, put("a.md", replace(t, sg, "2026-11-30", "2026-11-30T10:00:00Z")), nil, nil},
		{"updated-date quoted passes", strict, agent, put("a.md", replace(t, sg, "2026-11-30", "\"2026-11-30\"")), nil, nil},
		{"updated-date leap day passes", strict, agent, put("a.md", replace(t, sg, "2026-11-30", "2028-02-29")), nil, nil},
		{"updated-date non-leap fails", strict, agent, put("a.md", replace(t, sg, "2026-11-30", "2027-02-29")), nil, []hit{{"updated-date", 6}}},
		{"aliases-forbidden", strict, agent, put("a.md", replace(t, sg, "status: active\n", "status: active\naliases: [Bloom]\n")), nil, []hit{{"aliases-forbidden", 5}}},
		{"aliases allowed in default", dflt, agent, put("a.md", replace(t, sg, "status: active\n", "status: active\naliases: [Bloom]\n")), nil, nil},
		{"final-newline-single", strict, agent, put("a.md", sg+"\n\n"), nil, []hit{{"final-newline-single", 14}}},
		{"final-newline-single spaces", strict, agent, put("a.md", sg+"  \n"), nil, []hit{{"final-newline-single", 14}}},
		{"final-newline-single not doubled with final-newline", strict, agent, put("a.md", strings.TrimSuffix(sg, "\n")), nil, []hit{{"final-newline", 13}}},

		// Typed edges.
		{"edge-type-unknown", dflt, agent, put("a.md", replace(t, sg, "type: same_mechanism_as", "type: resembles")), nil, []hit{{"edge-type-unknown", 8}}},
		{"edge-type-unknown dashes", dflt, agent, put("a.md", replace(t, sg, "type: same_mechanism_as", "type: same-mechanism-as")), nil, []hit{{"edge-type-unknown", 8}}},
		{"edge type from config passes", gatesWith(func(c *config.Config) { c.Edges.Types = []string{"resembles"} }), agent,
			put("a.md", replace(t, sg, "type: same_mechanism_as", "type: resembles")), nil, nil},
		{"edge-why-short", dflt, agent, put("a.md", replace(t, sg, "Both hash items into a small array and trade exactness for memory.", "Both hash into arrays.")), nil, nil},
		{"edge-why-short fails", dflt, agent, put("a.md", replace(t, sg, "Both hash items into a small array and trade exactness for memory.", "Both hash things.")), nil, []hit{{"edge-why-short", 8}}},
		{"edge-why-short missing why", dflt, agent, put("a.md", replace(t, sg, "    why: Both hash items into a small array and trade exactness for memory.\n", "")), nil, []hit{{"edge-why-short", 8}}},
		{"edge-why-short off", gatesWith(func(c *config.Config) { c.Edges.MinWhy = 0 }), agent,
			put("a.md", replace(t, sg, "    why: Both hash items into a small array and trade exactness for memory.\n", "")), nil, nil},
		{"edge-why-restates type and target", dflt, agent, put("a.md", replace(t, sg, "Both hash items into a small array and trade exactness for memory.", "Same mechanism as Count-min sketch!")), nil, []hit{{"edge-why-restates", 8}}},
		{"edge-why-restates target", dflt, agent, put("a.md", replace(t, sg, "Both hash items into a small array and trade exactness for memory.", "COUNT MIN SKETCH, count-min sketch.")), nil, []hit{{"edge-why-restates", 8}}},
		{"edge-why-restates two words", gatesWith(func(c *config.Config) { c.Edges.MinWhy = 0 }), agent,
			put("a.md", replace(t, sg, "Both hash items into a small array and trade exactness for memory.", "hash arrays")), nil, []hit{{"edge-why-restates", 8}}},
		{"edge-self by title", dflt, agent, put("tech/bloom.md", replace(t, sg, "[[Count-min sketch]]", "[[bloom filters]]")), nil, []hit{{"edge-self", 8}}},
		{"edge-self by stem", dflt, agent, put("tech/bloom.md", replace(t, sg, "[[Count-min sketch]]", "[[Bloom#Intro]]")), nil, []hit{{"edge-self", 8}}},
		{"edge-self by path", dflt, agent, put("tech/bloom.md", replace(t, sg, "\"[[Count-min sketch]]\"", "tech/bloom.md")), nil, []hit{{"edge-self", 8}}},
		{"edges unchecked in off", off, agent, put("a.md", replace(t, sg, "type: same_mechanism_as", "type: resembles")), nil, nil},

		// Profile off: only path safety and size (and the guards on existing content).
		{"off skips content rules", off, agent, put("a.md", "---\ntitle: [x\n---\nno newline"), nil, nil},
		{"off keeps path rules", off, agent, put("../a.txt", "x"), nil, []hit{{"path-dotdot", 0}, {"path-not-markdown", 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := check(t, tt.g, hooks.Proposal{Writer: tt.w, Op: "write", Changes: []hooks.Change{tt.change}, IsSymlink: tt.links})
			if got := hits(vs); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("violations = %v, want %v\n%v", got, tt.want, vs)
			}
			for _, v := range vs {
				if v.Path != tt.change.Path {
					t.Errorf("violation path %q, want %q", v.Path, tt.change.Path)
				}
			}
		})
	}
}

// TestGates_Check_Messages checks that messages tell the writer how to fix things.
func TestGates_Check_Messages(t *testing.T) {
	tests := []struct {
		name, content, rule, fragment string
	}{
		{"tag fix", "---\ntags: [Data Structures]\n---\n", "tags-format", "write `data-structures`, not `Data Structures`"},
		{"nested tag fix", "---\ntags: [Lang/Go_Lang]\n---\n", "tags-format", "write `lang/go-lang`, not `Lang/Go_Lang`"},
		{"edge type fix", replace(t, strictGood, "type: same_mechanism_as", "type: same-mechanism-as"), "edge-type-unknown", "write `same_mechanism_as`"},
		{"edge types listed", replace(t, strictGood, "type: same_mechanism_as", "type: resembles"), "edge-type-unknown", "supports, contradicts, refines"},
		{"why length", replace(t, strictGood, "Both hash items into a small array and trade exactness for memory.", "short but true"), "edge-why-short", "at least 20"},
		{"duplicate key", "---\na: 1\na: 2\n---\n", "yaml-duplicate-key", "keep one"},
		{"alias", "---\na: &x 1\nb: *x\n---\n", "yaml-alias", "write each value out"},
		{"newline", "x", "final-newline", "add one"},
	}
	g := gatesWith(nil)
	for _, tt := range tests {
		vs := check(t, g, hooks.Proposal{Writer: agent, Changes: []hooks.Change{put("tech/bloom.md", tt.content)}})
		found := false
		for _, v := range vs {
			found = found || v.Rule == tt.rule && strings.Contains(v.Message, tt.fragment)
		}
		if !found {
			t.Errorf("%s: no %s violation saying %q in %v", tt.name, tt.rule, tt.fragment, vs)
		}
	}
}

// TestGates_Check_CodecBombs feeds the YAML attacks the codec refuses and checks they
// come back under the codec's rule and line, without expanding anything.
func TestGates_Check_CodecBombs(t *testing.T) {
	var bomb strings.Builder
	bomb.WriteString("---\ntitle: lol\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	for i, prev := 'b', 'a'; i <= 'i'; i, prev = i+1, i {
		fmt.Fprintf(&bomb, "%c: &%c [*%c,*%c,*%c,*%c,*%c,*%c,*%c,*%c,*%c]\n", i, i, prev, prev, prev, prev, prev, prev, prev, prev, prev)
	}
	bomb.WriteString("---\n# Bomb\n")
	tests := []struct {
		name, content string
		want          []hit
	}{
		{"billion laughs", bomb.String(), []hit{{"yaml-alias", 3}}},
		{"merge key", "---\nbase: {a: 1}\nx:\n  <<: {b: 2}\n---\n", []hit{{"yaml-alias", 4}}},
		{"duplicate top-level key", "---\ntitle: a\ntype: b\nstatus: c\ntitle: d\n---\n", []hit{{"yaml-duplicate-key", 5}}},
		{"duplicate nested key", "---\nmeta:\n  a: 1\n  b: 2\n  a: 3\n---\n", []hit{{"yaml-duplicate-key", 5}}},
		{"duplicate after body lines", "---\n\n\ntitle: a\ntitle: b\n---\n", []hit{{"yaml-duplicate-key", 5}}},
	}
	g := gatesWith(nil)
	for _, tt := range tests {
		vs := check(t, g, hooks.Proposal{Writer: agent, Changes: []hooks.Change{put("a.md", tt.content)}})
		if got := hits(vs); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: violations = %v, want %v", tt.name, vs, tt.want)
		}
	}
}

// TestGates_Check_AllViolations checks that one Check reports every rule broken
// across every change, sorted by path, line and rule.
func TestGates_Check_AllViolations(t *testing.T) {
	g := gatesWith(strictCfg)
	bad := `---
title: Bloom filters
tags: [Hashing]
updated: 2026-02-30
aliases: [Bloom]
edges:
  - to: "[[tech/b]]"
    type: resembles
    why: short
---
# Bloom filters


`
	p := hooks.Proposal{Writer: agent, Op: "write", Changes: []hooks.Change{
		put("tech/b.md", bad),
		put("../escape.txt", "x"),
		{Kind: hooks.KindMove, From: "personal-notes/diary.md", Path: "journal/diary.md",
			Old: []byte("# Diary\n"), New: []byte("# Diary\n")},
		put("a/ok.md", strictGood),
	}}
	vs := check(t, g, p)
	type full struct {
		Path string
		Rule string
		Line int
	}
	var got []full
	for _, v := range vs {
		got = append(got, full{string(v.Path), v.Rule, v.Line})
	}
	want := []full{
		{"../escape.txt", "path-dotdot", 0},
		{"../escape.txt", "path-not-markdown", 0},
		// The move's note breaks the strict rules at its old path already: the
		// move does not introduce them, so they are not its violations.
		{"personal-notes/diary.md", "private-note", 0},
		{"tech/b.md", "status-required", 0},
		{"tech/b.md", "type-required", 0},
		{"tech/b.md", "tags-count", 3},
		{"tech/b.md", "tags-format", 3},
		{"tech/b.md", "updated-date", 4},
		{"tech/b.md", "aliases-forbidden", 5},
		{"tech/b.md", "edge-self", 7},
		{"tech/b.md", "edge-type-unknown", 7},
		{"tech/b.md", "edge-why-restates", 7},
		{"tech/b.md", "edge-why-short", 7},
		{"tech/b.md", "final-newline-single", 12},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("violations:\n%v\nwant:\n%v", got, want)
	}
	// The error text lists them all.
	err := g.Check(context.Background(), p)
	for _, v := range vs {
		if !strings.Contains(err.Error(), v.String()) {
			t.Errorf("Error() lacks %q", v.String())
		}
	}
}

func TestGates_Check_ProtectedBlocks(t *testing.T) {
	const block = "<!-- norn:related:start -->\nRelated: [[Count-min sketch]], [[HyperLogLog]]\n<!-- norn:related:end -->\n"
	old := "# Bloom filters\nBody.\n\n" + block
	edited := "# Bloom filters\nBetter body.\n\n" + block
	tampered := "# Bloom filters\nBody.\n\n" + strings.Replace(block, "HyperLogLog", "Cuckoo filter", 1)
	dropped := "# Bloom filters\nBody.\n"
	unterminatedOld := "# Bloom filters\n<!-- norn:related:start -->\nnot a block\n"

	twoBlocks := gatesWith(func(c *config.Config) {
		c.Gates.ProtectedBlocks = append(c.Gates.ProtectedBlocks, config.ProtectedBlock{Name: "toc", Start: "<!-- toc -->", End: "<!-- /toc -->"})
	})
	noBlocks := gatesWith(func(c *config.Config) { c.Gates.ProtectedBlocks = nil })
	off := gatesWith(func(c *config.Config) { c.Gates.Profile = config.ProfileOff })
	dflt := gatesWith(nil)
	ch := func(oldB, newB string) hooks.Change {
		return hooks.Change{Kind: hooks.KindPut, Path: "tech/bloom.md", Old: []byte(oldB), New: []byte(newB)}
	}
	tests := []struct {
		name   string
		g      *hooks.Gates
		w      hooks.Writer
		change hooks.Change
		want   []hit
	}{
		{"edit around the block passes", dflt, agent, ch(old, edited), nil},
		{"tampered block fails", dflt, agent, ch(old, tampered), []hit{{"protected-block-changed", 4}}},
		{"dropped block fails", dflt, agent, ch(old, dropped), []hit{{"protected-block-changed", 0}}},
		{"owner is not enough", dflt, owner, ch(old, tampered), []hit{{"protected-block-changed", 4}}},
		{"maintenance may change it", dflt, maintenance, ch(old, tampered), nil},
		{"maintenance may drop it", dflt, maintenance, ch(old, dropped), nil},
		{"new note may add a block", dflt, agent, hooks.Change{Kind: hooks.KindPut, Path: "a.md", New: []byte(old)}, nil},
		{"old without block: any new passes", dflt, agent, ch(dropped, tampered), nil},
		{"start without end is no block", dflt, agent, ch(unterminatedOld, "# Bloom filters\n"), nil},
		{"block moved within the note passes", dflt, agent, ch(old, block+"# Bloom filters\nBody.\n"), nil},
		{"second block checked", twoBlocks, agent, ch(old+"<!-- toc -->\n- a\n<!-- /toc -->\n", old+"<!-- toc -->\n- b\n<!-- /toc -->\n"), []hit{{"protected-block-changed", 7}}},
		{"no blocks configured", noBlocks, agent, ch(old, dropped), nil},
		{"kept in profile off", off, agent, ch(old, tampered), []hit{{"protected-block-changed", 4}}},
		{"archive of a note with a block fails", dflt, agent, hooks.Change{Kind: hooks.KindArchive, Path: "tech/bloom.md", Old: []byte(old)}, []hit{{"protected-block-changed", 0}}},
		{"archive by maintenance passes", dflt, maintenance, hooks.Change{Kind: hooks.KindArchive, Path: "tech/bloom.md", Old: []byte(old)}, nil},
		{"archive of a note without a block passes", dflt, agent, hooks.Change{Kind: hooks.KindArchive, Path: "tech/bloom.md", Old: []byte(dropped)}, nil},
		{"move keeping the block passes", dflt, agent, hooks.Change{Kind: hooks.KindMove, From: "tech/bloom.md", Path: "ds/bloom.md", Old: []byte(old), New: []byte(old)}, nil},
		{"move rewriting the block fails", dflt, agent, hooks.Change{Kind: hooks.KindMove, From: "tech/bloom.md", Path: "ds/bloom.md", Old: []byte(old), New: []byte(tampered)}, []hit{{"protected-block-changed", 4}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := check(t, tt.g, hooks.Proposal{Writer: tt.w, Changes: []hooks.Change{tt.change}})
			if got := hits(vs); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("violations = %v, want %v", vs, tt.want)
			}
			for _, v := range vs {
				if v.Path != tt.change.Path || !strings.Contains(v.Message, `"related"`) && !strings.Contains(v.Message, `"toc"`) {
					t.Errorf("violation %+v: wrong path or message without the block's name", v)
				}
			}
		})
	}
}

func TestGates_Check_PrivateNotes(t *testing.T) {
	g := gatesWith(nil)
	off := gatesWith(func(c *config.Config) { c.Gates.Profile = config.ProfileOff })
	noFolders := gatesWith(func(c *config.Config) { c.Privacy.Folders = nil })
	tagged := gatesWith(func(c *config.Config) { c.Privacy.Tags = []string{"diary"} })
	byTag := "---\ntitle: Day\ntags: [Diary]\n---\nNumbers.\n"
	byInlineTag := "# Day\nA #diary/2026 entry.\n"
	byFolder := "# Diary\nDear diary.\n"
	byFM := "---\ntitle: Salary\nprivate: true\n---\nNumbers.\n"
	byFMYes := "---\ntitle: Salary\nprivate: yes\n---\nNumbers.\n"
	brokenPrivate := "---\ntitle: [broken\nprivate: true\n---\n"
	notPrivate := "---\ntitle: Public\nprivate: false\n---\n"

	overwrite := func(path, old string) hooks.Change {
		return hooks.Change{Kind: hooks.KindPut, Path: note.Path(path), Old: []byte(old), New: []byte("# Replaced\n")}
	}
	move := func(from, old string) hooks.Change {
		return hooks.Change{Kind: hooks.KindMove, From: note.Path(from), Path: "moved/x.md", Old: []byte(old), New: []byte(old)}
	}
	archive := func(path, old string) hooks.Change {
		return hooks.Change{Kind: hooks.KindArchive, Path: note.Path(path), Old: []byte(old)}
	}
	tests := []struct {
		name   string
		g      *hooks.Gates
		w      hooks.Writer
		change hooks.Change
		want   []hit
	}{
		// By folder.
		{"agent overwrites folder note", g, agent, overwrite("personal-notes/diary.md", byFolder), []hit{{"private-note", 0}}},
		{"agent overwrites folder note, other case", g, agent, overwrite("Personal-Notes/diary.md", byFolder), []hit{{"private-note", 0}}},
		{"agent moves folder note", g, agent, move("personal-notes/diary.md", byFolder), []hit{{"private-note", 0}}},
		{"agent archives folder note", g, agent, archive("personal-notes/diary.md", byFolder), []hit{{"private-note", 0}}},
		{"writer without roles is refused", g, nobody, overwrite("personal-notes/diary.md", byFolder), []hit{{"private-note", 0}}},
		{"maintenance alone is refused", g, maintenance, overwrite("personal-notes/diary.md", byFolder), []hit{{"private-note", 0}}},
		{"owner overwrites folder note", g, owner, overwrite("personal-notes/diary.md", byFolder), nil},
		{"owner archives folder note", g, owner, archive("personal-notes/diary.md", byFolder), nil},
		{"private agent overwrites folder note", g, privAgent, overwrite("personal-notes/diary.md", byFolder), nil},
		{"private agent moves folder note", g, privAgent, move("personal-notes/diary.md", byFolder), nil},
		{"agent creates in private folder", g, agent, put("personal-notes/new.md", byFolder), nil},
		{"agent moves a public note into the folder", g, agent, hooks.Change{Kind: hooks.KindMove, From: "a.md", Path: "personal-notes/a.md", Old: []byte(byFolder), New: []byte(byFolder)}, nil},
		{"no privacy folders", noFolders, agent, overwrite("personal-notes/diary.md", byFolder), nil},
		{"kept in profile off", off, agent, archive("personal-notes/diary.md", byFolder), []hit{{"private-note", 0}}},

		// By frontmatter.
		{"agent overwrites private: true", g, agent, overwrite("work/salary.md", byFM), []hit{{"private-note", 3}}},
		{"agent overwrites private: yes", g, agent, overwrite("work/salary.md", byFMYes), []hit{{"private-note", 3}}},
		{"agent archives private: true", g, agent, archive("work/salary.md", byFM), []hit{{"private-note", 3}}},
		{"agent moves private: true", g, agent, move("work/salary.md", byFM), []hit{{"private-note", 3}}},
		{"escaped key still private", g, agent, overwrite("work/salary.md", "---\ntitle: S\n\"\\x70rivate\": true\n---\n"), []hit{{"private-note", 3}}},
		{"unparsable old still private", g, agent, overwrite("work/salary.md", brokenPrivate), []hit{{"private-note", 3}}},
		{"owner overwrites private: true", g, owner, overwrite("work/salary.md", byFM), nil},
		{"private agent archives private: true", g, privAgent, archive("work/salary.md", byFM), nil},
		{"private: false is public", g, agent, overwrite("work/public.md", notPrivate), nil},

		// By tag.
		{"agent overwrites a note tagged private", tagged, agent, overwrite("work/day.md", byTag), []hit{{"private-note", 0}}},
		{"agent archives a note tagged private inline", tagged, agent, archive("work/day.md", byInlineTag), []hit{{"private-note", 0}}},
		{"agent moves a note tagged private", tagged, agent, move("work/day.md", byTag), []hit{{"private-note", 0}}},
		{"owner overwrites a note tagged private", tagged, owner, overwrite("work/day.md", byTag), nil},
		{"a tag without private tags configured", g, agent, overwrite("work/day.md", byTag), nil},
		{"new content saying private does not lock a public note", g, agent, hooks.Change{Kind: hooks.KindPut, Path: "a.md", Old: []byte("# A\n"), New: []byte(byFM)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := check(t, tt.g, hooks.Proposal{Writer: tt.w, Changes: []hooks.Change{tt.change}})
			if got := hits(vs); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("violations = %v, want %v", vs, tt.want)
			}
			existing := tt.change.Path
			if tt.change.Kind == hooks.KindMove {
				existing = tt.change.From
			}
			for _, v := range vs {
				if v.Path != existing || !strings.Contains(v.Message, "private") {
					t.Errorf("violation %+v: want path %q and a message about privacy", v, existing)
				}
			}
		})
	}
}

func TestGates_Check_InvalidProposal(t *testing.T) {
	g := gatesWith(nil)
	tests := []hooks.Change{
		{Kind: "delete", Path: "a.md"},
		{Kind: "", Path: "a.md", New: []byte("x\n")},
		{Kind: hooks.KindMove, Path: "a.md", New: []byte("x\n")},
		{Kind: hooks.KindPut, Path: "a.md", From: "b.md", New: []byte("x\n")},
		{Kind: hooks.KindArchive, Path: "a.md", New: []byte("x\n")},
	}
	for _, c := range tests {
		err := g.Check(context.Background(), hooks.Proposal{Writer: agent, Changes: []hooks.Change{put("ok.md", "x\n"), c}})
		if !errors.Is(err, hooks.ErrInvalidProposal) || errors.Is(err, hooks.ErrRejected) {
			t.Errorf("Check(%+v) = %v, want ErrInvalidProposal", c, err)
		}
	}
	if err := g.Check(context.Background(), hooks.Proposal{Writer: agent}); err != nil {
		t.Errorf("Check of no changes = %v, want nil", err)
	}
}

func TestGates_Check_Context(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := gatesWith(nil).Check(ctx, hooks.Proposal{Writer: agent, Changes: []hooks.Change{put("a.md", "# A\n")}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Check with a cancelled context = %v, want context.Canceled", err)
	}
}

func TestGates_Check_Restore(t *testing.T) {
	g := gatesWith(nil)
	vs := check(t, g, hooks.Proposal{Writer: agent, Op: "restore", Changes: []hooks.Change{
		{Kind: hooks.KindRestore, Path: "tech/bloom.md", New: []byte(good)},
		{Kind: hooks.KindRestore, Path: "tech/old.md", New: []byte("---\ntags: [Old Tag]\n---\n")},
	}})
	if got, want := hits(vs), []hit{{"tags-format", 2}}; !reflect.DeepEqual(got, want) || vs[0].Path != "tech/old.md" {
		t.Errorf("violations = %v, want %v on tech/old.md", vs, want)
	}
}

func TestNew(t *testing.T) {
	sloppy := strictGood + "\n\n" // passes default, fails strict's final-newline-single
	tests := []struct {
		profile config.Profile
		fails   bool
	}{
		{"", false},
		{config.ProfileDefault, false},
		{config.ProfileStrict, true},
		{"Strict", true}, // unknown: fail closed
		{"lax", true},
	}
	for _, tt := range tests {
		c := config.Default()
		c.Gates.Profile = tt.profile
		err := hooks.New(c).Check(context.Background(), hooks.Proposal{Writer: agent, Changes: []hooks.Change{put("a.md", sloppy)}})
		if (err != nil) != tt.fails {
			t.Errorf("profile %q: Check = %v, want failure %v", tt.profile, err, tt.fails)
		}
	}
	// A zero max_note_bytes takes the 1 MiB default rather than refusing everything.
	c := config.Default()
	c.Gates.MaxNoteBytes = 0
	g := hooks.New(c)
	if vs := g.Lint("a.md", []byte("# A\n")); vs != nil {
		t.Errorf("zero max_note_bytes: Lint = %v", vs)
	}
	if vs := g.Lint("a.md", []byte(strings.Repeat("x", 1<<20)+"\n")); len(vs) != 1 || vs[0].Rule != hooks.RuleNoteTooLarge {
		t.Errorf("zero max_note_bytes: Lint of 1 MiB + 1 = %v", vs)
	}
}

func TestGates_Lint(t *testing.T) {
	g := gatesWith(strictCfg)
	if vs := g.Lint("tech/bloom.md", []byte(strictGood)); vs != nil {
		t.Errorf("Lint(strictGood) = %v", vs)
	}
	// Lint has the content rules only: no path rules even for a bad path.
	vs := g.Lint("../x.txt", []byte("---\ntags: [Bad]\n---\n"))
	var got []string
	for _, v := range vs {
		got = append(got, v.Rule)
	}
	want := []string{"status-required", "title-required", "type-required", "updated-date", "tags-count", "tags-format"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Lint rules = %q, want %q", got, want)
	}
	if !slices.IsSortedFunc(vs, cmpViolation) {
		t.Errorf("Lint result not sorted: %v", vs)
	}
	// It agrees with Check on the content rules.
	err := g.Check(context.Background(), hooks.Proposal{Writer: agent, Changes: []hooks.Change{put("tech/x.md", "---\ntags: [Bad]\n---\n")}})
	var rej *hooks.Rejection
	if !errors.As(err, &rej) || !reflect.DeepEqual(hits(rej.Violations), hits(g.Lint("tech/x.md", []byte("---\ntags: [Bad]\n---\n")))) {
		t.Errorf("Check and Lint disagree: %v vs %v", err, g.Lint("tech/x.md", []byte("---\ntags: [Bad]\n---\n")))
	}
	off := gatesWith(func(c *config.Config) { c.Gates.Profile = config.ProfileOff; c.Gates.MaxNoteBytes = 4 })
	if vs := off.Lint("a.md", []byte("---\nbroken")); len(vs) != 1 || vs[0].Rule != hooks.RuleNoteTooLarge {
		t.Errorf("off Lint = %v, want only note-too-large", vs)
	}
}

func TestRejection_Error(t *testing.T) {
	r := &hooks.Rejection{Violations: []hooks.Violation{
		{Rule: "tags-format", Path: "a.md", Line: 3, Message: "write `x`"},
		{Rule: "path-dotdot", Path: "../b.md", Message: "no .."},
	}}
	want := "rejected by a write gate (2 violations): a.md:3: tags-format: write `x`; ../b.md: path-dotdot: no .."
	if r.Error() != want {
		t.Errorf("Error() = %q, want %q", r.Error(), want)
	}
	if !errors.Is(fmt.Errorf("write: %w", r), hooks.ErrRejected) {
		t.Error("a wrapped Rejection does not match ErrRejected")
	}
	one := &hooks.Rejection{Violations: r.Violations[:1]}
	if got := one.Error(); got != "rejected by a write gate: a.md:3: tags-format: write `x`" {
		t.Errorf("Error() = %q", got)
	}
}
