package web

import (
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
)

// testResolve resolves the names of a fixed set of notes, as Norn's resolver
// would for them; anything else is broken.
func testResolve(l note.Link) graph.Resolution {
	known := map[string]note.Path{"bloom filters": "tech/bloom.md", "cms": "tech/cms.md", "bloom.md": "tech/bloom.md", "a b": "x/a b.md"}
	if p, ok := known[strings.ToLower(l.Target)]; ok {
		return graph.Resolution{Status: graph.LinkResolved, Target: p, HeadingFound: true}
	}
	return graph.Resolution{Status: graph.LinkBroken}
}

func render(t *testing.T, body string) string {
	t.Helper()
	n, err := note.Parse("tech/self.md", []byte("---\ntitle: Self\n---\n"+body))
	if err != nil {
		t.Fatal(err)
	}
	html, err := renderNote(n, testResolve)
	if err != nil {
		t.Fatal(err)
	}
	return html
}

func TestRenderNote_Links(t *testing.T) {
	for _, tc := range []struct {
		body string
		want []string
		not  []string
	}{
		{"See [[Bloom filters]].\n", []string{`<p>See <a class="wikilink" href="#/note/tech/bloom.md" data-path="tech/bloom.md">Bloom filters</a>.</p>`}, nil},
		{"[[cms|the sketch]]\n", []string{`<a class="wikilink" href="#/note/tech/cms.md" data-path="tech/cms.md">the sketch</a>`}, nil},
		{"[[cms#Usage]]\n", []string{`data-path="tech/cms.md" data-heading="Usage">cms#Usage</a>`}, nil},
		{"[[cms#Usage|how]]\n", []string{`data-heading="Usage">how</a>`}, nil},
		{"![[cms]]\n", []string{`<a class="wikilink embed" href="#/note/tech/cms.md" data-path="tech/cms.md">cms</a>`}, []string{"<img"}},
		{"[[Nowhere]]\n", []string{`<a class="wikilink broken" data-target="Nowhere">Nowhere</a>`}, []string{"href"}},
		{"![[Nowhere.png]]\n", []string{`<a class="wikilink embed broken" data-target="Nowhere.png">`}, nil},
		{"[[#Usage]]\n", []string{`href="#/note/tech/self.md" data-path="tech/self.md" data-heading="Usage">#Usage</a>`}, nil},
		{"[[a b]]\n", []string{`href="#/note/x/a%20b.md" data-path="x/a b.md">a b</a>`}, nil},
		{"[the bloom](bloom.md)\n", []string{`<a class="wikilink" href="#/note/tech/bloom.md" data-path="tech/bloom.md">the bloom</a>`}, nil},
		{"`[[cms]]` and\n\n```\n[[cms]]\n```\n", []string{"<code>[[cms]]</code>", "<pre><code>[[cms]]\n</code></pre>"}, []string{"wikilink"}},
		{"[[Nowhere|<img src=x onerror=alert(1)>]]\n", []string{`&lt;img src=x onerror=alert(1)&gt;</a>`}, []string{"<img"}},
		{"[[a\" onmouseover=\"x]]\n", []string{`data-target="a&quot; onmouseover=&quot;x"`}, []string{`" onmouseover="`}},
		{"# Title\n\n## Sub heading\n", []string{`<h2 id="sub-heading">Sub heading</h2>`}, nil},
		{"| a | b |\n|---|---|\n| 1 | 2 |\n", []string{"<table>", "<td>1</td>"}, nil},
	} {
		got := render(t, tc.body)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%q renders\n%s\nwithout %s", tc.body, got, w)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(got, w) {
				t.Errorf("%q renders\n%s\nwith %s", tc.body, got, w)
			}
		}
	}
}

// TestRenderNote_Sanitized: no raw HTML from the note and no script URLs.
func TestRenderNote_Sanitized(t *testing.T) {
	for _, body := range []string{
		"<script>alert(1)</script>\n",
		"text <script>alert(1)</script> inline\n",
		"<img src=x onerror=alert(1)>\n",
		"<a href=\"javascript:alert(1)\">x</a>\n",
		"<iframe src=\"https://evil.example\"></iframe>\n",
		"[click](javascript:alert(1))\n",
		"[click](JaVaScRiPt:alert(1))\n",
		"[click]( javascript:alert(1))\n",
		"[click](java&#x73;cript:alert(1))\n",
		"[click](vbscript:msgbox(1))\n",
		"[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)\n",
		"![img](javascript:alert(1))\n",
		"<javascript:alert(1)>\n",
		"[ref]\n\n[ref]: javascript:alert(1)\n",
		"<style>body{display:none}</style>\n",
	} {
		if bad := unsafeHTML(render(t, body)); bad != "" {
			t.Errorf("%q renders %s", body, bad)
		}
	}
	if got := render(t, "[ok](https://example.com/a) [rel](../b.md) [mail](mailto:a@b.c) [frag](#x)\n"); strings.Count(got, `href=""`) != 0 || !strings.Contains(got, `href="https://example.com/a"`) {
		t.Errorf("safe links lost:\n%s", got)
	}
}

// allowedTags are the elements rendered notes may hold.
var allowedTags = map[string]bool{"p": true, "a": true, "code": true, "pre": true, "h1": true, "h2": true, "h3": true, "h4": true,
	"h5": true, "h6": true, "ul": true, "ol": true, "li": true, "em": true, "strong": true, "del": true, "blockquote": true,
	"table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true, "hr": true, "br": true, "img": true, "input": true}

// unsafeHTML names the first unsafe thing in rendered HTML ("" when none), read
// as a browser tokenizes it: an element other than allowedTags, an event
// handler attribute, or a URL attribute with a scheme other than http, https
// or mailto.
func unsafeHTML(s string) string {
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			tok := z.Token()
			if !allowedTags[tok.Data] {
				return "element " + tok.Data
			}
			for _, a := range tok.Attr {
				k := strings.ToLower(a.Key)
				if strings.HasPrefix(k, "on") || k == "style" || k == "srcdoc" || k == "formaction" {
					return "attribute " + a.Key
				}
				if sc := browserScheme(a.Val); (k == "href" || k == "src") && sc != "" && sc != "http" && sc != "https" && sc != "mailto" {
					return "url " + a.Val
				}
			}
		}
	}
}

// browserScheme is the scheme a browser reads in an attribute's URL ("" for a
// relative one): leading C0 controls and spaces dropped, tabs and newlines
// removed anywhere, lowercased.
func browserScheme(u string) string {
	u = strings.TrimLeft(u, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ")
	u = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(u)
	for i, r := range u {
		switch {
		case r == ':':
			return strings.ToLower(u[:i])
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.'):
		default:
			return ""
		}
	}
	return ""
}
