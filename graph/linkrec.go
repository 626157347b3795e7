package graph

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/norn-vault/norn/note"
)

// Link graph key layout, beside the search tables in the same database and
// written in the same batches, so both always reflect the one commit in s/m/commit.
//
//	g/a/<path>   an attachment (any file that is not a note); empty value
//	g/c/<path>   the context line of each of the note's links, in the node record's order
//	g/n/<path>   node record of a note: names, tags, headings, links (see nodeRec)
//
// Only what each note says is stored; where its links point is worked out in memory
// when the index opens (linkGraph), because one note's change can re-point links in
// many others.
const (
	prefixGraph      = "g/"
	prefixNode       = "g/n/"
	prefixAttachment = "g/a/"
	prefixContext    = "g/c/"
)

// EdgeKindTyped is the Kind of a typed edge from a note's `edges:` list; the other
// kinds are note.LinkKind values.
const EdgeKindTyped = "edge"

// glink is one link of a note as written: a body link, or a typed edge. It is
// kept small (32 bytes) since the graph holds every link of the vault: what most
// links lack (a heading, a block, a typed edge's type and why) is behind more.
type glink struct {
	target string
	more   *glinkMore // nil when heading, block, etype and why are all empty
	line   int32
	kind   uint8 // an index in linkKinds; kindOther: the name is more.kind
}

// glinkMore is what a link has beside its target, kind and line.
type glinkMore struct {
	heading string
	block   string
	etype   string // a typed edge's type
	why     string // a typed edge's why
	kind    string // the kind's name when it is none of linkKinds
}

// linkKinds are the kinds a glink names by index.
var linkKinds = [...]string{string(note.LinkWiki), string(note.LinkEmbed), string(note.LinkMarkdown), EdgeKindTyped}

const (
	kindEdge  = 3
	kindOther = uint8(len(linkKinds))
)

var noMore glinkMore

// newGlink makes a link of kind (a note.LinkKind, or EdgeKindTyped); it is false
// when line does not fit.
func newGlink(kind, target, heading, block string, line uint64, etype, why string) (glink, bool) {
	l := glink{target: target, line: int32(line), kind: kindOther}
	for i, k := range linkKinds {
		if k == kind {
			l.kind = uint8(i)
		}
	}
	if l.kind == kindOther || heading != "" || block != "" || etype != "" || why != "" {
		l.more = &glinkMore{heading: heading, block: block, etype: etype, why: why}
		if l.kind == kindOther {
			l.more.kind = kind
		}
	}
	return l, line <= 1<<31-1
}

func (l *glink) extra() *glinkMore {
	if l.more == nil {
		return &noMore
	}
	return l.more
}

// kindName is the link's kind: a note.LinkKind, or EdgeKindTyped.
func (l *glink) kindName() string {
	if l.kind == kindOther {
		return l.more.kind
	}
	return linkKinds[l.kind]
}

func (l *glink) typed() bool     { return l.kind == kindEdge }
func (l *glink) heading() string { return l.extra().heading }
func (l *glink) etype() string   { return l.extra().etype }
func (l *glink) why() string     { return l.extra().why }

// asLink is the link as the resolver takes it (a typed edge resolves like a wikilink).
func (l *glink) asLink() note.Link {
	k := note.LinkKind(l.kindName())
	if l.typed() {
		k = note.LinkWiki
	}
	m := l.extra()
	return note.Link{Kind: k, Target: l.target, Heading: m.heading, Block: m.block}
}

// nodeRec is what the index keeps of one note for the link graph.
type nodeRec struct {
	names    nodeNames
	ntype    string // frontmatter `type`
	tags     []string
	unparsed bool
	links    []glink
	contexts []string // the line of each link (typed edges: the `why`)
}

// nodeRecOf extracts a note's node record. unparsed marks a note whose
// frontmatter broke the codec's rules (its body's links are still there).
func nodeRecOf(n *note.Note, unparsed bool) nodeRec {
	r := nodeRec{names: namesOf(n), tags: n.Tags, unparsed: unparsed}
	if n.Frontmatter != nil {
		if t, ok := n.Frontmatter.Fields["type"].(string); ok {
			r.ntype = strings.TrimSpace(t)
		}
	}
	r.links = make([]glink, 0, len(n.Links)+len(n.Edges))
	r.contexts = make([]string, 0, len(n.Links)+len(n.Edges))
	for _, l := range n.Links {
		gl, _ := newGlink(string(l.Kind), l.Target, l.Heading, l.Block, uint64(max(l.Line, 0)), "", "")
		r.links = append(r.links, gl)
		r.contexts = append(r.contexts, note.LineAt(n.Raw, l.Start))
	}
	for _, e := range n.Edges {
		target, heading, _ := strings.Cut(e.Target, "#")
		gl, _ := newGlink(EdgeKindTyped, target, heading, "", uint64(max(e.Line, 0)), e.Type, e.Why)
		r.links = append(r.links, gl)
		r.contexts = append(r.contexts, "")
	}
	return r
}

func (r *nodeRec) encode(dst []byte) []byte {
	flags := uint64(0)
	if r.unparsed {
		flags |= 1
	}
	dst = binary.AppendUvarint(dst, flags)
	dst = appendString(dst, r.names.title)
	dst = appendString(dst, r.ntype)
	dst = binary.AppendUvarint(dst, uint64(len(r.names.aliases)))
	for _, a := range r.names.aliases {
		dst = appendString(dst, a)
	}
	dst = binary.AppendUvarint(dst, uint64(len(r.tags)))
	for _, t := range r.tags {
		dst = appendString(dst, t)
	}
	dst = binary.AppendUvarint(dst, uint64(len(r.names.headings)))
	for _, h := range r.names.headings {
		dst = appendString(dst, h.key)
		dst = binary.AppendUvarint(dst, uint64(h.parent+1))
	}
	dst = binary.AppendUvarint(dst, uint64(len(r.links)))
	for _, l := range r.links {
		m := l.extra()
		dst = appendString(dst, l.kindName())
		dst = appendString(dst, l.target)
		dst = appendString(dst, m.heading)
		dst = appendString(dst, m.block)
		dst = binary.AppendUvarint(dst, uint64(l.line))
		dst = appendString(dst, m.etype)
		dst = appendString(dst, m.why)
	}
	return dst
}

// encodeContexts encodes the context lines, kept apart from the node record so
// that opening the index reads only what the graph needs.
func (r *nodeRec) encodeContexts(dst []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(r.contexts)))
	for _, c := range r.contexts {
		dst = appendString(dst, c)
	}
	return dst
}

// decodeNodeRec decodes a node record of the note at p (without its contexts).
// Strings repeated across records (link targets, kinds, edge types, tags) are
// shared through intern when it is not nil.
func decodeNodeRec(p note.Path, b []byte, intern map[string]string) (nodeRec, error) {
	d := decoder{b: b, intern: intern}
	var r nodeRec
	r.names.path = p
	r.unparsed = d.uvarint()&1 != 0
	r.names.title = d.string()
	r.ntype = d.string()
	n := d.count()
	for range n {
		r.names.aliases = append(r.names.aliases, d.string())
	}
	n = d.count()
	for range n {
		r.tags = append(r.tags, d.shared())
	}
	n = d.count()
	r.names.headings = make([]resolveHeading, 0, n)
	for range n {
		k := d.shared()
		parent := int(d.uvarint()) - 1
		if parent >= len(r.names.headings) {
			d.err = errBadRecord
		}
		r.names.headings = append(r.names.headings, resolveHeading{key: k, parent: parent})
	}
	n = d.count()
	r.links = make([]glink, 0, n)
	for range n {
		kind, target, heading, block, line := d.shared(), d.shared(), d.shared(), d.string(), d.uvarint()
		l, ok := newGlink(kind, target, heading, block, line, d.shared(), d.string())
		if !ok {
			d.err = errBadRecord
		}
		r.links = append(r.links, l)
	}
	if d.err != nil || len(d.b) != 0 {
		return r, fmt.Errorf("node record %s: %w", p, errBadRecord)
	}
	return r, nil
}

// shared reads a string, returning the interned copy when the decoder interns.
func (d *decoder) shared() string {
	if d.intern == nil {
		return d.string()
	}
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = errBadRecord
		return ""
	}
	b := d.b[:n]
	d.b = d.b[n:]
	if s, ok := d.intern[string(b)]; ok {
		return s
	}
	s := string(b)
	d.intern[s] = s
	return s
}

// count reads a list length, refusing one longer than the bytes left could hold.
func (d *decoder) count() int {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.err = errBadRecord
		return 0
	}
	return int(n)
}

func nodeKey(prefix string, p note.Path) []byte {
	return append([]byte(prefix), p...)
}
