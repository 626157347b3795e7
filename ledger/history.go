package ledger

import (
	"context"
	"fmt"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// Entry is one line of a note's history: a commit that changed the note, under
// the path the note had then.
type Entry struct {
	repo.Commit
	// Path is the note's path at this commit (before it, for a move away).
	Path note.Path `json:"path"`
	// Kind is what the commit did to the note: added, modified, moved, archived
	// or restored (repo's event kinds).
	Kind repo.EventKind `json:"kind"`
	// From is where a move brought the note from; To where a move took it (in
	// the history of the path it left). Either is "" when the caller may not see
	// that path (HistoryOptions.Show).
	From note.Path `json:"from,omitempty"`
	To   note.Path `json:"to,omitempty"`
	// Revision is the note's revision after the commit ("" when it left Path);
	// OldRevision the one before ("" when it arrived).
	Revision    repo.Revision `json:"revision,omitempty"`
	OldRevision repo.Revision `json:"old_revision,omitempty"`
}

// HistoryOptions shape a History.
type HistoryOptions struct {
	// Limit is the most entries returned (<= 0: 50).
	Limit int
	// Show reports whether the caller may see the note at path p with revision
	// rev (nil: every note). A move from a path it may not see is listed with no
	// From, and the note's older history is not followed there; a move to one is
	// listed with no To.
	Show func(p note.Path, rev repo.Revision) bool
}

// History returns the history of the note at p (or of the path p, when no note
// is there now), newest first: every commit that changed it, following it
// across moves. A move is one entry, under the new path with its old one in
// From; the entries before it are those of the old path. A move is what the
// commit's changes say it is (repo.Vault.CommitChange: the same blob removed and
// added, or the one removal and one addition of a commit whose Norn-Op is move).
// A path that was archived and later written again keeps its older history, as
// git log --follow does.
func History(ctx context.Context, v *repo.Vault, p note.Path, opts HistoryOptions) ([]Entry, error) {
	limit := opts.Limit
	if limit <= 0 {
		limit = 50
	}
	show := opts.Show
	if show == nil {
		show = func(note.Path, repo.Revision) bool { return true }
	}
	out := make([]Entry, 0, min(limit, 1024))
	err := v.WalkPath(ctx, p, func(st repo.PathStep) (note.Path, bool, error) {
		e := Entry{Commit: st.Commit, Path: st.Path, Revision: st.Revision, OldRevision: st.ParentRevision}
		next := st.Path
		switch {
		case st.Revision != "" && st.ParentRevision != "":
			e.Kind = repo.EventModified
		default:
			ch, err := changeAt(ctx, v, st)
			if err != nil {
				return "", false, err
			}
			e.Kind = ch.Kind
			switch {
			case ch.Kind == repo.EventMoved && ch.Path == st.Path:
				// The note arrived here by a move: follow it to where it was.
				e.OldRevision = ch.OldRevision
				if next = ""; show(ch.From, ch.OldRevision) {
					e.From, next = ch.From, ch.From
				}
			case ch.Kind == repo.EventMoved:
				// The note left this path by a move.
				if show(ch.Path, ch.Revision) {
					e.To = ch.Path
				}
			}
		}
		out = append(out, e)
		return next, len(out) < limit, nil
	})
	if err != nil {
		return nil, fmt.Errorf("history of %s: %w", p, err)
	}
	return out, nil
}

// changeAt finds the change of st's commit that added or removed st.Path: a
// move into or out of it, or its addition, restore or archive.
func changeAt(ctx context.Context, v *repo.Vault, st repo.PathStep) (repo.EventChange, error) {
	ch, ok, err := v.CommitChange(ctx, st.Commit.ID, st.Path)
	if err != nil || ok {
		return ch, err
	}
	// Not against the first parent (a merge that took the path from another
	// side): what the walk saw.
	kind := repo.EventAdded
	if st.Revision == "" {
		kind = repo.EventArchived
	}
	return repo.EventChange{Kind: kind, Path: st.Path, Revision: st.Revision, OldRevision: st.ParentRevision}, nil
}
