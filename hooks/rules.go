package hooks

// Rule ids of the write gates. They are stable: the CLI, MCP clients and docs branch
// on them. The note codec's rules (invalid-utf8, frontmatter-unterminated,
// frontmatter-too-large, yaml-syntax, frontmatter-not-mapping, yaml-duplicate-key,
// yaml-alias, edges-invalid, tags-invalid, aliases-invalid) are reported under the
// note package's ids (note.Rule). docs/gates.md explains each rule and its fix.
const (
	// Path safety: every profile.
	RulePathInvalid       = "path-invalid"        // empty, NUL, control, backslash, "//", ".", trailing "/", bad UTF-8, > 1024 bytes, a name > 255 bytes or starting ".norn-tmp-"
	RulePathAbsolute      = "path-absolute"       // "/x", "C:…"
	RulePathDotDot        = "path-dotdot"         // a ".." component
	RulePathGitDir        = "path-git-dir"        // a ".git" component, in any case or disguise
	RulePathNornDir       = "path-norn-dir"       // under .norn/ without the maintenance, admin or owner role
	RulePathNotMarkdown   = "path-not-markdown"   // not ".md" (under .norn/: not ".yaml")
	RulePathSymlinkEscape = "path-symlink-escape" // the path or a folder on it is a symlink
	// For a path the change creates (a new note, a move's new path, a restore):
	// names a clone on Windows or macOS could not check out.
	RulePathPortable      = "path-portable"       // a Windows device name, < > : " | ? *, a name starting with a space or ending in a dot or space, an invisible or bidi character
	RulePathCaseCollision = "path-case-collision" // equal, ignoring case and Unicode normalisation, to a different path at HEAD or in the change

	// Content: every profile.
	RuleContentNUL = "content-nul" // the write adds a NUL byte (git would take the note for a binary file)

	// Size: every profile.
	RuleNoteTooLarge = "note-too-large" // more than gates.max_note_bytes

	// RuleNoteInvalid is a note the codec refused without saying which rule; it
	// should not happen.
	RuleNoteInvalid = "note-invalid"

	// Profile default (and strict).
	RuleTitleMissing = "title-missing" // no title from frontmatter, H1 or file name
	RuleTagsFormat   = "tags-format"   // a frontmatter tag that is not lowercase kebab-case
	RuleFinalNewline = "final-newline" // the file does not end with "\n"

	// Profile strict only (Muninn's contract).
	RuleTitleRequired      = "title-required"       // no non-empty `title`
	RuleTypeRequired       = "type-required"        // no non-empty `type`
	RuleStatusRequired     = "status-required"      // no non-empty `status`
	RuleTagsCount          = "tags-count"           // not 2–5 distinct kebab-case tags
	RuleUpdatedDate        = "updated-date"         // `updated` missing or not a real date
	RuleAliasesForbidden   = "aliases-forbidden"    // an `aliases` (or `alias`) key
	RuleFinalNewlineSingle = "final-newline-single" // blank lines after the last line

	// Typed edges: profiles default and strict.
	RuleEdgeTypeUnknown = "edge-type-unknown" // type not in edges.types
	RuleEdgeWhyShort    = "edge-why-short"    // why shorter than edges.min_why
	RuleEdgeWhyRestates = "edge-why-restates" // why only restates the type or target, or < 3 words
	RuleEdgeSelf        = "edge-self"         // an edge to the note itself
	// With a Proposal.EdgeTargets, for the edges a change adds or rewrites.
	RuleEdgeTargetMissing   = "edge-target-missing"   // the edge's `to` names no note (or an attachment)
	RuleEdgeTargetAmbiguous = "edge-target-ambiguous" // the edge's `to` names several notes

	// Guards on existing content: every profile.
	RuleProtectedBlockChanged = "protected-block-changed" // a protected block changed or removed without the maintenance role
	RulePrivateNote           = "private-note"            // a private note overwritten, moved or archived by an agent
)
