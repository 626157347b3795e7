// Package note is Norn's Markdown codec: it parses a note's bytes into frontmatter,
// title, tags, aliases, typed edges, links and a heading tree, and serialises it back.
//
// It is pure: no I/O, no clock, no globals, and it imports nothing of Norn's. Parsing an
// unchanged note and serialising it again gives back the exact input bytes.
//
// Parse checks the note against the rules in errors.go and returns a *Note; SetField
// and DeleteField edit one frontmatter key without touching any other byte; Section
// and Note.Outline work on the heading tree. docs/vault-format.md describes exactly
// what the codec accepts and refuses.
//
// Merge3 merges two versions of a note against their common base (frontmatter key by
// key, body line by line) for sync; it never writes conflict markers and never fails:
// what both sides changed differently keeps ours and is reported, and ConflictPath,
// ConflictNote and ConflictTrailer build the sibling note that keeps theirs
// (docs/sync.md).
package note
