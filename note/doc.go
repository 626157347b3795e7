// Package note is Norn's Markdown codec: it parses a note's bytes into frontmatter,
// title, tags, aliases, typed edges, links and a heading tree, and serialises it back.
//
// It is pure: no I/O, no clock, no globals, and it imports nothing of Norn's. Parsing an
// unchanged note and serialising it again gives back the exact input bytes.
package note
