package errcode

import (
	"context"
	"errors"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/rerank"
	"github.com/norn-vault/norn/sync/remote"
)

// Coded is an error that knows its code: a surface's own sentinel (New), or a
// failure another process classified (the local endpoint's answer). Classify
// returns its code before looking at anything else.
type Coded interface {
	error
	ErrorCode() Code
}

// Error is a sentinel that carries its code, for the errors a surface owns (a
// forbidden change, an index not ready yet). Match it with errors.Is.
type Error struct {
	code Code
	msg  string
}

// New returns a sentinel with message msg that Classify reports as c.
func New(c Code, msg string) *Error { return &Error{code: c, msg: msg} }

func (e *Error) Error() string { return e.msg }

// ErrorCode is e's code.
func (e *Error) ErrorCode() Code { return e.code }

// Classify is the one mapping from an error to its code: errors.Is and errors.As
// over the parts' sentinels, nothing else. A nil error has no code (""); an error
// it does not know is Internal.
func Classify(err error) Code {
	if err == nil {
		return ""
	}
	var coded Coded
	var busy *repo.BusyError
	switch {
	case errors.As(err, &coded):
		return coded.ErrorCode()
	case errors.As(err, &busy): // matches repo.ErrConflict too: first
		return GitBusy
	case errors.Is(err, repo.ErrConflict):
		return Conflict
	case errors.Is(err, repo.ErrRejected), errors.Is(err, hooks.ErrRejected):
		return GateRejected
	case errors.Is(err, repo.ErrNotFound), errors.Is(err, graph.ErrUnknownNote):
		return NotFound
	case errors.Is(err, repo.ErrInvalid), errors.Is(err, note.ErrInvalid), errors.Is(err, note.ErrUneditable),
		errors.Is(err, note.ErrRewrite), errors.Is(err, note.ErrMachineName), errors.Is(err, graph.ErrQuery), errors.Is(err, graph.ErrArg),
		errors.Is(err, config.ErrInvalid), errors.Is(err, rerank.ErrConfig), errors.Is(err, rerank.ErrEgress),
		errors.Is(err, rerank.ErrMode):
		return InvalidInput
	case errors.Is(err, repo.ErrNotVault):
		return NotAVault
	case errors.Is(err, graph.ErrUnavailable), errors.Is(err, graph.ErrLocked):
		return IndexStale
	case errors.Is(err, repo.ErrClosed), errors.Is(err, graph.ErrClosed):
		return Closed
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return Canceled
	case errors.Is(err, remote.ErrUnreachable):
		return RemoteUnreachable
	case errors.Is(err, remote.ErrRejected):
		return RemoteRejected
	}
	// graph.ErrFormat, graph.ErrCorrupt, graph.ErrInvalidBatch and
	// hooks.ErrInvalidProposal are bugs or damage: Internal, with everything else.
	return Internal
}
