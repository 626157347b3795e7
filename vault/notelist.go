package vault

import (
	"context"
	"sort"
	"strings"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// ListRequest asks for one page of the notes under Folder ("" for the whole
// vault, every depth below it), in path order, after the path After ("" for the
// first page).
type ListRequest struct {
	Folder string
	After  note.Path
	Limit  int
	// Titles: also read each listed note's title (its file name's stem when the
	// note does not parse).
	Titles bool
}

// NoteList is one page of the notes under a folder as a viewer sees them.
type NoteList struct {
	Commit repo.CommitID
	Notes  []NoteRef
	// Total counts the notes under the folder the viewer sees.
	Total int
	// More: notes follow the page (ask again with After the last one's path).
	More bool
}

// IsNornPath reports whether p is Norn's own (under .norn/), not a note of the
// vault's.
func IsNornPath(p note.Path) bool { return strings.HasPrefix(string(p), ".norn/") }

// ListNotes returns the page r asks for of the notes at HEAD the viewer sees. A
// folder holding only notes hidden from the viewer does not exist for it: a folder
// that does not exist is an *InputError wrapping repo.ErrNotFound.
func (c *Viewer) ListNotes(ctx context.Context, r ListRequest) (*NoteList, error) {
	files, head, err := c.v.Files(ctx, "")
	if err != nil {
		return nil, err
	}
	prefix := ""
	if r.Folder != "" {
		prefix = r.Folder + "/"
	}
	var notes []repo.File
	exists := r.Folder == ""
	for _, f := range files {
		if !strings.HasPrefix(string(f.Path), prefix) || !c.Visible(ctx, f.Path) {
			continue
		}
		exists = true
		if note.IsNote(f.Path) && !IsNornPath(f.Path) {
			notes = append(notes, f)
		}
	}
	if !exists {
		return nil, missingf("", "folder %s does not exist: see the folders with vault_map or list_notes", r.Folder)
	}
	sort.Slice(notes, func(i, j int) bool { return notes[i].Path < notes[j].Path })
	out := &NoteList{Commit: head, Notes: []NoteRef{}, Total: len(notes)}
	i := sort.Search(len(notes), func(i int) bool { return notes[i].Path > r.After })
	for ; i < len(notes) && len(out.Notes) < r.Limit; i++ {
		n := NoteRef{Path: notes[i].Path, Revision: notes[i].Revision}
		if r.Titles {
			n.Title = c.v.titleAt(ctx, n.Path, n.Revision)
		}
		out.Notes = append(out.Notes, n)
	}
	out.More = i < len(notes) && len(out.Notes) > 0
	return out, nil
}

// titleAt is the title of the note at p with revision rev: its file name's stem
// when it cannot be read or parsed.
func (v *Vault) titleAt(ctx context.Context, p note.Path, rev repo.Revision) string {
	if b, err := v.ReadRevision(ctx, rev); err == nil {
		if n, err := note.Parse(p, b); err == nil {
			return n.Title
		}
	}
	return note.Stem(p)
}
