package web

import (
	"bytes"
	"net/url"
	"slices"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
)

// resolveFunc resolves a link of the note being rendered as its reader sees the
// vault (a hidden note answers as a missing one).
type resolveFunc func(l note.Link) graph.Resolution

// renderNote renders n's body to HTML: CommonMark with GitHub's tables,
// strikethrough, task lists and autolinks; raw HTML dropped; link and image
// destinations only http(s), mailto, relative or fragments. The links note.Parse
// found (wikilinks, embeds and Markdown links to notes) are resolved by resolve
// and become <a class="wikilink" href="#/note/PATH" data-path="PATH"> or, when
// they resolve to nothing the reader may see, <a class="wikilink broken"
// data-target="RAW">.
func renderNote(n *note.Note, resolve resolveFunc) (string, error) {
	body := n.Raw[n.BodyStart:]
	links := make(map[int]note.Link, len(n.Links))
	for _, l := range n.Links {
		if l.Start >= n.BodyStart && l.End <= len(n.Raw) {
			links[l.Start-n.BodyStart] = l
		}
	}
	md := goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithParserOptions(
			parser.WithAutoHeadingID(),
			parser.WithInlineParsers(util.Prioritized(&linkParser{links: links, self: n.Path, resolve: resolve}, 150)),
			parser.WithASTTransformers(util.Prioritized(safeURLs{}, 100)),
		),
		goldmark.WithRendererOptions(
			renderer.WithNodeRenderers(util.Prioritized(linkRenderer{}, 100)),
		),
	)
	var out bytes.Buffer
	if err := md.Convert(body, &out); err != nil {
		return "", err
	}
	return out.String(), nil
}

// kindNoteLink is the AST node kind of a resolved (or broken) note link.
var kindNoteLink = ast.NewNodeKind("NoteLink")

// noteLink is a link note.Parse found, with where it resolves.
type noteLink struct {
	ast.BaseInline
	text    string
	path    note.Path // "" when broken
	target  string    // the link as written, without alias
	heading string
	embed   bool
}

func (n *noteLink) Kind() ast.NodeKind { return kindNoteLink }

func (n *noteLink) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"path": string(n.path), "target": n.target}, nil)
}

// linkParser turns the links note.Parse found into noteLink nodes, at the very
// places it found them: goldmark and Norn agree on what is a link (a "[[" in
// code is neither's).
type linkParser struct {
	links   map[int]note.Link // by start offset in the body
	self    note.Path
	resolve resolveFunc
}

func (p *linkParser) Trigger() []byte { return []byte{'[', '!'} }

func (p *linkParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	line, seg := block.PeekLine()
	l, ok := p.links[seg.Start]
	if !ok || seg.Padding != 0 || l.End-l.Start > len(line) {
		return nil
	}
	raw := string(line[:l.End-l.Start])
	if l.Kind == note.LinkMarkdown && strings.HasPrefix(raw, "!") {
		return nil // an image stays an image
	}
	block.Advance(l.End - l.Start)
	nl := &noteLink{target: written(l), heading: l.Heading, embed: l.Kind == note.LinkEmbed}
	nl.text = l.Alias
	if nl.text == "" {
		nl.text = nl.target
	}
	if l.Target == "" && l.Kind != note.LinkMarkdown {
		nl.path = p.self // [[#Heading]]: this note
	} else if res := p.resolve(l); res.Status == graph.LinkResolved {
		nl.path = res.Target
	}
	return nl
}

// written is a link as written between its brackets, without the alias:
// "a/b#h" for [[a/b#h|x]].
func written(l note.Link) string {
	s := l.Target
	switch {
	case l.Heading != "":
		s += "#" + l.Heading
	case l.Block != "":
		s += "#^" + l.Block
	}
	return s
}

// linkRenderer renders noteLink nodes.
type linkRenderer struct{}

func (linkRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindNoteLink, func(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		n := node.(*noteLink)
		class := "wikilink"
		if n.embed {
			class += " embed"
		}
		esc := func(s string) { w.Write(util.EscapeHTML([]byte(s))) }
		if n.path == "" {
			w.WriteString(`<a class="` + class + ` broken" data-target="`)
			esc(n.target)
		} else {
			w.WriteString(`<a class="` + class + `" href="#/note/`)
			esc((&url.URL{Path: string(n.path)}).EscapedPath())
			w.WriteString(`" data-path="`)
			esc(string(n.path))
			if n.heading != "" {
				w.WriteString(`" data-heading="`)
				esc(n.heading)
			}
		}
		w.WriteString(`">`)
		esc(n.text)
		w.WriteString(`</a>`)
		return ast.WalkSkipChildren, nil
	})
}

// safeURLs empties every link and image destination that is not http(s),
// mailto, relative or a fragment (javascript:, data:, vbscript:, file: …):
// goldmark's own filter knows a list of bad schemes; this one knows the good.
type safeURLs struct{}

func (safeURLs) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	src := reader.Source()
	var unsafe []*ast.AutoLink
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch x := n.(type) {
		case *ast.Link:
			if !safeURL(x.Destination) {
				x.Destination = nil
			}
		case *ast.Image:
			if !safeURL(x.Destination) {
				x.Destination = nil
			}
		case *ast.AutoLink:
			if x.AutoLinkType == ast.AutoLinkURL && !safeURL(x.URL(src)) {
				unsafe = append(unsafe, x)
			}
		}
		return ast.WalkContinue, nil
	})
	for _, x := range unsafe {
		// An autolink's text is its address: keep it as (escaped) text, not a link.
		x.Parent().ReplaceChild(x.Parent(), x, ast.NewString(slices.Clone(x.Label(src))))
	}
}

// safeURL reports whether u is http(s), mailto, or has no scheme (a relative
// address or a fragment).
func safeURL(u []byte) bool {
	s := strings.TrimSpace(string(u))
	i := strings.IndexAny(s, ":/?#")
	if i < 0 || s[i] != ':' {
		return true // no scheme
	}
	switch strings.ToLower(s[:i]) {
	case "http", "https", "mailto":
		return true
	}
	return false
}
