package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/vault"
)

// Read budgets and bounds.
const (
	defaultReadBytes = 16 << 10
	maxReadBytes     = 1 << 20
	maxSearchOffset  = 1000
)

func (t *mcpTools) addReadTools() {
	read := func(name, title, desc string) toolDef {
		return toolDef{name: name, title: title, desc: desc, scope: auth.ScopeRead, readOnly: true, idempotent: true}
	}
	addTool(t, read("vault_map", "Vault map",
		"Boot context in one bounded call: call it first in a session. Returns the head commit, the number of notes, "+
			"the root docs (notes at the top level such as README or _INDEX, with titles), every folder with its note count "+
			"(notes below it, sub-folders included), the most used tags with counts, the inbox folder captures go to, "+
			"and the most recent commits (op, author, subject, time, changed paths). Each list is cut at its limit and "+
			"says so (truncated, *_total)."), t.vaultMap)
	addTool(t, read("search", "Search notes",
		"Full-text search (BM25F) over titles, tags, headings, bodies, paths and frontmatter. Use it to find notes before "+
			"reading them. Query syntax: bare words (ORed), \"phrases\", +required, -excluded, tag:x, folder:x, field:value, OR; "+
			"literal=true takes the text as plain words (for pasted questions). Returns ranked hits (path, title, score, best "+
			"line, snippet with matches in «», section, revision), the total, which engine answered, whether the index is "+
			"behind HEAD, and next_offset for the next page (limit default 10, at most 50)."), t.search)
	addTool(t, read("read_note", "Read a note",
		"Read one note by path (tech/bloom.md) or by wikilink name (Bloom filters, [[Bloom filters#Usage]]). Optional "+
			"section (a heading) reads one section; at reads an older commit, a date or a revision. Returns path, revision (pass it as "+
			"expected_revision to edit), commit, title, frontmatter and content. A note (or section) over max_bytes (default "+
			"16 KiB) comes back as its heading outline with each section's size instead of the content (truncated=true): then "+
			"read one section, or raise max_bytes (at most 1 MiB)."), t.readNote)
	addTool(t, read("list_notes", "List notes",
		"List the notes under a folder (every depth; \"\" for the whole vault), sorted by path, with revisions and, when "+
			"titles=true, titles. Paged: limit (default 100, at most 500) and next_cursor."), t.listNotes)
	addTool(t, read("get_context", "Note context",
		"Everything around one note before you edit or link it: its frontmatter, title, tags, outgoing links (with where "+
			"each resolves), backlinks (with the linking line), notes sharing a tag, and its folder siblings. Each list is cut "+
			"at limit (default 20, at most 100) with totals."), t.getContext)
	addTool(t, read("links", "Links of a note",
		"A note's outgoing links with their status (resolved, broken, ambiguous with candidates), typed edges included (kind edge, with type and why), its backlinks with their context "+
			"lines, and the notes sharing a tag with it. Lists cut at limit (default 50, at most 500) with totals."), t.links)
	addTool(t, read("stats", "Vault statistics",
		"Counts over the vault at HEAD: notes, files, links and typed edges (resolved, broken, ambiguous), orphans, "+
			"unparseable notes, and the largest folders, tags and typed-edge types. Each table is a page of limit rows "+
			"(default 50, at most 500) from offset, with its total and *_next_offset for the next page."), t.stats)
	addTool(t, read("history", "History",
		"The commits of the vault, newest first, or of one note when path is given: op (write, edit, move, archive, …), "+
			"reason, author, subject, time and the paths each changed. A note's history follows its moves: a rename is one "+
			"commit (kind moved, from the old path) and the older commits under the old path follow; each commit says what it "+
			"did to the note (kind, path, revision: pass it to read_note at or restore_note). Paged: limit (default 20, at most "+
			"100) and next_cursor; at most 1000 commits back."), t.history)
	addTool(t, read("diff", "Diff two commits",
		"The files that differ between two commits (from, to; to defaults to HEAD): kind, path, old and new revisions. "+
			"With path, also a unified diff of that note between the two commits (bounded by max_bytes, default 16 KiB). "+
			"Changes are cut at limit (default 100, at most 1000)."), t.diff)
	addTool(t, read("list_archived", "Archived notes",
		"The archive catalog: the notes archived and not brought back, in path order, each with its path, reason "+
			"(archived, superseded, retracted), who archived it and when, the archive commit and the note's last revision "+
			"(pass it, or its first 7+ digits, to restore_note as revision). A lookup in the index, not a walk of the history. "+
			"Optional folder and since (YYYY-MM-DD or RFC 3339); limit (default 50, at most 500) with total and truncated."), t.listArchived)
}

// frontmatterOf returns a note's frontmatter fields ready for JSON (nil: none).
func frontmatterOf(n *note.Note) map[string]any { return vault.FrontmatterJSON(n) }

// --- vault_map ---

// ReadNoteArgs are read_note's arguments.
type ReadNoteArgs struct {
	Path     string `json:"path" jsonschema:"the note's path (tech/bloom.md) or its wikilink name (Bloom filters, [[Bloom filters#Heading]])"`
	Section  string `json:"section,omitempty" jsonschema:"read only the section of this heading (Heading, ## Heading, Parent/Child)"`
	At       string `json:"at,omitempty" jsonschema:"read the note at this commit (id or short id, branch or HEAD, each optionally with ~N / ^N, e.g. HEAD~2), as it was at a date or time (YYYY-MM-DD: the end of that day, UTC; or RFC 3339, e.g. 2026-12-07T10:00:00Z), or at this revision (blob id), instead of HEAD"`
	MaxBytes int    `json:"max_bytes,omitempty" jsonschema:"read budget in bytes (default 16384, at most 1048576); over it you get the outline"`
}

// OutlineItem is one heading of a note's outline.
type OutlineItem struct {
	Level int    `json:"level"`
	Text  string `json:"text"`
	Line  int    `json:"line"`
	// Size is the byte size of the heading's section, sub-sections included.
	Size int `json:"size"`
}

// ReadNoteResult is read_note's answer.
type ReadNoteResult struct {
	Path     note.Path     `json:"path"`
	Revision repo.Revision `json:"revision"`
	// Commit is the commit read ("" when read by revision).
	Commit      repo.CommitID  `json:"commit"`
	Title       string         `json:"title"`
	Frontmatter map[string]any `json:"frontmatter,omitempty"`
	// Content is the note's bytes (or the section's); empty when over budget.
	Content string `json:"content"`
	// Size is the byte size of what was asked (the note, or the section).
	Size    int    `json:"size"`
	Section string `json:"section,omitempty"`
	// Truncated: over max_bytes; Outline replaces Content.
	Truncated bool          `json:"truncated"`
	Outline   []OutlineItem `json:"outline,omitempty"`
	Notice    string        `json:"notice,omitempty"`
	// ResolvedFrom is the name given when it was resolved to Path.
	ResolvedFrom string `json:"resolved_from,omitempty"`
	// Synthesis is the note's synthesis status when it is a registered summary
	// read at HEAD (synthesis_status), under SynthesisBudget.
	Synthesis       *vault.SynthesisStatus `json:"synthesis,omitempty"`
	SynthesisBudget *vault.SynthesisBudget `json:"synthesis_budget,omitempty"`
	// Claims are the live claims read from the note (a read at HEAD), at most
	// 50, each fresh or not; ClaimsTotal counts them all.
	Claims      []NoteClaim `json:"claims,omitempty" jsonschema:"the live claims read from this note, each fresh or stale"`
	ClaimsTotal int         `json:"claims_total,omitempty"`
}

func (t *mcpTools) readNote(ctx context.Context, c *caller, in ReadNoteArgs) (*ReadNoteResult, error) {
	budget, err := bound("max_bytes", in.MaxBytes, defaultReadBytes, maxReadBytes)
	if err != nil {
		return nil, err
	}
	name, heading := vault.SplitName(in.Path)
	if name != in.Path && repo.ValidPath(in.Path) == nil && c.Visible(ctx, note.Path(in.Path)) && t.v.Revision(note.Path(in.Path)) != "" {
		name, heading = in.Path, "" // a note's path as given (" lead.md"), not a name to trim
	}
	if name == "" {
		return nil, errInput("path is required: a note's path or wikilink name")
	}
	section := strings.TrimSpace(in.Section)
	if section == "" {
		section = heading
	}
	p, err := t.resolveName(ctx, c, name, in.At != "")
	if err != nil {
		return nil, err
	}
	blob, err := c.ReadAt(ctx, p, in.At)
	if err != nil {
		if errors.Is(err, repo.ErrNotFound) {
			return nil, invisibleAt(p, in.At)
		}
		return nil, err
	}
	n, perr := note.Parse(p, blob.Content)
	if !c.VisibleParsed(p, n, perr, blob.Content) {
		return nil, invisibleAt(p, in.At)
	}
	out := &ReadNoteResult{Path: p, Revision: blob.Revision, Commit: blob.Commit, Title: note.Stem(p)}
	if string(p) != name {
		out.ResolvedFrom = in.Path
	}
	if in.At == "" {
		b := c.SynthesisBudget()
		if out.Synthesis = t.freshness(ctx, c, p, b); out.Synthesis != nil {
			out.SynthesisBudget = b
		}
	}
	if perr == nil {
		out.Title, out.Frontmatter = n.Title, frontmatterOf(n)
	}
	if in.At == "" {
		if err := c.readClaims(ctx, out); err != nil {
			return nil, err
		}
	}
	body := blob.Content
	var headings []*note.Heading
	if perr == nil {
		headings = n.Headings
	}
	if section != "" {
		if perr != nil {
			return nil, errInput("%s does not parse (%v), so its sections cannot be read: read it whole", p, perr)
		}
		s, e, ok := note.Section(n, section)
		if !ok {
			return nil, errNotFound(p, "%s has no heading %q; its headings: %s", p, section, vault.HeadingList(n, 40))
		}
		body, out.Section = blob.Content[s:e], section
		headings = nil
		for _, h := range n.Headings {
			if h.Start >= s && h.Start < e {
				headings = append(headings, h)
			}
		}
	}
	out.Size = len(body)
	if len(body) <= budget {
		out.Content = string(body)
		return out, nil
	}
	out.Truncated = true
	out.Outline = []OutlineItem{}
	for _, h := range headings {
		out.Outline = append(out.Outline, OutlineItem{Level: h.Level, Text: h.Text, Line: h.Line, Size: h.Size()})
	}
	what := "the note"
	if out.Section != "" {
		what = "the section"
	}
	out.Notice = fmt.Sprintf("%s is %d bytes, over max_bytes=%d: here is its outline with each section's size instead of the content; read one section with section=<heading>, or raise max_bytes (at most %d)",
		what, len(body), budget, maxReadBytes)
	if len(out.Outline) == 0 {
		out.Notice = fmt.Sprintf("%s is %d bytes, over max_bytes=%d, and has no headings to read separately; raise max_bytes (at most %d)",
			what, len(body), budget, maxReadBytes)
	}
	return out, nil
}

// invisibleAt is the error for a note missing (or hidden) at a commit.
func invisibleAt(p note.Path, at string) error { return inputToolError(vault.MissingAt(p, at)) }

// resolveName turns a path or a wikilink name into a note's path at HEAD
// (Vault.ResolveName, the one resolver every surface uses), in the vault as the
// caller sees it. asPath (reading at a commit) takes a path as given.
func (t *mcpTools) resolveName(ctx context.Context, c *caller, name string, asPath bool) (note.Path, error) {
	if asPath && repo.ValidPath(name) == nil {
		return note.Path(name), nil
	}
	p, _, err := t.v.ResolveName(ctx, name, c.Hidden(ctx))
	var amb *vault.AmbiguousNameError
	switch {
	case errors.As(err, &amb):
		te := errInput("%s", amb.Error())
		te.Candidates = amb.Candidates
		return "", te
	case errors.Is(err, repo.ErrNotFound):
		return "", errInvisible(note.Path(name))
	}
	return p, err
}

// --- list_notes ---
