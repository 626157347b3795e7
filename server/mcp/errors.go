package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/norn-vault/norn/errcode"
	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// ErrorClass says what a caller should do about a failed tool call; ErrorCode is
// a stable identifier of what went wrong. Both are errcode's vocabulary, the one
// every surface renders.
type (
	ErrorClass = errcode.Class
	ErrorCode  = errcode.Code
)

// The error classes.
const (
	ClassRetryable = errcode.Retryable
	ClassFixInput  = errcode.FixInput
	ClassFatal     = errcode.Fatal
)

// The error codes tools answer with (errcode's, as docs/mcp-tools.md lists them).
const (
	CodeConflict     = errcode.Conflict
	CodeGitBusy      = errcode.GitBusy
	CodeNotFound     = errcode.NotFound
	CodeGateRejected = errcode.GateRejected
	CodeInvalidInput = errcode.InvalidInput
	CodeForbidden    = errcode.Forbidden
	CodeIndexStale   = errcode.IndexStale
	CodeClosed       = errcode.Closed
	CodeInternal     = errcode.Internal
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

// ErrorCode makes a tool error keep its code wherever it is classified again.
func (e *ToolError) ErrorCode() errcode.Code { return e.Code }

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
	m := vault.MissingAt(p, "")
	return errNotFound(p, "%s", m.Msg)
}

// ToolErrorFrom renders err as a tool error: its code and class are those of
// errcode.Classify, the one mapping from Norn's errors to codes; the message adds
// how to recover. hide, when set, reports notes the caller may not see (their
// revisions are left out of conflicts).
func ToolErrorFrom(err error, hide func(note.Path) bool) *ToolError {
	var te *ToolError
	if errors.As(err, &te) {
		return te
	}
	code := errcode.Classify(err)
	in := code.Info()
	te = &ToolError{Class: in.Class, Code: ErrorCode(in.MCP)}
	var ce *repo.ConflictError
	var busy *repo.BusyError
	var rej *hooks.Rejection
	switch {
	case code == errcode.GitBusy && errors.As(err, &busy) && busy.Locked:
		te.Message = busy.Error() + ". Nothing was written. git is busy for a moment (a person's git command): retry in a second or two"
	case code == errcode.GitBusy && busy != nil:
		te.Message = busy.Error() + ". Nothing was written. A person has to finish that in git; tell the user — retrying before then fails the same way"
	case code == errcode.Conflict && errors.As(err, &ce):
		return conflictError(ce, hide)
	case code == errcode.GateRejected && errors.As(err, &rej):
		return rejectionError(rej)
	case code == errcode.Forbidden:
		te.Message = err.Error()
	case code == errcode.Closed:
		te.Message = "the vault is closing (the server is shutting down); " + in.Hint
	case code == errcode.Canceled:
		te.Message = fmt.Sprintf("%v: %s", err, in.Hint)
	case code == errcode.Internal:
		te.Message = fmt.Sprintf("internal error: %v; %s", err, in.Hint)
	default:
		te.Message = fmt.Sprintf("%v; %s", err, in.Hint)
		if amb := (*vault.AmbiguousNameError)(nil); errors.As(err, &amb) {
			te.Candidates = amb.Candidates
		}
	}
	return te
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
func toolErrorResult(te *ToolError) *mcpgo.CallToolResult {
	text, err := json.Marshal(te)
	if err != nil {
		text = []byte(te.Error())
	}
	// The error travels as JSON text only, not as structuredContent: clients on the
	// TypeScript SDK 1.x (Claude Code, Claude Desktop, the MCP Inspector) check
	// structuredContent against the tool's output schema even when isError is set,
	// and would replace this message with a schema error (typescript-sdk issues
	// 1943, 2748).
	return &mcpgo.CallToolResult{
		Content: []mcpgo.Content{mcpgo.TextContent{Type: mcpgo.ContentTypeText, Text: string(text)}},
		IsError: true,
	}
}
