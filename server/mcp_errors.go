package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// ErrorClass says what a caller should do about a failed tool call.
type ErrorClass string

// The error classes.
const (
	// ClassRetryable: the same call may succeed later (after re-reading a note that
	// changed, or once the server is back).
	ClassRetryable ErrorClass = "retryable"
	// ClassFixInput: the arguments are wrong; change them before calling again.
	ClassFixInput ErrorClass = "fix_input"
	// ClassFatal: retrying cannot help (missing permission, a bug in the server).
	ClassFatal ErrorClass = "fatal"
)

// ErrorCode is a stable identifier of what went wrong; clients branch on it, never on
// the message.
type ErrorCode string

// The error codes.
const (
	CodeConflict     ErrorCode = "conflict"
	CodeGitBusy      ErrorCode = "git_busy"
	CodeNotFound     ErrorCode = "not_found"
	CodeGateRejected ErrorCode = "gate_rejected"
	CodeInvalidInput ErrorCode = "invalid_input"
	CodeForbidden    ErrorCode = "forbidden"
	CodeIndexStale   ErrorCode = "index_stale"
	CodeClosed       ErrorCode = "closed"
	CodeInternal     ErrorCode = "internal"
)

// ToolError is the structured content of a failed MCP tool call (isError: true).
// Message says how to recover.
type ToolError struct {
	Class   ErrorClass `json:"class"`
	Code    ErrorCode  `json:"code"`
	Message string     `json:"message"`
	// Path is the note the error is about, when there is one.
	Path note.Path `json:"path,omitempty"`
	// ExpectedRevision and CurrentRevision are those of a conflict ("" current: the
	// note does not exist).
	ExpectedRevision repo.Revision `json:"expected_revision,omitempty"`
	CurrentRevision  repo.Revision `json:"current_revision,omitempty"`
	// Violations are every write-gate rule a rejected write broke.
	Violations []hooks.Violation `json:"violations,omitempty"`
	// Candidates are the notes an ambiguous name matches.
	Candidates []note.Path `json:"candidates,omitempty"`
}

func (e *ToolError) Error() string { return string(e.Code) + ": " + e.Message }

// errInput is a fix_input/invalid_input error about the arguments.
func errInput(format string, args ...any) *ToolError {
	return &ToolError{Class: ClassFixInput, Code: CodeInvalidInput, Message: fmt.Sprintf(format, args...)}
}

// errNotFound is a fix_input/not_found error.
func errNotFound(p note.Path, format string, args ...any) *ToolError {
	return &ToolError{Class: ClassFixInput, Code: CodeNotFound, Path: p, Message: fmt.Sprintf(format, args...)}
}

// errForbidden is a fatal/forbidden error: the caller may not do this.
func errForbidden(format string, args ...any) *ToolError {
	return &ToolError{Class: ClassFatal, Code: CodeForbidden, Message: fmt.Sprintf(format, args...)}
}

// errInvisible is what a principal without the private scope gets for a private
// note: exactly what it would get for a note that does not exist.
func errInvisible(p note.Path) *ToolError {
	return errNotFound(p, "no note %s: check the path with list_notes or search", p)
}

// ToolErrorFrom classifies err. It is the one mapping from Norn's errors to tool
// errors; hide, when set, reports notes the caller may not see (their revisions are
// left out of conflicts).
func ToolErrorFrom(err error, hide func(note.Path) bool) *ToolError {
	var te *ToolError
	if errors.As(err, &te) {
		return te
	}
	var ce *repo.ConflictError
	var busy *repo.BusyError
	var rej *hooks.Rejection
	switch {
	case errors.As(err, &busy) && busy.Locked:
		return &ToolError{Class: ClassRetryable, Code: CodeGitBusy,
			Message: busy.Error() + ". Nothing was written. git is busy for a moment (a person's git command): retry in a second or two"}
	case errors.As(err, &busy):
		return &ToolError{Class: ClassRetryable, Code: CodeGitBusy,
			Message: busy.Error() + ". Nothing was written. A person has to finish that in git; tell the user — retrying before then fails the same way"}
	case errors.As(err, &ce):
		return conflictError(ce, hide)
	case errors.Is(err, repo.ErrConflict): // repo.StaleBaseError
		return &ToolError{Class: ClassRetryable, Code: CodeConflict, Message: err.Error() + "; retry the call"}
	case errors.As(err, &rej):
		return rejectionError(rej)
	case errors.Is(err, repo.ErrRejected), errors.Is(err, hooks.ErrRejected):
		return &ToolError{Class: ClassFixInput, Code: CodeGateRejected,
			Message: fmt.Sprintf("%v; fix the note and retry (nothing was written)", err)}
	case errors.Is(err, ErrForbidden):
		return &ToolError{Class: ClassFatal, Code: CodeForbidden, Message: err.Error()}
	case errors.Is(err, repo.ErrNotFound):
		return &ToolError{Class: ClassFixInput, Code: CodeNotFound,
			Message: fmt.Sprintf("%v; check the path or commit (list_notes, search, history) and retry", err)}
	case errors.Is(err, repo.ErrInvalid), errors.Is(err, note.ErrInvalid), errors.Is(err, note.ErrUneditable),
		errors.Is(err, graph.ErrQuery), errors.Is(err, config.ErrInvalid):
		return &ToolError{Class: ClassFixInput, Code: CodeInvalidInput,
			Message: fmt.Sprintf("%v; fix the arguments and retry (nothing was written)", err)}
	case errors.Is(err, ErrIndexUnavailable):
		return &ToolError{Class: ClassRetryable, Code: CodeIndexStale,
			Message: fmt.Sprintf("%v; the index is being built or repaired: retry in a few seconds (search still answers, labelled)", err)}
	case errors.Is(err, repo.ErrClosed):
		return &ToolError{Class: ClassRetryable, Code: CodeClosed,
			Message: "the vault is closing (the server is shutting down); reconnect and retry"}
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return &ToolError{Class: ClassRetryable, Code: CodeInternal,
			Message: fmt.Sprintf("%v: the call was cancelled or ran out of time; retry", err)}
	}
	return &ToolError{Class: ClassFatal, Code: CodeInternal,
		Message: fmt.Sprintf("internal error: %v; this is a bug or a damaged vault (run `norn doctor`), not something a retry fixes", err)}
}

func conflictError(ce *repo.ConflictError, hide func(note.Path) bool) *ToolError {
	te := &ToolError{Class: ClassRetryable, Code: CodeConflict, Path: ce.Path}
	switch {
	case ce.Path == "":
		te.Message = "another writer committed at the same moment (" + ce.Reason + "); retry the call"
	case hide != nil && hide(ce.Path):
		te.Path = ""
		te.Message = "a note this change touches changed meanwhile; re-read the notes you are changing and retry"
	case ce.Current == "":
		te.ExpectedRevision = ce.Expected
		te.Message = fmt.Sprintf("%v. %s does not exist at HEAD (archived or moved?): create it without expected_revision, or bring it back with restore_note", ce, ce.Path)
	default:
		te.ExpectedRevision, te.CurrentRevision = ce.Expected, ce.Current
		te.Message = fmt.Sprintf("%v. Re-read the note (read_note path=%s), merge your change into it, and retry with expected_revision=%s",
			ce, ce.Path, ce.Current)
	}
	return te
}

func rejectionError(rej *hooks.Rejection) *ToolError {
	var b strings.Builder
	fmt.Fprintf(&b, "the write gates rejected the change (%d violation", len(rej.Violations))
	if len(rej.Violations) != 1 {
		b.WriteString("s")
	}
	b.WriteString("); nothing was written. Fix every one and retry:")
	for _, v := range rej.Violations {
		loc := string(v.Path)
		if v.Line > 0 {
			loc = fmt.Sprintf("%s:%d", v.Path, v.Line)
		}
		fmt.Fprintf(&b, " [%s] %s: %s;", v.Rule, loc, v.Message)
	}
	return &ToolError{Class: ClassFixInput, Code: CodeGateRejected,
		Message: strings.TrimSuffix(b.String(), ";"), Violations: rej.Violations}
}

// toolErrorResult turns a classified error into a tool result: isError, the error as
// structured content, and the same JSON as text for clients that only read text.
func toolErrorResult(te *ToolError) *mcp.CallToolResult {
	text, err := json.Marshal(te)
	if err != nil {
		text = []byte(te.Error())
	}
	// The error travels as JSON text only, not as structuredContent: clients on the
	// TypeScript SDK 1.x (Claude Code, Claude Desktop, the MCP Inspector) check
	// structuredContent against the tool's output schema even when isError is set,
	// and would replace this message with a schema error (typescript-sdk issues
	// 1943, 2748).
	return &mcp.CallToolResult{
		Content: []mcp.Content{mcp.TextContent{Type: mcp.ContentTypeText, Text: string(text)}},
		IsError: true,
	}
}
