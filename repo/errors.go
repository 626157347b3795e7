package repo

import (
	"errors"
	"fmt"

	"github.com/norn-vault/norn/note"
)

// Sentinel errors. Callers match them with errors.Is; the concrete errors below carry
// the detail.
var (
	// ErrConflict: the note's current revision is not the one the writer expected
	// (including a create over an existing path, and an update of a missing one), or the
	// branch moved underneath a write. Nothing was changed. See *ConflictError.
	ErrConflict = errors.New("conflict")
	// ErrNotFound: no such note, folder, commit or revision.
	ErrNotFound = errors.New("not found")
	// ErrRejected: a write gate rejected the change; the gate's error is wrapped too.
	ErrRejected = errors.New("rejected")
	// ErrInvalid: the request itself is malformed (bad path, empty transaction, unknown
	// reason, …). Nothing was changed.
	ErrInvalid = errors.New("invalid request")
	// ErrNotVault: the directory is not a git repository Norn can use.
	ErrNotVault = errors.New("not a vault")
	// ErrClosed: the vault was closed.
	ErrClosed = errors.New("vault closed")
)

// ConflictError says which path conflicted and what its current revision is ("" when
// the path does not exist at HEAD). It matches ErrConflict.
type ConflictError struct {
	Path     note.Path
	Expected Revision
	Current  Revision
	Reason   string
}

func (e *ConflictError) Error() string {
	if e.Path == "" && e.Expected == "" && e.Current == "" {
		return "conflict: " + e.Reason // about the vault, not one note
	}
	cur := string(e.Current)
	if cur == "" {
		cur = "none (the note does not exist)"
	}
	exp := string(e.Expected)
	if exp == "" {
		exp = "none (create)"
	}
	msg := fmt.Sprintf("conflict on %s: expected revision %s, current revision %s", e.Path, exp, cur)
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

// Is makes errors.Is(err, ErrConflict) true.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// invalidf returns an error matching ErrInvalid.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// notFoundf returns an error matching ErrNotFound.
func notFoundf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrNotFound, fmt.Sprintf(format, args...))
}

// StaleBaseError: a transaction with a Base met another HEAD (a write landed after
// it was worked out). It matches ErrConflict; work the change out again.
type StaleBaseError struct {
	Base, Head CommitID
}

func (e *StaleBaseError) Error() string {
	return fmt.Sprintf("conflict: the vault moved from %.12s to %.12s while this change was worked out; work it out again", e.Base, e.Head)
}

// Is makes errors.Is(err, ErrConflict) true.
func (e *StaleBaseError) Is(target error) bool { return target == ErrConflict }
