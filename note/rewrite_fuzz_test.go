package note

import (
	"errors"
	"strings"
	"testing"
)

// FuzzRewriteLinks checks RewriteLinks on any note: keeping every target gives the
// input back byte for byte, and renaming every link (and edge) to a new target
// either is refused with ErrRewrite or gives a note that parses to the same number
// of links and edges, each with its new target and everything else unchanged.
func FuzzRewriteLinks(f *testing.F) {
	for _, s := range [][2]string{
		{"[[a]] ![[b|c]] [[d#h|e]] [[#x]] [[f#^g]]\n", "New"},
		{"| [[t\\|alias]] |\n| - |\n", "dir/New name"},
		{"[x](a.md#h) [y](<b c.md>) ![z](d.md) [w](Three%20laws)\n", "../up/été (1).md"},
		{"---\nedges:\n  - to: \"[[A|b]]\"\n    type: refines\n  - {to: B, type: refines}\n---\n[[A]]\n", "x \"q\" 'y'"},
		{"---\nedges:\n  - to: 'A'\n    type: refines\n---\n`[[no]]` [[A]]\n", "a]b"},
		{"[a\nb](c.md) [[[x]]] [[a [[b]] \\[[c]]\n", "[[y"},
		{"text `unclosed [[x]] <!-- unclosed [[y]]\n", "z`"},
		{"[[x]] [t](x.md)\n", "a%20b#c?d"},
		{"[see [[x]] and ![[y]]](z.md) [t [[u]]](<v w.md>)\n", "New"},
		{"- [[x]]\n\t- [y](../y.md \"t\")\n", "  "},
		{"[[x]] %% [[x]] %%\n%%\n[x](x.md)\n%% [[x]]\n", "New"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, body, newTarget string) {
		n, err := Parse("fuzz/note.md", []byte(body))
		if err != nil {
			return
		}
		same, err := RewriteLinks(n, func(l Link) (string, bool) { return l.Target, true })
		if err != nil || string(same) != body {
			t.Fatalf("keeping every target changed the note: %v\ninput  %q\noutput %q", err, body, same)
		}
		edges := EdgeLinks(n)
		out, err := RewriteLinks(n, func(Link) (string, bool) { return newTarget, true })
		if string(n.Raw) != body {
			t.Fatal("RewriteLinks modified its input")
		}
		if err != nil {
			if !errors.Is(err, ErrRewrite) {
				t.Fatalf("error %v does not match ErrRewrite", err)
			}
			return
		}
		m, err := Parse("fuzz/note.md", out)
		if err != nil {
			t.Fatalf("the rewritten note does not parse: %v\ninput  %q\noutput %q", err, body, out)
		}
		if len(m.Links) != len(n.Links) || len(m.Edges) != len(n.Edges) {
			t.Fatalf("links %d → %d, edges %d → %d\ninput  %q\noutput %q", len(n.Links), len(m.Links), len(n.Edges), len(m.Edges), body, out)
		}
		for i, l := range m.Links {
			o := n.Links[i]
			// A Markdown link's text (its Alias) holds the links inside it, renamed too.
			sameAlias := l.Alias == o.Alias || o.Kind == LinkMarkdown && strings.Contains(o.Alias, "[[")
			if l.Kind != o.Kind || l.Target != newTarget || l.Heading != o.Heading || l.Block != o.Block || !sameAlias {
				t.Fatalf("link %d reads %+v, was %+v, new target %q\ninput  %q\noutput %q", i, l, o, newTarget, body, out)
			}
		}
		for i, l := range EdgeLinks(m) {
			o := edges[i]
			if l.Target != newTarget || l.Heading != o.Heading || l.Block != o.Block || l.Alias != o.Alias ||
				m.Edges[i].Type != n.Edges[i].Type || m.Edges[i].Why != n.Edges[i].Why {
				t.Fatalf("edge %d reads %+v, was %+v\ninput  %q\noutput %q", i, l, o, body, out)
			}
		}
	})
}
