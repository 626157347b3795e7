package note

import (
	"errors"
	"strings"
	"testing"
)

// renameTo returns a RewriteLinks decision that renames every link whose target
// (as written) is old to new.
func renameTo(old, new string) func(Link) (string, bool) {
	return func(l Link) (string, bool) {
		if l.Target == old {
			return new, true
		}
		return "", false
	}
}

func mustParse(t *testing.T, p Path, raw string) *Note {
	t.Helper()
	n, err := Parse(p, []byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestRewriteLinks(t *testing.T) {
	tests := []struct {
		name, raw, old, new, want string
	}{
		{"wikilink", "see [[Old]] here\n", "Old", "New", "see [[New]] here\n"},
		{"alias and heading", "[[Old#Part 1|shown text]] and [[ Old |x]]\n", "Old", "a/New", "[[a/New#Part 1|shown text]] and [[ a/New |x]]\n"},
		{"block ref", "[[Old#^abc123]]\n", "Old", "New", "[[New#^abc123]]\n"},
		{"embed", "![[Old]] ![[Old#Sec|200]]\n", "Old", "New", "![[New]] ![[New#Sec|200]]\n"},
		{"table escaped pipe", "| a | [[Old\\|shown]] |\n|---|---|\n", "Old", "New", "| a | [[New\\|shown]] |\n|---|---|\n"},
		{"links in %% comments untouched", "[[Old]] %% [[Old]] %%\n%%\n[[Old]]\n%%\n", "Old", "New", "[[New]] %% [[Old]] %%\n%%\n[[Old]]\n%%\n"},
		{"other links untouched", "[[Other]] [[Old]] `[[Old]]`\n", "Old", "New", "[[Other]] [[New]] `[[Old]]`\n"},
		{"markdown bare", "[text](old.md#sec \"title\")\n", "old.md", "../b/new.md", "[text](../b/new.md#sec \"title\")\n"},
		{"markdown percent", "[t](Old%20name.md)\n", "Old name.md", "sub/New name.md", "[t](sub/New%20name.md)\n"},
		{"markdown bare needs encoding", "[t](old.md)\n", "old.md", "New (draft) #2.md", "[t](New%20%28draft%29%20%232.md)\n"},
		{"markdown angle", "[t](<Old name.md>)\n", "Old name.md", "x/New name.md", "[t](<x/New name.md>)\n"},
		{"markdown angle encoded", "[t](<Old%20name.md>)\n", "Old name.md", "x/New name.md", "[t](<x/New%20name.md>)\n"},
		{"markdown non-ascii encoded", "[t](%C3%A9t%C3%A9.md)\n", "été.md", "hiver é.md", "[t](hiver%20%C3%A9.md)\n"},
		{"markdown image of a note", "![alt](old.md)\n", "old.md", "new.md", "![alt](new.md)\n"},
		{"markdown query kept", "[t](old.md?x=1#h)\n", "old.md", "new.md", "[t](new.md?x=1#h)\n"},
		{"same-note link gets a target", "[[#Part]]\n", "", "Other", "[[Other#Part]]\n"},
		{"crlf", "---\r\ntitle: t\r\n---\r\n[[Old]]\r\n", "Old", "New", "---\r\ntitle: t\r\n---\r\n[[New]]\r\n"},
		{"edge double quoted", "---\nedges:\n  - to: \"[[Old#h|x]]\"\n    type: supports\n---\n[[Old]]\n", "Old", "f/New \"q\"",
			"---\nedges:\n  - to: \"[[f/New \\\"q\\\"#h|x]]\"\n    type: supports\n---\n[[f/New \"q\"]]\n"},
		{"edge single quoted", "---\nedges:\n  - to: '[[Old]]' # c\n    type: supports\n---\n", "Old", "It's", "---\nedges:\n  - to: '[[It''s]]' # c\n    type: supports\n---\n"},
		{"edge bare", "---\nedges:\n  - to: Old\n    type: supports\n---\n", "Old", "a/New", "---\nedges:\n  - to: a/New\n    type: supports\n---\n"},
		{"edge flow", "---\nedges: [{to: \"[[Old]]\", type: supports}, {to: Old, type: refines}]\n---\n", "Old", "New",
			"---\nedges: [{to: \"[[New]]\", type: supports}, {to: New, type: refines}]\n---\n"},
		{"edge bare becomes quoted", "---\nedges:\n  - to: Old\n    type: supports\n---\n", "Old", "a, b", "---\nedges:\n  - to: \"a, b\"\n    type: supports\n---\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := mustParse(t, "dir/src.md", tc.raw)
			out, err := RewriteLinks(n, renameTo(tc.old, tc.new))
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tc.want {
				t.Fatalf("got  %q\nwant %q", out, tc.want)
			}
			m := mustParse(t, "dir/src.md", string(out))
			if len(m.Links) != len(n.Links) || len(m.Edges) != len(n.Edges) {
				t.Fatalf("links %d → %d, edges %d → %d", len(n.Links), len(m.Links), len(n.Edges), len(m.Edges))
			}
			for i, l := range m.Links {
				o := n.Links[i]
				want := o.Target
				if o.Target == tc.old {
					want = tc.new
				}
				if l.Target != want || l.Heading != o.Heading || l.Block != o.Block || l.Alias != o.Alias || l.Kind != o.Kind {
					t.Fatalf("link %d: %+v, was %+v", i, l, o)
				}
			}
		})
	}
}

func TestRewriteLinks_NestedInMarkdownText(t *testing.T) {
	n := mustParse(t, "x.md", "[see [[Old]] first](old.md) end\n")
	out, err := RewriteLinks(n, func(l Link) (string, bool) {
		return map[string]string{"Old": "New", "old.md": "sub/new.md"}[l.Target], true
	})
	if want := "[see [[New]] first](sub/new.md) end\n"; err != nil || string(out) != want {
		t.Fatalf("got %q, %v; want %q", out, err, want)
	}
}

func TestRewriteLinks_NoChangeIsIdentity(t *testing.T) {
	raw := "---\ntitle: T\nedges:\n  - to: \"[[A]]\"\n    type: supports\n---\n# T\n[[A]] [b](b.md) ![[c.png]]\n"
	n := mustParse(t, "x.md", raw)
	calls := 0
	out, err := RewriteLinks(n, func(l Link) (string, bool) { calls++; return l.Target, true })
	if err != nil || string(out) != raw {
		t.Fatalf("same targets: %q %v", out, err)
	}
	if calls != 4 { // one edge, three links
		t.Fatalf("fn called %d times, want 4", calls)
	}
	out[0] = 'X'
	if n.Raw[0] != '-' {
		t.Fatal("the result shares memory with Raw")
	}
}

func TestRewriteLinks_Refuses(t *testing.T) {
	tests := []struct{ name, raw, new string }{
		{"pipe in wikilink target", "[[Old]]\n", "a|b"},
		{"hash in wikilink target", "[[Old]]\n", "a#b"},
		{"brackets", "[[Old]]\n", "a]]b"},
		{"line break", "[[Old]]\n", "a\nb"},
		{"empty", "[[Old]]\n", ""},
		{"blank edge", "[[Old]]\n", " a"},
		{"invalid utf-8", "[[Old]]\n", "a\xff"},
		{"block scalar edge", "---\nedges:\n  - to: >-\n      Old\n    type: supports\n---\n", "New"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := mustParse(t, "x.md", tc.raw)
			out, err := RewriteLinks(n, renameTo("Old", tc.new))
			if !errors.Is(err, ErrRewrite) || out != nil {
				t.Fatalf("got %q, %v; want ErrRewrite", out, err)
			}
			if string(n.Raw) != tc.raw {
				t.Fatal("input modified")
			}
		})
	}
}

func TestEdgeLinks(t *testing.T) {
	raw := "---\ntitle: T\nedges:\n  - type: supports\n    to: \"[[A#h|x]]\"\n  - {to: 'B', type: refines}\n  - to: C#^blk\n    type: refines\n---\n"
	n := mustParse(t, "x.md", raw)
	ls := EdgeLinks(n)
	if len(ls) != 3 {
		t.Fatalf("%+v", ls)
	}
	for i, want := range []struct{ target, heading, block, alias, text string }{
		{"A", "h", "", "x", `"[[A#h|x]]"`}, {"B", "", "", "", "'B'"}, {"C", "", "blk", "", "C#^blk"},
	} {
		l := ls[i]
		if l.Kind != LinkWiki || l.Target != want.target || l.Heading != want.heading || l.Block != want.block || l.Alias != want.alias {
			t.Fatalf("edge %d: %+v", i, l)
		}
		if got := raw[l.Start:l.End]; got != want.text || l.End > n.BodyStart {
			t.Fatalf("edge %d text %q, want %q", i, got, want.text)
		}
	}
	if ls[0].Line != 5 || ls[1].Line != 6 {
		t.Fatalf("lines %d %d", ls[0].Line, ls[1].Line)
	}
}

func TestRelativeTarget(t *testing.T) {
	tests := []struct {
		from, to  Path
		old, want string
	}{
		{"a/x.md", "a/y.md", "y.md", "y.md"},
		{"a/x.md", "b/y.md", "y.md", "../b/y.md"},
		{"a/b/x.md", "a/c/d/y.md", "../y.md", "../c/d/y.md"},
		{"x.md", "a/y.md", "./y.md", "./a/y.md"},
		{"a/x.md", "y.md", "./y.md", "../y.md"},
		{"a/x.md", "a/New name.md", "Old name", "New name"},
		{"a/x.md", "a/v1.2 notes.md", "old", "v1.2 notes.md"},
		{"A/x.md", "a/y.md", "y.md", "../a/y.md"},
	}
	for _, tc := range tests {
		if got := RelativeTarget(tc.from, tc.to, tc.old); got != tc.want {
			t.Errorf("RelativeTarget(%s, %s, %q) = %q, want %q", tc.from, tc.to, tc.old, got, tc.want)
		}
	}
}

func TestAddEdge(t *testing.T) {
	e := Edge{To: "[[Count-min sketch]]", Type: "same_mechanism_as", Why: "Both hash items into a small array and trade exactness for memory."}
	item := "  - to: \"[[Count-min sketch]]\"\n    type: same_mechanism_as\n    why: Both hash items into a small array and trade exactness for memory.\n"
	tests := []struct{ name, raw, want string }{
		{"no frontmatter", "# T\n", "---\nedges:\n" + item + "---\n# T\n"},
		{"no edges key", "---\ntitle: T # keep\n---\n# T\n", "---\ntitle: T # keep\nedges:\n" + item + "---\n# T\n"},
		{"empty list", "---\nedges: []\ntags: [a]\n---\n", "---\nedges:\n" + item + "tags: [a]\n---\n"},
		{"appended after the last entry, comments and extra keys kept",
			"---\ntitle: T\nedges:\n  # first\n  - to: \"[[A]]\"\n    type: supports   # why not\n    note: extra\n\n# trailing comment\ntags: [a]\n---\nbody\n",
			"---\ntitle: T\nedges:\n  # first\n  - to: \"[[A]]\"\n    type: supports   # why not\n    note: extra\n" + item + "\n# trailing comment\ntags: [a]\n---\nbody\n"},
		{"unindented list", "---\nedges:\n- to: A\n  type: refines\n---\n", "---\nedges:\n- to: A\n  type: refines\n" + strings.ReplaceAll(item, "\n  ", "\n")[2:] + "---\n"},
		{"last key", "---\nedges:\n  - to: A\n    type: refines\n---\n", "---\nedges:\n  - to: A\n    type: refines\n" + item + "---\n"},
		{"crlf", "---\r\nedges:\r\n  - to: A\r\n    type: refines\r\n---\r\n", "---\r\nedges:\r\n  - to: A\r\n    type: refines\r\n" + strings.ReplaceAll(item, "\n", "\r\n") + "---\r\n"},
		{"flow list", "---\nedges: [{to: A, type: refines}]\n---\n", "---\nedges:\n  - to: \"A\"\n    type: refines\n" + item + "---\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := AddEdge([]byte(tc.raw), e)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tc.want {
				t.Fatalf("got  %q\nwant %q", out, tc.want)
			}
			n := mustParse(t, "x.md", string(out))
			last := n.Edges[len(n.Edges)-1]
			if last.Target != "Count-min sketch" || last.Type != e.Type || last.Why != e.Why {
				t.Fatalf("edge %+v", last)
			}
		})
	}
	t.Run("refusals", func(t *testing.T) {
		for _, raw := range []string{
			"---\ntitle: a\ntitle: b\n---\n",                             // duplicate key
			"---\n{edges: []}\n---\n",                                    // flow top level
			"---\nedges: [{to: A, type: refines, extra: [1, 2]}]\n---\n", // flow, lossy
		} {
			out, err := AddEdge([]byte(raw), e)
			var pe *ParseError
			if err == nil || !(errors.Is(err, ErrUneditable) || errors.As(err, &pe)) || out != nil {
				t.Errorf("AddEdge(%q) = %q, %v", raw, out, err)
			}
		}
	})
}

func TestRemoveEdges(t *testing.T) {
	raw := "---\ntitle: T\nedges:\n  - to: \"[[A]]\"\n    type: supports\n    why: one reason that is long enough\n  # about B\n  - to: \"[[B]]\"\n    type: refines\n  - to: \"[[A]]\"\n    type: refines\ntags: [x]\n---\n# T\n"
	dropB := func(_ int, e Edge) bool { return e.Target == "B" }
	out, n, err := RemoveEdges([]byte(raw), dropB)
	want := "---\ntitle: T\nedges:\n  - to: \"[[A]]\"\n    type: supports\n    why: one reason that is long enough\n  - to: \"[[A]]\"\n    type: refines\ntags: [x]\n---\n# T\n"
	if err != nil || n != 1 || string(out) != want {
		t.Fatalf("drop B: %d %v\ngot  %q\nwant %q", n, err, out, want)
	}
	out, n, err = RemoveEdges([]byte(raw), func(i int, e Edge) bool { return i == 2 })
	want = "---\ntitle: T\nedges:\n  - to: \"[[A]]\"\n    type: supports\n    why: one reason that is long enough\n  # about B\n  - to: \"[[B]]\"\n    type: refines\ntags: [x]\n---\n# T\n"
	if err != nil || n != 1 || string(out) != want {
		t.Fatalf("drop the last: %d %v\ngot  %q\nwant %q", n, err, out, want)
	}
	out, n, err = RemoveEdges([]byte(raw), func(int, Edge) bool { return true })
	if err != nil || n != 3 || string(out) != "---\ntitle: T\ntags: [x]\n---\n# T\n" {
		t.Fatalf("drop all: %d %v %q", n, err, out)
	}
	out, n, err = RemoveEdges([]byte(raw), func(int, Edge) bool { return false })
	if err != nil || n != 0 || string(out) != raw {
		t.Fatalf("drop none: %d %v %q", n, err, out)
	}
	// Add then remove gives back the note byte for byte.
	orig := "---\ntitle: T\n---\n# T\n"
	added, err := AddEdge([]byte(orig), Edge{To: "[[X]]", Type: "supports", Why: "a reason long enough to pass"})
	if err != nil {
		t.Fatal(err)
	}
	back, n, err := RemoveEdges(added, func(int, Edge) bool { return true })
	if err != nil || n != 1 || string(back) != orig {
		t.Fatalf("round trip: %v %q", err, back)
	}
}
