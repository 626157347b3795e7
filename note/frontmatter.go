package note

// Frontmatter is a note's YAML frontmatter block.
type Frontmatter struct {
	// Start and End are the byte range in Note.Raw of the whole block, both "---"
	// delimiter lines included (End is where the body starts).
	Start, End int
	// YAML is the text between the delimiters.
	YAML []byte
	// Keys are the top-level keys in document order; KeyLines maps each to its
	// 1-based line in Note.Raw.
	Keys     []string
	KeyLines map[string]int
	// Fields holds the decoded top-level values: string, bool, int, float64,
	// time.Time (YAML timestamps), nil, []any and map[string]any.
	Fields map[string]any
}
