package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/sync/feed"
	"github.com/norn-vault/norn/vault"
)

// MCPOptions configure NewMCPServer.
type MCPOptions struct {
	// Logger is for the server's own events (default slog.Default()).
	Logger *slog.Logger
	// Version is the server version reported to clients.
	Version string
	// SkipOutputValidation stops checking every tool result against the tool's
	// output schema before it is sent (mcp-go's WithOutputSchemaValidation: a
	// result that does not conform becomes a tool error). The check decodes the
	// result's JSON and walks the schema: 0.3–0.4 ms CPU a call for a 10 KB search
	// answer, a sixth of the server's share of a call. norn serve sets it; tests
	// leave it unset so that every tool result they see is checked and the schemas
	// stay honest.
	SkipOutputValidation bool
	// Feed is the change feed's hub wait_for_changes answers from and note
	// resources' notifications/resources/updated follow (nil: the tool answers
	// internal, and resources are offered without subscriptions). The caller
	// owns it (feed.New over the vault) and closes it after the server stops.
	Feed *feed.Hub
	// Sync is the vault's Syncer: sync_status reports from it, and the write
	// tools report where their commit stands against the default remote
	// (remote) and wait for the push (wait: "pushed"). nil: the vault is not
	// synced here (sync_status lists no remote, writes carry no remote).
	Sync *vault.Syncer
	// Now is the clock of the tools that write the time (capture's heading, the
	// inbox note's date); nil is time.Now.
	Now func() time.Time
}

// mcpInstructions is what clients are told about the server at connection time.
const mcpInstructions = `Norn is a git-native knowledge graph: a vault of Markdown notes where every write is a git commit.
Start with vault_map (root docs, folders, tags, recent changes), then search and read_note.
Every note has a revision (its git blob id); updates pass expected_revision, and a conflict returns the current revision: re-read, merge, retry.
Errors carry {class, code, message}: class retryable (retry, after re-reading when it is a conflict), fix_input (change the arguments), fatal (do not retry).
Nothing is ever deleted: archive_note removes a note from HEAD with a reason, restore_note brings it back.`

// NewMCPServer builds the MCP server for v: the tools (docs/mcp-tools.md) and the
// notes as resources norn://note/{path}, with subscriptions. Transports (stdio,
// streamable HTTP) wrap it; every request's context must carry the caller
// (WithPrincipal), or every tool answers forbidden.
func NewMCPServer(v *vault.Vault, opts MCPOptions) *mcpserver.MCPServer {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	t := &mcpTools{v: v, log: log, now: now, feed: opts.Feed, sync: opts.Sync}
	t.subs = newSubscriptions(t)
	hooks := &mcpserver.Hooks{}
	t.subs.register(hooks)
	sopts := []mcpserver.ServerOption{
		mcpserver.WithInstructions(mcpInstructions),
		mcpserver.WithToolCapabilities(false),
		mcpserver.WithResourceCapabilities(opts.Feed != nil, false),
		mcpserver.WithRecovery(),
		mcpserver.WithResourceRecovery(),
		mcpserver.WithHooks(hooks),
	}
	if !opts.SkipOutputValidation {
		sopts = append(sopts, mcpserver.WithOutputSchemaValidation())
	}
	t.srv = mcpserver.NewMCPServer("norn", version, sopts...)
	t.addReadTools()
	t.addGraphTools()
	t.addWriteTools()
	t.addFeedTools()
	t.addSynthesisTools()
	t.addClaimTools()
	t.addSyncTools()
	t.addResources()
	return t.srv
}

// mcpTools holds what the tool and resource handlers share.
type mcpTools struct {
	v    *vault.Vault
	srv  *mcpserver.MCPServer
	log  *slog.Logger
	now  func() time.Time
	subs *subscriptions
	feed *feed.Hub
	sync *vault.Syncer
}

// toolDef describes one tool: its name, what it is for, the scope it needs and its
// behaviour hints (openWorldHint is always false: a tool touches only the vault).
type toolDef struct {
	name, title, desc string
	scope             auth.Scope
	readOnly          bool
	destructive       bool
	idempotent        bool
}

// addTool registers a typed tool: the input and output schemas come from In and
// Out, the caller from the request's context (it must hold d.scope), arguments are
// decoded strictly (unknown fields are refused), and any error goes through
// ToolErrorFrom.
func addTool[In, Out any](t *mcpTools, d toolDef, h func(ctx context.Context, c *caller, in In) (*Out, error)) {
	tool := mcpgo.NewTool(d.name,
		mcpgo.WithToolTitle(d.title),
		mcpgo.WithDescription(d.desc),
		mcpgo.WithInputSchema[In](),
		mcpgo.WithOutputSchema[Out](),
		mcpgo.WithTitleAnnotation(d.title),
		mcpgo.WithReadOnlyHintAnnotation(d.readOnly),
		mcpgo.WithDestructiveHintAnnotation(d.destructive),
		mcpgo.WithIdempotentHintAnnotation(d.idempotent),
		mcpgo.WithOpenWorldHintAnnotation(false),
	)
	// The output schema as bytes, once: with a structured schema mcp-go marshals it
	// again on every validated call. tools/list shows the same JSON.
	if raw, err := json.Marshal(tool.OutputSchema); err == nil {
		tool.RawOutputSchema, tool.OutputSchema = raw, mcpgo.ToolOutputSchema{}
	}
	t.srv.AddTool(tool, func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		c, terr := t.caller(ctx, d.scope)
		if terr != nil {
			return toolErrorResult(terr), nil
		}
		var in In
		if err := decodeArgs(req, &in); err != nil {
			return toolErrorResult(errInput("%s: bad arguments: %v; see the tool's input schema", d.name, err)), nil
		}
		wait := ""
		if w, ok := any(in).(waiter); ok {
			wait = w.waitFor()
			if err := t.checkWait(wait); err != nil {
				return toolErrorResult(ToolErrorFrom(err, nil)), nil
			}
		}
		out, err := h(ctx, c, in)
		if err != nil {
			return toolErrorResult(ToolErrorFrom(err, func(p note.Path) bool { return !c.Visible(ctx, p) })), nil
		}
		if r, ok := any(out).(remoteReporter); ok {
			t.reportRemote(ctx, c, r, wait)
		}
		return structuredResult(d.name, out), nil
	})
}

// structuredResult is a tool's answer: out as structured content and the same
// JSON as a text block, as the spec advises. It is marshalled once: the structured
// content is those bytes (json.RawMessage), which output-schema validation and the
// response encoder read as they are instead of reflecting over out again.
func structuredResult(tool string, out any) *mcpgo.CallToolResult {
	b, err := json.Marshal(out)
	if err != nil {
		return toolErrorResult(ToolErrorFrom(fmt.Errorf("%s: encode the answer: %w", tool, err), nil))
	}
	return &mcpgo.CallToolResult{
		Content:           []mcpgo.Content{mcpgo.TextContent{Type: mcpgo.ContentTypeText, Text: string(b)}},
		StructuredContent: json.RawMessage(b),
	}
}

// decodeArgs decodes a call's arguments into dst, refusing unknown fields,
// trailing data, and (checkArgs) text that is not UTF-8 and repeated keys.
func decodeArgs(req mcpgo.CallToolRequest, dst any) error {
	var raw []byte
	switch a := req.GetRawArguments().(type) {
	case json.RawMessage:
		raw = a
	case nil:
	default:
		b, err := json.Marshal(a)
		if err != nil {
			return err
		}
		raw = b
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	if json.Valid(raw) { // malformed JSON is the decoder's to report
		if err := checkArgs(raw); err != nil {
			return err
		}
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(dst); err != nil {
		return err
	}
	if d.More() {
		return errors.New("trailing data after the arguments object")
	}
	return nil
}

// caller is the principal of one tool call with what it may see (vault.Viewer:
// the one privacy rule).
type caller struct {
	*vault.Viewer
	t *mcpTools
	p auth.Principal
}

// caller returns the request's principal, refused unless it holds scope.
func (t *mcpTools) caller(ctx context.Context, scope auth.Scope) (*caller, *ToolError) {
	p, ok := auth.PrincipalFrom(ctx)
	if !ok {
		return nil, errForbidden("no caller identity on this request: the transport did not authenticate it; connect with a token (norn token add NAME)")
	}
	if !p.Can(scope) {
		return nil, errForbidden("%s may not do this: it needs the %s scope and holds %s; ask the vault's owner for a token with it (norn token add NAME --scopes ...)",
			p.Name, scope, auth.ScopeList(p.Scopes))
	}
	vw, err := t.v.Viewer(ctx, p.Actor())
	if err != nil {
		// Fail closed: under the defaults a note in a private folder of the broken
		// file would show. The message names no part of the file.
		return nil, errForbidden("the vault's settings (%s) do not parse, so which notes are private is unknown: until the vault's owner fixes the file (norn doctor names every problem), only a token with the private scope may use the vault", vault.ConfigPath)
	}
	return &caller{Viewer: vw, t: t, p: p}, nil
}

// NoteRef names a note.
type NoteRef = vault.NoteRef

// WriteResult is what a write did (or, for a dry run, would do).
type WriteResult struct {
	// Path is the note written; Revision its new revision ("" when archived).
	Path     note.Path     `json:"path"`
	Revision repo.Revision `json:"revision,omitempty"`
	// Commit is the new commit ("" for a dry run), Parent the one before it.
	Commit repo.CommitID `json:"commit,omitempty"`
	Parent repo.CommitID `json:"parent,omitempty"`
	DryRun bool          `json:"dry_run"`
	// Unchanged: the write put the note's current bytes back, so nothing was
	// committed (Commit is "", Changes empty, Revision the note's revision).
	Unchanged bool              `json:"unchanged,omitempty"`
	Changes   []repo.FileChange `json:"changes"`
	// Relinked lists links in other notes that this write makes resolve
	// differently (a new note taking over links, a retitled note losing them, a
	// removed heading), as HEAD stood before it, at most 50; RelinkedTotal counts
	// them all. Empty when the search index is unavailable or busy catching up.
	Relinked      []vault.Relink `json:"relinked,omitempty"`
	RelinkedTotal int            `json:"relinked_total,omitempty"`
	// Remote is where the commit stands against the vault's default remote
	// (pushed, ahead, last_error), when the vault has one and the server syncs
	// it (vault.Syncer.WriteRemote); absent for a dry run or an unchanged write.
	Remote *vault.WriteRemote `json:"remote,omitempty"`
}

// setRelinks reports rl on w.
func (w *WriteResult) setRelinks(rl []vault.Relink) {
	w.RelinkedTotal = len(rl)
	w.Relinked = rl[:min(len(rl), vault.MaxRelinks)]
}

// writeResult reports res for path p.
func writeResult(p note.Path, res *repo.Result) WriteResult {
	out := WriteResult{Path: p, Changes: []repo.FileChange{}}
	if res == nil {
		return out
	}
	out.Commit, out.Parent, out.DryRun, out.Unchanged = res.Commit, res.Parent, res.DryRun, res.Unchanged
	if res.Changes != nil {
		out.Changes = res.Changes
	}
	for _, ch := range res.Changes {
		if ch.Path == p {
			out.Revision = ch.Revision
		}
	}
	return out
}

// bound clamps a requested count: 0 or less is def, more than max is an error.
func bound(name string, v, def, max int) (int, error) {
	if v < 0 {
		return 0, errInput("%s must be 0 or more, not %d", name, v)
	}
	if v == 0 {
		return def, nil
	}
	if v > max {
		return 0, errInput("%s is at most %d, not %d", name, max, v)
	}
	return v, nil
}

// notePathArg checks a path argument that names an existing note (read_note's,
// edit_note's, archive_note's, move_note's from, …): an unsafe path is invalid_input.
// The path is taken as given, spaces included, as the CLI takes it.
func notePathArg(name, p string) (note.Path, error) {
	if p == "" {
		return "", errInput("%s is required", name)
	}
	if err := repo.ValidPath(p); err != nil {
		return "", errInput("%s: %v", name, err)
	}
	return note.Path(p), nil
}

// writtenPathArg checks a path argument a tool writes (write_note's, file_note's,
// restore_note's path, move_note's to): a path-safety refusal is a gate rejection
// naming its path-* rule (hooks.ValidPath), as the CLI's is. The rules that need
// the writer or the vault (path-norn-dir, path-symlink-escape, and for a path the
// write creates path-portable and path-case-collision) are the gates' when the
// change is applied.
func writtenPathArg(name, p string) (note.Path, error) {
	if p == "" {
		return "", errInput("%s is required", name)
	}
	if err := hooks.ValidPath(p); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return note.Path(p), nil
}
