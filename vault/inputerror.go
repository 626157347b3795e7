package vault

import (
	"fmt"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// InputError is an operation's refusal of its arguments, with a message that says
// how to fix them. It wraps repo.ErrInvalid or, for a note or section that is not
// there, repo.ErrNotFound, so callers classify it with errors.Is; nothing was
// written.
type InputError struct {
	// Kind is repo.ErrInvalid or repo.ErrNotFound.
	Kind error
	// Path is the note the error is about, when there is one.
	Path note.Path
	Msg  string
}

func (e *InputError) Error() string { return e.Msg }
func (e *InputError) Unwrap() error { return e.Kind }

// invalidf is an InputError wrapping repo.ErrInvalid.
func invalidf(format string, args ...any) *InputError {
	return &InputError{Kind: repo.ErrInvalid, Msg: fmt.Sprintf(format, args...)}
}

// missingf is an InputError wrapping repo.ErrNotFound.
func missingf(p note.Path, format string, args ...any) *InputError {
	return &InputError{Kind: repo.ErrNotFound, Path: p, Msg: fmt.Sprintf(format, args...)}
}
