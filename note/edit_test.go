package note

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func TestSetField(t *testing.T) {
	edges := []Edge{
		{To: "[[Count-min sketch]]", Type: "same_mechanism_as", Why: "Both hash items into a small array."},
		{Target: "Hashing", Type: "depends_on"},
	}
	tests := []struct {
		name  string
		raw   string
		key   string
		value any
		want  string
	}{
		{"replace scalar", "---\ntitle: Old # keep?\ntype: concept\n---\nbody\n", "title", "New",
			"---\ntitle: New\ntype: concept\n---\nbody\n"},
		{"replace keeps comments and order", "---\n# head comment\na: 1 # one\nb:  2\n\n# about c\nc: [3]\n---\n", "b", 20,
			"---\n# head comment\na: 1 # one\nb: 20\n\n# about c\nc: [3]\n---\n"},
		{"replace multi-line value", "---\ntags:\n  - a\n  - b\n# trailing comment\nstatus: x\n---\n", "tags", []string{"c"},
			"---\ntags:\n  - c\n# trailing comment\nstatus: x\n---\n"},
		{"replace last key", "---\na: 1\nb:\n  - x\n  - y\n---\n", "b", "z",
			"---\na: 1\nb: z\n---\n"},
		{"add key", "---\na: 1\n---\nbody", "edges", edges,
			"---\na: 1\nedges:\n  - to: \"[[Count-min sketch]]\"\n    type: same_mechanism_as\n    why: Both hash items into a small array.\n  - to: \"[[Hashing]]\"\n    type: depends_on\n---\nbody"},
		{"add to empty block", "---\n---\nbody\n", "k", true, "---\nk: true\n---\nbody\n"},
		{"no frontmatter", "# Title\n", "title", "Title", "---\ntitle: Title\n---\n# Title\n"},
		{"empty note", "", "a", 1, "---\na: 1\n---\n"},
		{"crlf", "---\r\na: 1\r\nb: 2\r\n---\r\nbody\r\n", "a", []int{1, 2}, "---\r\na:\r\n  - 1\r\n  - 2\r\nb: 2\r\n---\r\nbody\r\n"},
		{"crlf without frontmatter", "# T\r\nx\r\n", "a", "b", "---\r\na: b\r\n---\r\n# T\r\nx\r\n"},
		{"byte order mark", "\ufeff# T\n", "a", "b", "\ufeff---\na: b\n---\n# T\n"},
		{"dots closer kept", "---\na: 1\n...\nbody", "a", 2, "---\na: 2\n...\nbody"},
		{"indented mapping", "---\n  a: 1\n  b: 2\n---\n", "c", map[string]int{"x": 1}, "---\n  a: 1\n  b: 2\n  c:\n    x: 1\n---\n"},
		{"value needing quotes", "---\na: 1\n---\n", "b", "yes: no", "---\na: 1\nb: 'yes: no'\n---\n"},
		{"key needing quotes", "---\na: 1\n---\n", "k: x", "v", "---\na: 1\n'k: x': v\n---\n"},
		{"multi-line string", "---\na: 1\n---\n", "a", "l1\nl2", "---\na: |-\n  l1\n  l2\n---\n"},
		{"null value", "---\na: 1\n---\n", "a", nil, "---\na: null\n---\n"},
		{"single edge", "---\n---\n", "e", Edge{To: "X", Type: "refines", Why: "w"}, "---\ne:\n  to: \"X\"\n  type: refines\n  why: w\n---\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := []byte(tt.raw)
			out, err := SetField(in, tt.key, tt.value)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tt.want {
				t.Errorf("got\n%q\nwant\n%q", out, tt.want)
			}
			if string(in) != tt.raw {
				t.Errorf("input modified: %q", in)
			}
			n, err := Parse("t.md", out)
			if err != nil {
				t.Fatalf("result does not parse: %v", err)
			}
			if _, ok := n.Frontmatter.Fields[tt.key]; !ok {
				t.Errorf("key %q missing after SetField: %v", tt.key, n.Frontmatter.Fields)
			}
		})
	}

	// Edges written by SetField parse back to the same edges.
	out, err := SetField([]byte("---\ntitle: x\n---\n"), "edges", edges)
	if err != nil {
		t.Fatal(err)
	}
	n, err := Parse("t.md", out)
	if err != nil {
		t.Fatal(err)
	}
	if len(n.Edges) != 2 || n.Edges[0].Target != "Count-min sketch" || n.Edges[0].Why != edges[0].Why || n.Edges[1].To != "[[Hashing]]" || n.Edges[1].Type != "depends_on" {
		t.Errorf("edges read back: %+v", n.Edges)
	}
}

func TestSetField_Errors(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		key  string
		val  any
		rule Rule // "" for a plain error
		is   error
	}{
		{"invalid yaml", "---\na: [\n---\n", "a", 1, RuleYAMLSyntax, nil},
		{"duplicate keys", "---\na: 1\na: 2\n---\n", "b", 1, RuleDuplicateKey, nil},
		{"anchor", "---\na: &x 1\n---\n", "b", 1, RuleYAMLAlias, nil},
		{"unterminated", "---\na: 1\n", "b", 1, RuleUnterminated, nil},
		{"not a mapping", "---\n- a\n---\n", "b", 1, RuleNotMapping, nil},
		{"flow mapping", "---\n{a: 1, b: 2}\n---\n", "a", 3, "", ErrUneditable},
		{"result too large", "---\na: 1\n---\n", "big", strings.Repeat("x", MaxFrontmatter), RuleTooLarge, nil},
		{"invalid edges result", "---\na: 1\n---\n", "edges", "not a list", RuleInvalidEdges, nil},
		{"empty key", "---\n---\n", "", 1, "", nil},
		{"unmarshallable", "---\n---\n", "f", func() {}, "", nil},
	}
	for _, tt := range tests {
		out, err := SetField([]byte(tt.raw), tt.key, tt.val)
		if err == nil {
			t.Errorf("%s: no error, got %q", tt.name, out)
			continue
		}
		var pe *ParseError
		if got := errors.As(err, &pe); got != (tt.rule != "") || got && pe.Rule != tt.rule {
			t.Errorf("%s: error %v; want rule %q", tt.name, err, tt.rule)
		}
		if tt.is != nil && !errors.Is(err, tt.is) {
			t.Errorf("%s: error %v is not %v", tt.name, err, tt.is)
		}
	}
}

func TestDeleteField(t *testing.T) {
	tests := []struct{ raw, key, want string }{
		{"---\na: 1\nb:\n  - x\n# c's comment\nc: 3\n---\nbody", "b", "---\na: 1\n# c's comment\nc: 3\n---\nbody"},
		{"---\na: 1\n---\n", "a", "---\n---\n"},
		{"---\na: 1\n---\n", "missing", "---\na: 1\n---\n"},
		{"no frontmatter", "a", "no frontmatter"},
		{"---\r\na: 1\r\nb: 2\r\n---\r\n", "a", "---\r\nb: 2\r\n---\r\n"},
	}
	for _, tt := range tests {
		out, err := DeleteField([]byte(tt.raw), tt.key)
		if err != nil || string(out) != tt.want {
			t.Errorf("DeleteField(%q, %q) = %q, %v; want %q", tt.raw, tt.key, out, err, tt.want)
		}
	}
}

// TestSetField_Corpora sets a new key on every valid note of the Obsidian corpora
// and checks that the other fields are unchanged and that deleting the key gives
// back the original bytes exactly; it also rewrites each note's first key with its
// own value and checks that the fields are the same.
func TestSetField_Corpora(t *testing.T) {
	for _, corpus := range []string{"vault-obsidian-help-en", "vault-obsidian-hub"} {
		t.Run(corpus, func(t *testing.T) {
			notes := loadCorpus(t, corpus)
			var wg sync.WaitGroup
			for w := range 2 {
				wg.Go(func() {
					for i := w; i < len(notes); i += 2 {
						c := notes[i]
						if msg := checkSetField(c.path, c.raw); msg != "" {
							t.Errorf("%s: %s", c.path, msg)
						}
					}
				})
			}
			wg.Wait()
		})
	}
}

func checkSetField(p Path, raw []byte) string {
	n, err := Parse(p, raw)
	if err != nil || n.Frontmatter == nil {
		return ""
	}
	const key = "norn-probe"
	if _, ok := n.Frontmatter.Fields[key]; ok {
		return ""
	}
	out, err := SetField(raw, key, []string{"x", "y"})
	if err != nil {
		return fmt.Sprintf("SetField: %v", err)
	}
	m, err := Parse(p, out)
	if err != nil {
		return fmt.Sprintf("after SetField: %v", err)
	}
	want := map[string]any{key: []any{"x", "y"}}
	for k, v := range n.Frontmatter.Fields {
		want[k] = v
	}
	if !reflect.DeepEqual(m.Frontmatter.Fields, want) {
		return fmt.Sprintf("fields after SetField: %v", m.Frontmatter.Fields)
	}
	if string(out[m.BodyStart:]) != string(raw[n.BodyStart:]) {
		return "body changed"
	}
	back, err := DeleteField(out, key)
	if err != nil || string(back) != string(raw) {
		return fmt.Sprintf("DeleteField did not restore the note: %v\n%q", err, back)
	}
	if len(n.Frontmatter.Keys) > 0 {
		k := n.Frontmatter.Keys[0]
		again, err := SetField(raw, k, n.Frontmatter.Fields[k])
		if err != nil {
			return fmt.Sprintf("SetField %s with its own value: %v", k, err)
		}
		a, err := Parse(p, again)
		if err != nil || !reflect.DeepEqual(a.Frontmatter.Fields, n.Frontmatter.Fields) {
			return fmt.Sprintf("SetField %s with its own value changed the fields: %v %v", k, err, a)
		}
	}
	return ""
}
