package note

// Path is a note's slash-separated path relative to the vault root, e.g.
// "tech/bloom-filters.md". It never starts with "/" and never contains "..".
type Path string

// Note is a parsed Markdown note. Every byte offset refers to Raw.
type Note struct {
	Path Path
	// Raw is the exact input; Bytes returns it unchanged for an unmodified note.
	Raw []byte
	// Frontmatter is nil when the note has none.
	Frontmatter *Frontmatter
	// BodyStart is the offset in Raw where the body starts (after the closing
	// frontmatter delimiter line, or 0).
	BodyStart int

	Title       string
	TitleSource TitleSource
	// Tags holds frontmatter tags then inline #tags, deduplicated case-insensitively,
	// in first-seen order, without the leading '#'. Nested tags keep their '/'.
	Tags    []string
	Aliases []string
	Edges   []Edge
	Links   []Link
	// Headings is the flat list of headings in document order; each has its parent
	// and children set, and Roots holds the top of the tree.
	Headings []*Heading
	Roots    []*Heading
}

// TitleSource says where a note's title came from.
type TitleSource string

// The places a title comes from, in the order they are tried.
const (
	TitleFromFrontmatter TitleSource = "frontmatter" // a non-empty `title:` value
	TitleFromHeading     TitleSource = "h1"          // the first non-empty level-1 heading
	TitleFromPath        TitleSource = "path"        // the file name without ".md"
)

// LinkKind is the syntax a link was written in.
type LinkKind string

// The link kinds. A Markdown image of a note, "![alt](note.md)", is LinkMarkdown.
const (
	LinkWiki     LinkKind = "wikilink" // [[target]]
	LinkEmbed    LinkKind = "embed"    // ![[target]]
	LinkMarkdown LinkKind = "markdown" // [text](relative/path.md)
)

// Link is one link occurrence outside code.
type Link struct {
	Kind LinkKind
	// Target is the link target as written, without the #fragment, alias or, for
	// Markdown links, URL escapes (percent-decoded). For "[[a/b#h|x]]" it is "a/b".
	// It is empty for a same-note heading link such as "[[#Heading]]". A Markdown
	// link's target is a path relative to the note's folder, kept as written
	// ("../a/b.md"); a wikilink's is a vault-wide name or path.
	Target string
	// Heading is the heading fragment ("h" above), empty if none.
	Heading string
	// Block is the block id of "[[t#^id]]", without "^", empty if none.
	Block string
	// Alias is the display text ("x" above, or a Markdown link's text), empty if none.
	Alias string
	// Line is 1-based; Start and End are the byte range of the whole link in Raw.
	Line       int
	Start, End int
}

// Edge is one typed edge from the note's frontmatter `edges:` list.
type Edge struct {
	// To is the entry's `to` as written (e.g. "[[Count-min sketch]]"); Target is the
	// link target inside it ("Count-min sketch").
	To     string
	Target string
	Type   string
	Why    string
	// Line is the 1-based line in Raw where the entry starts.
	Line int
}

// Heading is one ATX heading ("# Title") outside code.
type Heading struct {
	Level int
	Text  string
	// Line is 1-based. Start is the offset of the heading line; End is where its
	// section ends (the next heading of the same or a higher level, or len(Raw)).
	Line       int
	Start, End int
	Parent     *Heading
	Children   []*Heading
}

// Size is the byte size of the heading's section, heading line included.
func (h *Heading) Size() int { return h.End - h.Start }
