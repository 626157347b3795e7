package errcode

// Class says what a caller should do about a failure.
type Class string

// The classes.
const (
	// Retryable: the same call may succeed later (after re-reading a note that
	// changed, or once the server is back).
	Retryable Class = "retryable"
	// FixInput: the arguments are wrong; change them before calling again.
	FixInput Class = "fix_input"
	// Fatal: retrying cannot help (missing permission, a bug, a damaged vault).
	Fatal Class = "fatal"
)

// Code is a stable identifier of what went wrong; clients branch on it, never on
// the message.
type Code string

// The codes. docs/architecture.md ("Errors") has the table.
const (
	Conflict     Code = "conflict"
	GitBusy      Code = "git_busy"
	NotFound     Code = "not_found"
	GateRejected Code = "gate_rejected"
	InvalidInput Code = "invalid_input"
	Usage        Code = "usage"
	Forbidden    Code = "forbidden"
	NotAVault    Code = "not_a_vault"
	IndexStale   Code = "index_stale"
	Closed       Code = "closed"
	Canceled     Code = "canceled"
	// RemoteUnreachable: a git remote could not be reached (network, DNS, no
	// repository at the URL); RemoteRejected: it refused a push for a reason of
	// its own (a hook, a protected branch).
	RemoteUnreachable Code = "remote_unreachable"
	RemoteRejected    Code = "remote_rejected"
	Internal          Code = "internal"
)

// CLI exit codes (docs/cli.md).
const (
	ExitOK       = 0
	ExitError    = 1
	ExitUsage    = 2
	ExitConflict = 3
	ExitRejected = 4
)

// Info is what the table says about one code.
type Info struct {
	Code  Code
	Class Class
	// Exit is the norn command's exit code.
	Exit int
	// CLI is the code's spelling in the norn command's --json output, and MCP its
	// spelling in a tool error: the code itself but where a surface documented
	// another word before the vocabulary was one (kept so scripts and clients
	// that branch on them go on working).
	CLI, MCP string
	// Hint says how to recover, when the error itself does not say more.
	Hint string
}

// table is the vocabulary, in the order docs/architecture.md lists it.
var table = []Info{
	{Code: Conflict, Class: Retryable, Exit: ExitConflict,
		Hint: "retry the call"},
	{Code: GitBusy, Class: Retryable, Exit: ExitConflict,
		Hint: "a person has to finish that in git (the message says how); retrying before then fails the same way"},
	{Code: NotFound, Class: FixInput, Exit: ExitError,
		Hint: "check the path or commit (list_notes, search, history) and retry"},
	{Code: GateRejected, Class: FixInput, Exit: ExitRejected,
		Hint: "fix the note and retry (nothing was written)"},
	{Code: InvalidInput, Class: FixInput, Exit: ExitError, CLI: "invalid",
		Hint: "fix the arguments and retry (nothing was written)"},
	{Code: Usage, Class: FixInput, Exit: ExitUsage,
		Hint: "see norn COMMAND --help"},
	{Code: Forbidden, Class: Fatal, Exit: ExitError,
		Hint: "use a token with the needed scope (norn token add NAME --scopes …), or ask the vault's owner"},
	{Code: NotAVault, Class: Fatal, Exit: ExitError,
		Hint: "point --vault (or $NORN_VAULT) at a vault, or create one with norn init"},
	{Code: IndexStale, Class: Retryable, Exit: ExitError,
		Hint: "the index is being built or repaired: retry in a few seconds (search still answers, labelled)"},
	{Code: Closed, Class: Retryable, Exit: ExitError,
		Hint: "reconnect and retry"},
	{Code: Canceled, Class: Retryable, Exit: ExitError, MCP: string(Internal),
		Hint: "the call was cancelled or ran out of time; retry"},
	{Code: RemoteUnreachable, Class: Retryable, Exit: ExitError,
		Hint: "the remote could not be reached: check the network and the remote's URL (norn remote check NAME); the writes are safe here and the next sync pushes them"},
	{Code: RemoteRejected, Class: Fatal, Exit: ExitError,
		Hint: "the remote refused the push (a hook, a protected branch, a non-bare repository): fix that on the remote; nothing moved there and nothing is lost here"},
	{Code: Internal, Class: Fatal, Exit: ExitError, CLI: "error",
		Hint: "this is a bug or a damaged vault (run `norn doctor`), not something a retry fixes"},
}

// Codes lists every code, in table order.
func Codes() []Code {
	out := make([]Code, len(table))
	for i, in := range table {
		out[i] = in.Code
	}
	return out
}

// Info is c's row of the table; a code not in it gets Internal's.
func (c Code) Info() Info {
	for _, in := range table {
		if in.Code == c {
			if in.CLI == "" {
				in.CLI = string(c)
			}
			if in.MCP == "" {
				in.MCP = string(c)
			}
			return in
		}
	}
	return Internal.Info()
}

// Class is c's class.
func (c Code) Class() Class { return c.Info().Class }

// Exit is c's CLI exit code.
func (c Code) Exit() int { return c.Info().Exit }

// Hint is c's default hint.
func (c Code) Hint() string { return c.Info().Hint }
