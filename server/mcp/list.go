package mcp

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// ListNotesArgs are list_notes' arguments.
type ListNotesArgs struct {
	Folder string `json:"folder,omitempty" jsonschema:"the folder to list, every depth below it (\"\" for the whole vault)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page"`
	Limit  int    `json:"limit,omitempty" jsonschema:"notes per page (default 100, at most 500)"`
	Titles bool   `json:"titles,omitempty" jsonschema:"also read each note's title"`
}

// ListNotesResult is list_notes' answer.
type ListNotesResult struct {
	Folder string    `json:"folder"`
	Commit string    `json:"commit"`
	Notes  []NoteRef `json:"notes"`
	// Total counts the notes under the folder you can see.
	Total      int    `json:"total"`
	NextCursor string `json:"next_cursor,omitempty"`
	Truncated  bool   `json:"truncated"`
}

func (t *mcpTools) listNotes(ctx context.Context, c *caller, in ListNotesArgs) (*ListNotesResult, error) {
	limit, err := bound("limit", in.Limit, 100, 500)
	if err != nil {
		return nil, err
	}
	folder, err := folderArg(in.Folder)
	if err != nil {
		return nil, err
	}
	after := ""
	if in.Cursor != "" {
		// A cursor is the last path of the previous page, under the folder.
		b, err := base64.RawURLEncoding.DecodeString(in.Cursor)
		if err != nil || repo.ValidPath(string(b)) != nil || !note.IsNote(note.Path(b)) || folder != "" && !strings.HasPrefix(string(b), folder+"/") {
			return nil, errInput("cursor %q is not one this tool handed out for folder %q: pass next_cursor unchanged", in.Cursor, folder)
		}
		after = string(b)
	}
	files, head, err := t.v.Files(ctx, "")
	if err != nil {
		return nil, err
	}
	prefix := ""
	if folder != "" {
		prefix = folder + "/"
	}
	var notes []repo.File
	exists := folder == ""
	for _, f := range files {
		if !strings.HasPrefix(string(f.Path), prefix) || !c.Visible(ctx, f.Path) {
			continue
		}
		exists = true // a folder holding only notes hidden from the caller does not exist for it
		if note.IsNote(f.Path) && !isNornPath(f.Path) {
			notes = append(notes, f)
		}
	}
	if !exists {
		return nil, errNotFound("", "folder %s does not exist: see the folders with vault_map or list_notes", folder)
	}
	sort.Slice(notes, func(i, j int) bool { return notes[i].Path < notes[j].Path })
	out := &ListNotesResult{Folder: folder, Commit: string(head), Notes: []NoteRef{}, Total: len(notes)}
	i := sort.Search(len(notes), func(i int) bool { return string(notes[i].Path) > after })
	for ; i < len(notes) && len(out.Notes) < limit; i++ {
		r := NoteRef{Path: notes[i].Path, Revision: notes[i].Revision}
		if in.Titles {
			r.Title = note.Stem(r.Path)
			if b, err := t.v.ReadRevision(ctx, r.Revision); err == nil {
				if n, err := note.Parse(r.Path, b); err == nil {
					r.Title = n.Title
				}
			}
		}
		out.Notes = append(out.Notes, r)
	}
	if i < len(notes) && len(out.Notes) > 0 {
		out.Truncated = true
		out.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(out.Notes[len(out.Notes)-1].Path))
	}
	return out, nil
}

// folderArg checks a folder argument (list_notes, search): "" is the whole vault;
// slashes around it are dropped.
func folderArg(f string) (string, error) {
	folder := strings.Trim(strings.TrimSpace(f), "/")
	if folder != "" {
		if err := repo.ValidPath(folder); err != nil {
			return "", errInput("folder: %v", err)
		}
	}
	return folder, nil
}

// --- links and get_context ---

// LinksArgs are links' arguments.
type LinksArgs struct {
	Path  string `json:"path" jsonschema:"the note's path"`
	Limit int    `json:"limit,omitempty" jsonschema:"most entries per list (default 50, at most 500)"`
}

func (t *mcpTools) links(ctx context.Context, c *caller, in LinksArgs) (*vault.Links, error) {
	p, err := notePathArg("path", in.Path)
	if err != nil {
		return nil, err
	}
	limit, err := bound("limit", in.Limit, 50, 500)
	if err != nil {
		return nil, err
	}
	return t.noteLinks(ctx, c, p, limit)
}

// noteLinks is NoteLinks as the caller may see it (graph.Index.LinksHiding): the
// links of the vault without the notes hidden from it. A hidden note answers like
// a missing one.
func (t *mcpTools) noteLinks(ctx context.Context, c *caller, p note.Path, limit int) (*vault.Links, error) {
	if !c.Visible(ctx, p) { // for a caller without the private scope, this loads the private set first
		return nil, errInvisible(p)
	}
	l, err := vault.VisibleNoteLinks(ctx, t.v, p, limit, c.Hidden(ctx))
	if errors.Is(err, repo.ErrNotFound) {
		return nil, errInvisible(p)
	}
	return l, err
}

// ContextArgs are get_context's arguments.
type ContextArgs struct {
	Path  string `json:"path" jsonschema:"the note's path"`
	Limit int    `json:"limit,omitempty" jsonschema:"most entries per list (default 20, at most 100)"`
}

// NoteContext is get_context's answer.
type NoteContext struct {
	Path           note.Path       `json:"path"`
	Revision       repo.Revision   `json:"revision"`
	Commit         string          `json:"commit"`
	Title          string          `json:"title"`
	Frontmatter    map[string]any  `json:"frontmatter,omitempty"`
	Tags           []string        `json:"tags"`
	Outlinks       []vault.LinkRef `json:"outlinks"`
	Backlinks      []vault.LinkRef `json:"backlinks"`
	SameTags       []note.Path     `json:"same_tags"`
	Siblings       []NoteRef       `json:"siblings"`
	OutlinksTotal  int             `json:"outlinks_total"`
	BacklinksTotal int             `json:"backlinks_total"`
	SameTagsTotal  int             `json:"same_tags_total"`
	SiblingsTotal  int             `json:"siblings_total"`
	Truncated      bool            `json:"truncated"`
}

func (t *mcpTools) getContext(ctx context.Context, c *caller, in ContextArgs) (*NoteContext, error) {
	p, err := notePathArg("path", in.Path)
	if err != nil {
		return nil, err
	}
	limit, err := bound("limit", in.Limit, 20, 100)
	if err != nil {
		return nil, err
	}
	l, err := t.noteLinks(ctx, c, p, limit)
	if err != nil {
		return nil, err
	}
	blob, err := t.v.Read(ctx, p, "")
	if err != nil {
		return nil, errInvisible(p)
	}
	out := &NoteContext{Path: p, Revision: blob.Revision, Commit: l.Commit, Title: note.Stem(p), Tags: []string{},
		Outlinks: l.Outgoing, Backlinks: l.Backlinks, SameTags: l.SameTags, Siblings: []NoteRef{},
		OutlinksTotal: l.OutgoingTotal, BacklinksTotal: l.BacklinksTotal, SameTagsTotal: l.SameTagsTotal, Truncated: l.Truncated}
	if n, err := note.Parse(p, blob.Content); err == nil {
		out.Title, out.Frontmatter = n.Title, frontmatterOf(n)
		if n.Tags != nil {
			out.Tags = n.Tags
		}
	}
	entries, err := t.v.List(ctx, p.Folder(), "")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.Dir || e.Path == p || !note.IsNote(e.Path) || isNornPath(e.Path) || !c.Visible(ctx, e.Path) {
			continue
		}
		out.SiblingsTotal++
		if len(out.Siblings) < limit {
			out.Siblings = append(out.Siblings, NoteRef{Path: e.Path, Revision: e.Revision})
		}
	}
	out.Truncated = out.Truncated || out.SiblingsTotal > len(out.Siblings)
	return out, nil
}

// --- stats ---

// StatsArgs are stats' arguments.
type StatsArgs struct {
	Limit  int `json:"limit,omitempty" jsonschema:"rows per table (default 50, at most 500)"`
	Offset int `json:"offset,omitempty" jsonschema:"skip this many rows of each table: the folders_next_offset, tags_next_offset or edge_types_next_offset of the previous page"`
}

// stats is VaultStats as the caller may see it: notes hidden from it (and their
// links, tags and folders) are not counted.
func (t *mcpTools) stats(ctx context.Context, c *caller, in StatsArgs) (*vault.Stats, error) {
	limit, err := bound("limit", in.Limit, 50, 500)
	if err != nil {
		return nil, err
	}
	if in.Offset < 0 {
		return nil, errInput("offset must be 0 or more, not %d", in.Offset)
	}
	if _, err := c.PrivateAtHead(ctx); err != nil {
		return nil, fmt.Errorf("stats: %w", err) // fail closed
	}
	return vault.VisibleVaultStats(ctx, t.v, limit, in.Offset, c.Hidden(ctx))
}
