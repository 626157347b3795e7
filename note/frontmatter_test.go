package note

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// parseErr parses raw and returns its *ParseError (nil when it parses), failing the
// test when the error is of another type or does not match ErrInvalid.
func parseErr(t *testing.T, raw string) (*Note, *ParseError) {
	t.Helper()
	n, err := Parse("t/note.md", []byte(raw))
	if err == nil {
		return n, nil
	}
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v is %T, not *ParseError", err, err)
	}
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("errors.Is(%v, ErrInvalid) is false", err)
	}
	if n != nil {
		t.Fatalf("Parse returned a note with error %v", err)
	}
	return nil, pe
}

func TestParse_FrontmatterRules(t *testing.T) {
	big := "---\nk: " + strings.Repeat("x", MaxFrontmatter-len("---\nk: \n---\n")) + "\n---\nbody\n"
	tests := []struct {
		name string
		raw  string
		rule Rule // "" when the note parses
		line int
		msg  string // a substring of the error message
	}{
		// Good.
		{name: "no frontmatter", raw: "# Title\nbody\n"},
		{name: "empty note", raw: ""},
		{name: "empty block", raw: "---\n---\nbody\n"},
		{name: "blank block", raw: "---\n\n  \n---\n"},
		{name: "comment-only block", raw: "---\n# nothing here\n---\n"},
		{name: "crlf and trailing blanks", raw: "--- \t\r\ntitle: x\r\n---  \r\nbody\r\n"},
		{name: "closed by dots", raw: "---\ntitle: x\n...\nbody\n"},
		{name: "closed at end of file", raw: "---\ntitle: x\n---"},
		{name: "byte order mark", raw: "\ufeff---\ntitle: x\n---\n"},
		{name: "nested values", raw: "---\na:\n  b: [1, 2]\n  c: {d: e}\nl:\n  - x: 1\n  - x: 2\n---\n"},
		{name: "quoted merge-like key", raw: "---\n\"<<\": x\n---\n"},
		{name: "star and ampersand in strings", raw: "---\na: \"*x\"\nb: '&y'\nc: a*b&c\n---\n"},
		{name: "same key in sibling maps", raw: "---\nl:\n  - to: a\n  - to: b\n---\n"},
		{name: "exactly the size limit", raw: big},
		{name: "first line not a delimiter", raw: "\n---\na: 1\na: 2\n---\n"},
		{name: "four dashes is a rule not frontmatter", raw: "----\na: [\n"},
		{name: "indented delimiter is not frontmatter", raw: " ---\na: [\n"},

		// UTF-8.
		{name: "invalid utf8 in body", raw: "# T\n\nbad \xff byte\n", rule: RuleInvalidUTF8, line: 3, msg: "0xff"},
		{name: "invalid utf8 in frontmatter", raw: "---\ntitle: \xc3\x28\n---\n", rule: RuleInvalidUTF8, line: 2},
		{name: "truncated utf8 at end", raw: "a\nb\xe2\x82", rule: RuleInvalidUTF8, line: 2},

		// Delimiters and size.
		{name: "unterminated", raw: "---\ntitle: x\nbody\n", rule: RuleUnterminated, line: 1},
		{name: "unterminated, near miss", raw: "---\ntitle: x\n-- -\n ---\n", rule: RuleUnterminated, line: 1},
		{name: "only the opener", raw: "---", rule: RuleUnterminated, line: 1},
		{name: "one byte over the limit", raw: "---\nk: x" + big[len("---\nk: "):], rule: RuleTooLarge, line: 1, msg: "16385 bytes"},

		// YAML syntax, lines mapped to the note.
		{name: "mapping value in plain scalar", raw: "---\na: 1\nb: c: d\n---\n", rule: RuleYAMLSyntax, line: 3, msg: "mapping values"},
		{name: "bad indentation", raw: "---\na: 1\n  b: 2\n---\n", rule: RuleYAMLSyntax, line: 3},
		{name: "tab indentation", raw: "---\na: 1\n\tb: 2\n---\n", rule: RuleYAMLSyntax, line: 3, msg: "tab"},
		{name: "list after mapping", raw: "---\na: 1\n- b\n---\n", rule: RuleYAMLSyntax, line: 3, msg: "expected key"},
		{name: "unclosed flow list", raw: "---\na: 1\nb: [1, 2\nc: 3\n---\n", rule: RuleYAMLSyntax, line: 3},
		{name: "reserved indicator", raw: "---\na: 1\nb:\n- @kepano\n---\n", rule: RuleYAMLSyntax, line: 4, msg: "cannot start any token"},
		{name: "reserved indicator on first line", raw: "---\na: @x\n---\n", rule: RuleYAMLSyntax, line: 2},
		{name: "control character", raw: "---\na: 1\nb: \x01\n---\n", rule: RuleYAMLSyntax, line: 3, msg: "control characters"},
		{name: "bad explicit tag", raw: "---\na: 1\nb: !!int abc\n---\n", rule: RuleYAMLSyntax, line: 3, msg: "!!int"},
		{name: "complex key", raw: "---\n? [a, b]\n: c\n---\n", rule: RuleYAMLSyntax, line: 2, msg: "mapping key"},

		// Shape.
		{name: "top-level list", raw: "---\n- a\n- b\n---\n", rule: RuleNotMapping, line: 2, msg: "not a list"},
		{name: "top-level scalar", raw: "---\njust some text\n---\n", rule: RuleNotMapping, line: 2},
		{name: "top-level null", raw: "---\n\n~\n---\n", rule: RuleNotMapping, line: 3},

		// Duplicate keys at any depth.
		{name: "duplicate top key", raw: "---\na: 1\nb: 2\na: 3\n---\n", rule: RuleDuplicateKey, line: 4, msg: `key "a" on line 4 repeats the key on line 2`},
		{name: "duplicate quoted key", raw: "---\ntitle: x\n\"title\": y\n---\n", rule: RuleDuplicateKey, line: 3},
		{name: "duplicate nested key", raw: "---\nx:\n  a: 1\n  b:\n    c: 1\n    c: 2\n---\n", rule: RuleDuplicateKey, line: 6, msg: "line 5"},
		{name: "duplicate key in list entry", raw: "---\nedges:\n  - to: a\n    to: b\n---\n", rule: RuleDuplicateKey, line: 4},
		{name: "duplicate key in flow map", raw: "---\nm: {a: 1, a: 2}\n---\n", rule: RuleDuplicateKey, line: 2},

		// Anchors, aliases, merge keys.
		{name: "anchor", raw: "---\na: &x 1\nb: 2\n---\n", rule: RuleYAMLAlias, line: 2, msg: "&x"},
		{name: "alias", raw: "---\na: &x 1\nb: *x\n---\n", rule: RuleYAMLAlias, line: 2},
		{name: "alias of unknown anchor", raw: "---\na: 1\nb: *nope\n---\n", rule: RuleYAMLAlias, line: 3, msg: "*nope"},
		{name: "anchor on a nested list", raw: "---\na:\n  b: &l [1]\n---\n", rule: RuleYAMLAlias, line: 3},
		{name: "anchor on a key", raw: "---\n&k a: 1\n---\n", rule: RuleYAMLAlias, line: 2},
		{name: "merge key", raw: "---\nbase: 1\nx:\n  <<: {a: 1}\n---\n", rule: RuleYAMLAlias, line: 4, msg: "merge key"},
		{name: "top-level merge key", raw: "---\n<<: {a: 1}\n---\n", rule: RuleYAMLAlias, line: 2},

		// Tags and aliases shapes.
		{name: "tags mapping", raw: "---\ntags:\n  a: b\n---\n", rule: RuleInvalidTags, line: 3},
		{name: "tags nested list", raw: "---\ntags:\n  - ok\n  - [x]\n---\n", rule: RuleInvalidTags, line: 4},
		{name: "tag key mapping", raw: "---\ntag: {a: 1}\n---\n", rule: RuleInvalidTags, line: 2},
		{name: "aliases entry mapping", raw: "---\naliases:\n- Opener: New Tab\n---\n", rule: RuleInvalidAliases, line: 3},
		{name: "alias key list of lists", raw: "---\nalias:\n  - [a]\n---\n", rule: RuleInvalidAliases, line: 3},
		{name: "tags null and empty entries are fine", raw: "---\ntags:\n- \naliases:\n---\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, pe := parseErr(t, tt.raw)
			if tt.rule == "" {
				if pe != nil {
					t.Fatalf("unexpected error: %v", pe)
				}
				return
			}
			if pe == nil {
				t.Fatalf("parsed; want %s at line %d", tt.rule, tt.line)
			}
			if pe.Rule != tt.rule || pe.Line != tt.line {
				t.Fatalf("got %s at line %d (%v); want %s at line %d", pe.Rule, pe.Line, pe, tt.rule, tt.line)
			}
			if pe.Path != "t/note.md" {
				t.Errorf("error path %q", pe.Path)
			}
			if !strings.Contains(pe.Error(), string(tt.rule)) || !strings.Contains(pe.Msg, tt.msg) {
				t.Errorf("message %q should name the rule and contain %q", pe.Error(), tt.msg)
			}
		})
	}
}

// TestParse_BillionLaughs feeds the classic alias bomb: it must be refused at its
// first anchor without expanding anything.
func TestParse_BillionLaughs(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	for c := 'b'; c <= 'i'; c++ {
		fmt.Fprintf(&b, "%c: &%c [", c, c)
		for i := 0; i < 9; i++ {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "*%c", c-1)
		}
		b.WriteString("]\n")
	}
	b.WriteString("---\nbody\n")
	start := time.Now()
	_, pe := parseErr(t, b.String())
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("refusing the alias bomb took %v", took)
	}
	if pe == nil || pe.Rule != RuleYAMLAlias || pe.Line != 2 {
		t.Fatalf("got %v; want %s at line 2", pe, RuleYAMLAlias)
	}
}

func TestParse_FrontmatterFields(t *testing.T) {
	raw := `---
s: hello
q: "quoted: yes"
b: true
no: false
i: 42
neg: -7
hex: 0x1F
f: 3.5
inf: .inf
d: 2026-11-30
ts: 2026-11-30T10:00:00Z
n: null
e:
l: [a, 1, true]
m: {x: 1, y: [2]}
big: 18446744073709551615
huge: 99999999999999999999
str_num: "42"
multi: |
  line1
  line2
custom: !thing value
1: one
---
body
`
	n, pe := parseErr(t, raw)
	if pe != nil {
		t.Fatal(pe)
	}
	want := map[string]any{
		"s": "hello", "q": "quoted: yes", "b": true, "no": false, "i": 42, "neg": -7, "hex": 31,
		"f": 3.5, "inf": math.Inf(1),
		"d":  time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC),
		"ts": time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC),
		"n":  nil, "e": nil,
		"l":   []any{"a", 1, true},
		"m":   map[string]any{"x": 1, "y": []any{2}},
		"big": "18446744073709551615", "huge": 1e20,
		"str_num": "42", "multi": "line1\nline2\n", "custom": "value", "1": "one",
	}
	fm := n.Frontmatter
	if !reflect.DeepEqual(fm.Fields, want) {
		for k, v := range want {
			if !reflect.DeepEqual(fm.Fields[k], v) {
				t.Errorf("Fields[%q] = %#v (%T); want %#v (%T)", k, fm.Fields[k], fm.Fields[k], v, v)
			}
		}
		t.Fatalf("Fields has %d keys; want %d", len(fm.Fields), len(want))
	}
	wantKeys := []string{"s", "q", "b", "no", "i", "neg", "hex", "f", "inf", "d", "ts", "n", "e", "l", "m", "big", "huge", "str_num", "multi", "custom", "1"}
	if !reflect.DeepEqual(fm.Keys, wantKeys) {
		t.Errorf("Keys = %q", fm.Keys)
	}
	if fm.KeyLines["s"] != 2 || fm.KeyLines["multi"] != 20 || fm.KeyLines["1"] != 24 {
		t.Errorf("KeyLines = %v", fm.KeyLines)
	}
	if fm.Start != 0 || fm.End != strings.Index(raw, "body") || n.BodyStart != fm.End {
		t.Errorf("block %d-%d, body at %d", fm.Start, fm.End, n.BodyStart)
	}
	if string(fm.YAML) != raw[4:strings.Index(raw, "---\nbody")] {
		t.Errorf("YAML = %q", fm.YAML)
	}
	if string(n.Body()) != "body\n" {
		t.Errorf("Body = %q", n.Body())
	}
}

func TestParse_FrontmatterOffsets(t *testing.T) {
	tests := []struct {
		raw        string
		start, end int
		yaml       string
	}{
		{"---\na: 1\n---\nx", 0, 13, "a: 1\n"},
		{"\ufeff---\na: 1\n---\nx", 3, 16, "a: 1\n"},
		{"---\r\na: 1\r\n---\r\nx", 0, 16, "a: 1\r\n"},
		{"---\na: 1\n---", 0, 12, "a: 1\n"},
		{"---\n---\n", 0, 8, ""},
	}
	for _, tt := range tests {
		n, pe := parseErr(t, tt.raw)
		if pe != nil {
			t.Fatalf("%q: %v", tt.raw, pe)
		}
		fm := n.Frontmatter
		if fm.Start != tt.start || fm.End != tt.end || n.BodyStart != tt.end || string(fm.YAML) != tt.yaml {
			t.Errorf("%q: block %d-%d (body %d) yaml %q; want %d-%d %q", tt.raw, fm.Start, fm.End, n.BodyStart, fm.YAML, tt.start, tt.end, tt.yaml)
		}
		if fm.Fields == nil {
			t.Errorf("%q: nil Fields", tt.raw)
		}
	}
	if n, _ := parseErr(t, "no frontmatter"); n.Frontmatter != nil || n.BodyStart != 0 {
		t.Errorf("note without frontmatter: %+v at %d", n.Frontmatter, n.BodyStart)
	}
}

func TestParse_Edges(t *testing.T) {
	good := `---
title: Bloom filters
edges:
  - to: "[[Count-min sketch]]"
    type: same_mechanism_as
    why: Both hash items into a small array and trade exactness for memory.
  - to: "[[Hashing#Universal|universal hashing]]"
    type: depends_on
  - to: Cuckoo filter
    type: analogous_to
    why: 42
    note: extra keys are ignored
  - {to: "[[a/b]]", type: part_of}
---
`
	n, pe := parseErr(t, good)
	if pe != nil {
		t.Fatal(pe)
	}
	want := []Edge{
		{To: "[[Count-min sketch]]", Target: "Count-min sketch", Type: "same_mechanism_as", Why: "Both hash items into a small array and trade exactness for memory.", Line: 4},
		{To: "[[Hashing#Universal|universal hashing]]", Target: "Hashing", Type: "depends_on", Line: 7},
		{To: "Cuckoo filter", Target: "Cuckoo filter", Type: "analogous_to", Why: "42", Line: 9},
		{To: "[[a/b]]", Target: "a/b", Type: "part_of", Line: 13},
	}
	if !reflect.DeepEqual(n.Edges, want) {
		t.Errorf("Edges =\n%+v\nwant\n%+v", n.Edges, want)
	}
	if n, _ := parseErr(t, "---\nedges:\n---\n"); len(n.Edges) != 0 {
		t.Errorf("null edges: %v", n.Edges)
	}
	if n, _ := parseErr(t, "---\nedges: []\n---\n"); len(n.Edges) != 0 {
		t.Errorf("empty edges: %v", n.Edges)
	}

	bad := []struct {
		name, yaml string
		line       int
		msg        string
	}{
		{"not a list", "edges: x", 2, "must be a list"},
		{"a mapping", "edges:\n  to: x\n  type: y", 3, "not a mapping"},
		{"entry not a map", "edges:\n  - to: a\n    type: b\n  - just text", 5, "entry 2"},
		{"missing to", "edges:\n  - type: supports", 3, "no to"},
		{"empty to", "edges:\n  - to: \"\"\n    type: supports", 3, "no to"},
		{"to names nothing", "edges:\n  - to: \"[[#Heading]]\"\n    type: supports", 3, "names no note"},
		{"missing type", "edges:\n  - to: a\n    why: because", 3, "no type"},
		{"null type", "edges:\n  - to: a\n    type:", 3, "no type"},
		{"unquoted wikilink", "edges:\n  - to: [[Count-min sketch]]\n    type: refines", 3, "quote it"},
		{"type is a list", "edges:\n  - to: a\n    type: [x]", 4, "type must be a single value"},
		{"why is a map", "edges:\n  - to: a\n    type: b\n    why: {x: 1}", 5, "why"},
	}
	for _, tt := range bad {
		_, pe := parseErr(t, "---\n"+tt.yaml+"\n---\n")
		if pe == nil || pe.Rule != RuleInvalidEdges || pe.Line != tt.line || !strings.Contains(pe.Msg, tt.msg) {
			t.Errorf("%s: got %v; want %s at line %d containing %q", tt.name, pe, RuleInvalidEdges, tt.line, tt.msg)
		}
	}
}
