package hooks

import "github.com/norn-vault/norn/note"

// Kind is what a Change does to its path.
type Kind string

const (
	// KindPut creates or updates the note at Path with New.
	KindPut Kind = "put"
	// KindArchive removes Path from the tree (its bytes stay in history).
	KindArchive Kind = "archive"
	// KindMove moves the note at From to Path, with New as its bytes at Path (a
	// move may rewrite the note, e.g. its links).
	KindMove Kind = "move"
	// KindRestore brings back an archived revision at Path (exclusive create).
	KindRestore Kind = "restore"
)

// Change is one path's part of a proposal.
type Change struct {
	Kind Kind
	// Path is the target path (for a move: the new path).
	Path note.Path
	// From is the old path of a move; "" for every other kind.
	From note.Path
	// Old is the current bytes at HEAD, nil when the path does not exist (for a
	// move: the bytes at From).
	Old []byte
	// New is the proposed bytes; nil for an archive.
	New []byte
}

// Proposal is everything one commit would change, with who asks for it.
type Proposal struct {
	Writer Writer
	// Op is the commit's Norn-Op (write, edit, move, link, archive, restore, capture,
	// external, import). The gates do not branch on it; it is carried for callers
	// and messages.
	Op      string
	Changes []Change
	// IsSymlink reports whether a path (a folder prefix such as "a/b", or the file
	// "a/b/c.md") is a symlink in the working tree or HEAD; nil means "no symlinks".
	// Used by the path-symlink-escape rule.
	IsSymlink func(p string) bool
	// EdgeTargets, when set, says where typed edges point in the vault as the
	// proposal would leave it; the edge-target-missing and edge-target-ambiguous
	// rules use it for the edges a put or a move adds or rewrites. Nil skips them.
	EdgeTargets EdgeResolver
	// Twins and Names look into the tree the proposal applies to (HEAD): the
	// path-case-collision rule compares a path a change creates with the names
	// beside it there that fold alike (Twins; nil: Names, folding every name), and
	// Names lists a folder (to tell whether a change empties it). Both nil compare
	// the proposal's own paths only.
	Twins TwinsFunc
	Names NamesFunc
}
