package mcp

import (
	"context"
	"errors"
	"strings"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/vault"
)

func (t *mcpTools) addWriteTools() {
	write := func(name, title, desc string, destructive, idempotent bool) toolDef {
		return toolDef{name: name, title: title, desc: desc, scope: auth.ScopeWrite, destructive: destructive, idempotent: idempotent}
	}
	// Every write but capture is guarded by a revision or an exclusive create, so
	// repeating it has no further effect (the repeat is a conflict or a not-found):
	// idempotentHint is true for them.
	addTool(t, write("write_note", "Write a note",
		"Create a note (no expected_revision: the path must not exist) or replace one whole (expected_revision = the "+
			"revision you read; a mismatch is a conflict with the current revision). One commit authored by you; the write "+
			"gates check the content. dry_run checks everything and writes nothing. Returns the new revision and commit. "+
			"Prefer edit_note for small changes and file_note for a new note that belongs in its folder's _INDEX.md.",
		true, true), t.writeNote)
	addTool(t, write("edit_note", "Edit a note",
		"Change part of a note in one commit: op=append (content at the end), prepend (content at the top of the body, "+
			"after the frontmatter), replace_section (heading + content: everything under the heading, sub-sections "+
			"included, is replaced; the heading line stays unless content starts with it), find_replace (find, replace: "+
			"find must occur exactly once, or exactly count times, and every occurrence is replaced). expected_revision is "+
			"required (read_note gives it). Returns the new revision and commit.",
		true, true), t.editNote)
	addTool(t, write("restore_note", "Restore a note",
		"Bring back a note from history: its bytes at commit from, or the blob revision, at path. Never overwrites: the "+
			"path must not exist (archive or move the current note first). Use history or diff to find the commit. "+
			"Returns the revision and commit.",
		false, true), t.restoreNote)
	addTool(t, write("capture", "Capture to the inbox",
		"Append a quick thought to today's inbox note (<inbox>/YYYY-MM-DD.md, created when missing) as a new "+
			"timestamped entry, optionally titled. Append-only: it never changes anything else, and never any other note. "+
			"Use it when you do not know where something belongs yet. Returns the inbox note's path, revision and commit.",
		false, false), t.capture)
	addTool(t, write("file_note", "File a note",
		"Create (or, with expected_revision, replace) a note and list it in its folder's _INDEX.md in the same commit: "+
			"the index gets a line \"- [[name|Title]]\" (created with the folder's index when missing; left as it is when it "+
			"already links to the note). Returns both revisions and the one commit.",
		true, true), t.fileNote)
	addTool(t, write("move_note", "Move a note",
		"Move or rename a note and rewrite every link and typed edge to it in the vault, in one commit. Refused when "+
			"the new name would change where other links resolve. Returns the commit and the notes whose links were rewritten.",
		false, true), t.moveNote)
	addTool(t, write("archive_note", "Archive a note",
		"Remove a note from HEAD with a reason (archived, superseded, retracted); its bytes stay in history and "+
			"restore_note brings it back. Nothing is ever deleted. Returns the commit and the links other notes have to it, "+
			"which are left dangling.",
		true, true), t.archiveNote)
	addTool(t, write("link_notes", "Add a typed edge",
		"Add a typed edge {to, type, why} to a note's frontmatter (edges:), in one commit. to is a path or wikilink name; "+
			"type one of the vault's edge types (supports, contradicts, refines, depends_on, part_of, example_of, derived_from, "+
			"supersedes, same_mechanism_as, analogous_to by default); why a sentence (20+ characters) saying why it holds. "+
			"Returns the commit and the target's path.",
		false, true), t.linkNotes)
	addTool(t, write("unlink_notes", "Remove a typed edge",
		"Remove the typed edges from a note to a target (of one type, or every type when type is empty), in one commit. "+
			"Returns the commit and the target's path.",
		true, true), t.unlinkNotes)
}

// hiddenNote reports whether a note the caller may not see is at p at HEAD. Write
// tools answer for it what they answer for a path with no note, except where
// that would mean writing over it (vault.TakenBy).
func (c *caller) hiddenNote(ctx context.Context, p note.Path) bool {
	return !c.SeesAll() && c.t.v.Revision(p) != "" && !c.Visible(ctx, p)
}

// asMissing classifies err, an error made up for a hidden note, as it would be
// for a path with no note: a conflict there is hidden only by the folder.
func (c *caller) asMissing(err error) *ToolError {
	return ToolErrorFrom(err, func(p note.Path) bool { return !c.SeesAll() && c.Config().IsPrivate(p, nil) })
}

// writeErr renders the error of a write to p; hidden: a note the caller may not
// see is at p, and a conflict on it is worded as for a path with no note.
func (c *caller) writeErr(err error, hidden bool) error {
	var ce *repo.ConflictError
	if hidden && errors.As(err, &ce) {
		return c.asMissing(err)
	}
	return inputToolError(err)
}

// --- write_note ---

// WriteNoteArgs are write_note's arguments.
type WriteNoteArgs struct {
	WaitArg
	Path             string `json:"path" jsonschema:"the note's path, e.g. tech/bloom-filters.md"`
	Content          string `json:"content" jsonschema:"the whole note: frontmatter and body"`
	ExpectedRevision string `json:"expected_revision,omitempty" jsonschema:"the revision you read; omit to create a new note"`
	Message          string `json:"message,omitempty" jsonschema:"commit subject (default: write PATH)"`
	DryRun           bool   `json:"dry_run,omitempty" jsonschema:"check everything, write nothing"`
}

func (t *mcpTools) writeNote(ctx context.Context, c *caller, in WriteNoteArgs) (*WriteResult, error) {
	p, err := writtenPathArg("path", in.Path)
	if err != nil {
		return nil, err
	}
	hidden := c.hiddenNote(ctx, p)
	res, err := t.v.WriteNote(ctx, vault.WriteRequest{Path: p, Content: []byte(in.Content), ExpectedRevision: repo.Revision(in.ExpectedRevision),
		Author: c.p.Author(), Roles: c.p.Roles(), Message: in.Message, DryRun: in.DryRun, Hidden: c.Hidden(ctx)})
	if err != nil {
		return nil, c.writeErr(err, hidden)
	}
	out := writeResult(p, res.Result)
	out.setRelinks(res.Relinks)
	out.Revision = res.Revision
	return &out, nil
}

// --- edit_note ---

// EditNoteArgs are edit_note's arguments.
type EditNoteArgs struct {
	WaitArg
	Path             string `json:"path" jsonschema:"the note's path"`
	Op               string `json:"op" jsonschema:"what to do,enum=append,enum=prepend,enum=replace_section,enum=find_replace"`
	ExpectedRevision string `json:"expected_revision" jsonschema:"the revision you read (read_note)"`
	Content          string `json:"content,omitempty" jsonschema:"the text to append or prepend, or the section's new content"`
	Heading          string `json:"heading,omitempty" jsonschema:"replace_section: the heading (Heading, ## Heading, Parent/Child)"`
	Find             string `json:"find,omitempty" jsonschema:"find_replace: the exact text to find"`
	Replace          string `json:"replace,omitempty" jsonschema:"find_replace: what replaces it"`
	Count            int    `json:"count,omitempty" jsonschema:"find_replace: how many times find must occur (default 1)"`
	Message          string `json:"message,omitempty" jsonschema:"commit subject (default: edit PATH)"`
	DryRun           bool   `json:"dry_run,omitempty" jsonschema:"check everything, write nothing"`
}

func (t *mcpTools) editNote(ctx context.Context, c *caller, in EditNoteArgs) (*WriteResult, error) {
	p, err := notePathArg("path", in.Path)
	if err != nil {
		return nil, err
	}
	res, err := t.v.EditNote(ctx, vault.EditRequest{Path: p, Op: vault.EditOp(in.Op), ExpectedRevision: repo.Revision(in.ExpectedRevision),
		Content: in.Content, Heading: in.Heading, Find: in.Find, Replace: in.Replace, Count: in.Count,
		Author: c.p.Author(), Roles: c.p.Roles(), Message: in.Message, DryRun: in.DryRun, Hidden: c.Hidden(ctx)})
	if err != nil {
		return nil, inputToolError(err)
	}
	out := writeResult(p, res.Result)
	out.setRelinks(res.Relinks)
	out.Revision = res.Revision
	return &out, nil
}

// --- restore_note ---

// RestoreNoteArgs are restore_note's arguments.
type RestoreNoteArgs struct {
	WaitArg
	Path     string `json:"path" jsonschema:"where to restore the note (must not exist)"`
	From     string `json:"from,omitempty" jsonschema:"the commit whose version of path to restore (id, branch or HEAD, optionally with ~N / ^N)"`
	Revision string `json:"revision,omitempty" jsonschema:"or: the revision to restore, full or its first 7+ hex digits (as history and list_archived print it)"`
	Message  string `json:"message,omitempty" jsonschema:"commit subject"`
	DryRun   bool   `json:"dry_run,omitempty" jsonschema:"check everything, write nothing"`
}

func (t *mcpTools) restoreNote(ctx context.Context, c *caller, in RestoreNoteArgs) (*WriteResult, error) {
	p, err := writtenPathArg("path", in.Path)
	if err != nil {
		return nil, err
	}
	rev := repo.Revision(in.Revision)
	if in.Revision != "" && !vault.IsRevision(in.Revision) && in.From == "" {
		// The short form history and list_archived print, among this note's
		// own revisions.
		if rev, err = c.ResolveRevision(ctx, p, in.Revision); err != nil {
			return nil, inputToolError(err)
		}
	}
	r := vault.RestoreRequest{Path: p, From: in.From, Revision: rev, Author: c.p.Author(), Roles: c.p.Roles(),
		Message: in.Message, DryRun: in.DryRun, Hidden: c.Hidden(ctx)}
	if !c.SeesAll() {
		r.Readable = c.VisibleContent
	}
	res, err := t.v.RestoreNote(ctx, r)
	if err != nil {
		return nil, inputToolError(err)
	}
	out := writeResult(p, res.Result)
	out.setRelinks(res.Relinks)
	return &out, nil
}

// --- capture ---

// CaptureArgs are capture's arguments.
type CaptureArgs struct {
	WaitArg
	Text   string `json:"text" jsonschema:"what to capture (Markdown)"`
	Title  string `json:"title,omitempty" jsonschema:"a short title for the entry"`
	DryRun bool   `json:"dry_run,omitempty" jsonschema:"check everything, write nothing"`
}

// CaptureResult is capture's answer.
type CaptureResult struct {
	WriteResult
	// Created: today's inbox note did not exist and was created.
	Created bool `json:"created"`
}

func (t *mcpTools) capture(ctx context.Context, c *caller, in CaptureArgs) (*CaptureResult, error) {
	res, err := t.v.Capture(ctx, vault.CaptureRequest{Text: in.Text, Title: in.Title, Author: c.p.Author(), Roles: c.p.Roles(),
		DryRun: in.DryRun, Now: t.now(), Hidden: c.Hidden(ctx)})
	if err != nil {
		return nil, inputToolError(err)
	}
	out := &CaptureResult{WriteResult: writeResult(res.Path, res.Result), Created: res.Created}
	out.setRelinks(res.Relinks)
	return out, nil
}

// inputToolError gives an *InputError its tool error, with its very message;
// other errors are left to the tools' one classification.
func inputToolError(err error) error {
	var ie *vault.InputError
	if !errors.As(err, &ie) {
		return err
	}
	if errors.Is(ie.Kind, repo.ErrNotFound) {
		return errNotFound(ie.Path, "%s", ie.Msg)
	}
	te := errInput("%s", ie.Msg)
	te.Path = ie.Path
	return te
}

// --- file_note ---

// FileNoteArgs are file_note's arguments.
type FileNoteArgs struct {
	WaitArg
	Path             string `json:"path" jsonschema:"the note's path; its folder's _INDEX.md lists it"`
	Content          string `json:"content" jsonschema:"the whole note: frontmatter and body"`
	ExpectedRevision string `json:"expected_revision,omitempty" jsonschema:"the revision you read, to replace an existing note; omit to create"`
	Title            string `json:"title,omitempty" jsonschema:"the text of the index entry (default: the note's title)"`
	Message          string `json:"message,omitempty" jsonschema:"commit subject"`
	DryRun           bool   `json:"dry_run,omitempty" jsonschema:"check everything, write nothing"`
}

// FileNoteResult is file_note's answer.
type FileNoteResult struct {
	WriteResult
	Index         note.Path     `json:"index"`
	IndexRevision repo.Revision `json:"index_revision"`
	// IndexChanged is false when the index already linked to the note.
	IndexChanged bool `json:"index_changed"`
}

func (t *mcpTools) fileNote(ctx context.Context, c *caller, in FileNoteArgs) (*FileNoteResult, error) {
	p, err := writtenPathArg("path", in.Path)
	if err != nil {
		return nil, err
	}
	hidden := c.hiddenNote(ctx, p) // a hidden note at p looks missing, as in write_note
	res, err := t.v.FileNote(ctx, vault.FileRequest{Path: p, Content: []byte(in.Content), ExpectedRevision: repo.Revision(in.ExpectedRevision),
		Title: in.Title, Author: c.p.Author(), Roles: c.p.Roles(), Message: in.Message, DryRun: in.DryRun, Now: t.now(), Hidden: c.Hidden(ctx)})
	if err != nil {
		return nil, c.writeErr(err, hidden)
	}
	out := &FileNoteResult{WriteResult: writeResult(p, res.Result), Index: res.Index, IndexRevision: res.IndexRevision, IndexChanged: res.IndexChanged}
	out.setRelinks(res.Relinks)
	return out, nil
}

// --- move_note, archive_note ---

// MoveNoteArgs are move_note's arguments.
type MoveNoteArgs struct {
	WaitArg
	From             string `json:"from" jsonschema:"the note's path now"`
	To               string `json:"to" jsonschema:"its new path (must not exist)"`
	ExpectedRevision string `json:"expected_revision,omitempty" jsonschema:"the revision of from you read"`
	Message          string `json:"message,omitempty" jsonschema:"commit subject"`
	DryRun           bool   `json:"dry_run,omitempty" jsonschema:"check everything, write nothing"`
}

// MoveNoteResult is move_note's answer.
type MoveNoteResult struct {
	WriteResult
	// Rewritten are the notes whose links were rewritten (by their path after the move).
	Rewritten []note.Path `json:"rewritten"`
}

func (t *mcpTools) moveNote(ctx context.Context, c *caller, in MoveNoteArgs) (*MoveNoteResult, error) {
	from, err := notePathArg("from", in.From)
	if err != nil {
		return nil, err
	}
	to, err := writtenPathArg("to", in.To)
	if err != nil {
		return nil, err
	}
	res, err := t.v.MoveNote(ctx, vault.MoveRequest{From: from, To: to, ExpectedRevision: repo.Revision(in.ExpectedRevision),
		Author: c.p.Author(), Roles: c.p.Roles(), Message: in.Message, DryRun: in.DryRun, Hidden: c.Hidden(ctx)})
	if err != nil {
		return nil, err
	}
	out := &MoveNoteResult{WriteResult: writeResult(to, res.Result), Rewritten: []note.Path{}}
	for _, r := range res.Rewritten {
		if c.Visible(ctx, r) {
			out.Rewritten = append(out.Rewritten, r)
		}
	}
	return out, nil
}

// ArchiveNoteArgs are archive_note's arguments.
type ArchiveNoteArgs struct {
	WaitArg
	Path             string `json:"path" jsonschema:"the note to archive"`
	Reason           string `json:"reason" jsonschema:"why,enum=archived,enum=superseded,enum=retracted"`
	ExpectedRevision string `json:"expected_revision,omitempty" jsonschema:"the revision you read"`
	Message          string `json:"message,omitempty" jsonschema:"commit subject"`
	DryRun           bool   `json:"dry_run,omitempty" jsonschema:"check everything and list the links left dangling, write nothing"`
}

// ArchiveNoteResult is archive_note's answer.
type ArchiveNoteResult struct {
	WriteResult
	// Dangling are the links other notes have to the archived note.
	Dangling []vault.LinkRef `json:"dangling"`
}

func (t *mcpTools) archiveNote(ctx context.Context, c *caller, in ArchiveNoteArgs) (*ArchiveNoteResult, error) {
	p, err := notePathArg("path", in.Path)
	if err != nil {
		return nil, err
	}
	reason := repo.Reason(in.Reason)
	if !reason.Valid() {
		return nil, errInput("reason must be archived, superseded or retracted, not %q", in.Reason)
	}
	res, err := t.v.ArchiveNote(ctx, vault.ArchiveRequest{Path: p, Reason: reason, ExpectedRevision: repo.Revision(in.ExpectedRevision),
		Author: c.p.Author(), Roles: c.p.Roles(), Message: in.Message, DryRun: in.DryRun, Hidden: c.Hidden(ctx)})
	if err != nil {
		return nil, err
	}
	out := &ArchiveNoteResult{WriteResult: writeResult(p, res.Result), Dangling: []vault.LinkRef{}}
	for _, l := range res.Dangling {
		if c.Visible(ctx, l.From) {
			out.Dangling = append(out.Dangling, l)
		}
	}
	return out, nil
}

// --- link_notes, unlink_notes ---

// LinkNotesArgs are link_notes' arguments.
type LinkNotesArgs struct {
	WaitArg
	From             string `json:"from" jsonschema:"the note that gets the edge"`
	To               string `json:"to" jsonschema:"the target: a path or a wikilink name"`
	Type             string `json:"type" jsonschema:"the edge type, e.g. supports, refines, depends_on"`
	Why              string `json:"why" jsonschema:"why the edge holds, in a sentence (20+ characters)"`
	ExpectedRevision string `json:"expected_revision,omitempty" jsonschema:"the revision of from you read"`
	DryRun           bool   `json:"dry_run,omitempty" jsonschema:"check everything, write nothing"`
}

// UnlinkNotesArgs are unlink_notes' arguments.
type UnlinkNotesArgs struct {
	WaitArg
	From             string `json:"from" jsonschema:"the note that has the edge"`
	To               string `json:"to" jsonschema:"the target: a path or a wikilink name"`
	Type             string `json:"type,omitempty" jsonschema:"only edges of this type (default: every edge to the target)"`
	ExpectedRevision string `json:"expected_revision,omitempty" jsonschema:"the revision of from you read"`
	DryRun           bool   `json:"dry_run,omitempty" jsonschema:"check everything, write nothing"`
}

// EdgeWriteResult is link_notes' and unlink_notes' answer.
type EdgeWriteResult struct {
	WriteResult
	// Target is the note the edge points at ("" when it no longer resolves).
	Target note.Path `json:"target"`
}

func (t *mcpTools) linkNotes(ctx context.Context, c *caller, in LinkNotesArgs) (*EdgeWriteResult, error) {
	return t.edge(ctx, c, t.v.LinkNotes, in.From, vault.EdgeRequest{To: in.To, Type: in.Type, Why: in.Why,
		ExpectedRevision: repo.Revision(in.ExpectedRevision), DryRun: in.DryRun})
}

func (t *mcpTools) unlinkNotes(ctx context.Context, c *caller, in UnlinkNotesArgs) (*EdgeWriteResult, error) {
	return t.edge(ctx, c, t.v.UnlinkNotes, in.From, vault.EdgeRequest{To: in.To, Type: in.Type,
		ExpectedRevision: repo.Revision(in.ExpectedRevision), DryRun: in.DryRun})
}

// edge runs LinkNotes or UnlinkNotes for the caller. A caller without the private
// scope may not name a note it cannot see as the target: a dry run finds the
// target first, so that nothing is written when it is hidden.
func (t *mcpTools) edge(ctx context.Context, c *caller, do func(context.Context, vault.EdgeRequest) (*vault.EdgeResult, error), from string, r vault.EdgeRequest) (*EdgeWriteResult, error) {
	p, err := notePathArg("from", from)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(r.To) == "" {
		return nil, errInput("to is required: a path or a wikilink name")
	}
	r.From, r.Author, r.Roles, r.Hidden = p, c.p.Author(), c.p.Roles(), c.Hidden(ctx)
	if !c.SeesAll() && !r.DryRun {
		dry := r
		dry.DryRun = true
		res, err := do(ctx, dry)
		if err != nil {
			return nil, err
		}
		if res.Target != "" && !c.Visible(ctx, res.Target) {
			return nil, errInvisible(note.Path(r.To))
		}
	}
	res, err := do(ctx, r)
	if err != nil {
		return nil, err
	}
	if res.Target != "" && !c.Visible(ctx, res.Target) {
		return nil, errInvisible(note.Path(r.To))
	}
	return &EdgeWriteResult{WriteResult: writeResult(p, res.Result), Target: res.Target}, nil
}
