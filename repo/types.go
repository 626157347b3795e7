package repo

import (
	"time"

	"github.com/norn-vault/norn/note"
)

// Revision is a note's revision: the hex id of its git blob.
type Revision string

// CommitID is the hex id of a git commit.
type CommitID string

// Short returns the first 12 characters of the id.
func (c CommitID) Short() string {
	if len(c) > 12 {
		return string(c[:12])
	}
	return string(c)
}

// Author is the person or agent on whose behalf a commit is made.
type Author struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

// Op is the Norn-Op trailer: what kind of operation a commit records.
type Op string

// The operations a commit can record.
const (
	OpWrite    Op = "write"
	OpEdit     Op = "edit"
	OpMove     Op = "move"
	OpLink     Op = "link"
	OpArchive  Op = "archive"
	OpRestore  Op = "restore"
	OpCapture  Op = "capture"
	OpClaim    Op = "claim"
	OpMerge    Op = "merge"
	OpExternal Op = "external"
	OpImport   Op = "import"
)

// Reason is why a note was archived (the Norn-Reason trailer).
type Reason string

// The archive reasons.
const (
	ReasonArchived   Reason = "archived"
	ReasonSuperseded Reason = "superseded"
	ReasonRetracted  Reason = "retracted"
)

// Valid reports whether r is one of the archive reasons.
func (r Reason) Valid() bool {
	return r == ReasonArchived || r == ReasonSuperseded || r == ReasonRetracted
}

// ChangeKind is what one change in a transaction does.
type ChangeKind string

// The change kinds. There is no delete: archive removes a path from the tree in a
// commit that records the reason, and its bytes stay in history.
const (
	// Put creates a note (ExpectedRevision empty; the path must not exist) or updates
	// it (ExpectedRevision must be its current revision).
	Put ChangeKind = "put"
	// Archive removes the path from HEAD's tree. ExpectedRevision, when set, must match.
	Archive ChangeKind = "archive"
	// Restore creates Path (which must not exist) from its bytes at commit From, or
	// from the blob Revision when FromRevision is set.
	Restore ChangeKind = "restore"
	// Move renames From to Path (which must not exist). Content, when non-nil,
	// replaces the bytes in the same commit.
	Move ChangeKind = "move"
)

// Change is one path's part of a transaction.
type Change struct {
	Kind ChangeKind
	Path note.Path
	// From is the old path of a Move.
	From note.Path
	// Content is the new bytes of a Put (required) or a Move (optional).
	Content []byte
	// ExpectedRevision guards the change; see the kinds.
	ExpectedRevision Revision
	// FromCommit is the commit a Restore takes the path's bytes from; FromRevision,
	// when set instead, names the blob directly.
	FromCommit   string
	FromRevision Revision
}

// Tx is one transaction: it becomes exactly one commit, or nothing.
type Tx struct {
	Author Author
	// Roles are the writer's roles, passed to the gate ("owner", "agent",
	// "maintenance", "private", "admin").
	Roles []string
	Op    Op
	// Message is the commit subject: one line of at most MaxSubjectBytes bytes
	// without control characters (ValidSubject; spaces around it are trimmed). Empty:
	// a default is derived from the changes. The trailers (Norn-Op, …) follow it, so
	// a subject that could carry lines of its own is refused (ErrInvalid).
	Message string
	// Reason is required when the transaction archives.
	Reason  Reason
	Changes []Change
	// DryRun checks everything (revisions, gates) and reports what would change,
	// writing nothing.
	DryRun bool
	// Base, when set, is the commit the transaction was worked out at: it commits
	// only on top of that commit, else it is a *StaleBaseError and nothing is
	// written. For changes computed from the whole vault (a move rewriting every
	// link to a note), which any commit in between could leave incomplete.
	Base CommitID
}

// FileChange is one path changed by a commit.
type FileChange struct {
	Kind ChangeKind `json:"kind"`
	Path note.Path  `json:"path"`
	From note.Path  `json:"from,omitempty"`
	// Revision is the new revision ("" for archive); OldRevision the one replaced
	// ("" for a create).
	Revision    Revision `json:"revision,omitempty"`
	OldRevision Revision `json:"old_revision,omitempty"`
}

// Result is what a transaction did (or, for a dry run, would do).
type Result struct {
	Commit CommitID `json:"commit,omitempty"`
	Parent CommitID `json:"parent,omitempty"`
	DryRun bool     `json:"dry_run,omitempty"`
	// Unchanged: every change put a note's current bytes back, so nothing was (or,
	// for a dry run, would be) committed: Commit is "" and Changes is empty.
	Unchanged bool         `json:"unchanged,omitempty"`
	Changes   []FileChange `json:"changes"`
}

// Commit is one commit of the vault's history as Norn reads it.
type Commit struct {
	ID        CommitID   `json:"commit"`
	Parents   []CommitID `json:"parents"`
	Author    Author     `json:"author"`
	Committer Author     `json:"committer"`
	When      time.Time  `json:"time"`
	Subject   string     `json:"subject"`
	Message   string     `json:"message"`
	Op        Op         `json:"op,omitempty"`
	Reason    Reason     `json:"reason,omitempty"`
	Txn       string     `json:"txn,omitempty"`
}

// Blob is a note's bytes at some commit.
type Blob struct {
	Path     note.Path `json:"path"`
	Revision Revision  `json:"revision"`
	Commit   CommitID  `json:"commit"`
	Content  []byte    `json:"-"`
}

// Entry is one item of a folder listing. Every entry has every field: a file's
// Revision is its blob id, a folder's its tree id (as git ls-tree shows them).
type Entry struct {
	Path     note.Path `json:"path"`
	Dir      bool      `json:"dir"`
	Revision Revision  `json:"revision"`
}
