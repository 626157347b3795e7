package vault

import (
	"context"
	"fmt"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// DiffRequest asks for the changes between commits From and To (each a commit-ish
// Commit resolves) as a viewer sees them, at most Limit listed, and the bytes of
// the note at Path ("": none) before and after.
type DiffRequest struct {
	From, To string
	Path     note.Path
	Limit    int
}

// Diff is the changes between two commits a viewer sees.
type Diff struct {
	From, To repo.CommitID
	Changes  []repo.FileChange
	// Total counts the changed paths the viewer sees.
	Total     int
	Truncated bool
	// Path changed (visibly) between the commits when PathChanged; Before and
	// After are its bytes in From and To (nil where it did not exist).
	PathChanged   bool
	Before, After []byte
}

// VisibleDiff returns the changes r asks for: to a viewer that may not see
// private notes, a change of a note hidden from it before or after does not
// exist.
func (c *Viewer) VisibleDiff(ctx context.Context, r DiffRequest) (*Diff, error) {
	from, err := c.v.Commit(ctx, r.From)
	if err != nil {
		return nil, fmt.Errorf("diff from %s: %w", r.From, err)
	}
	tc, err := c.v.Commit(ctx, r.To)
	if err != nil {
		return nil, fmt.Errorf("diff to %s: %w", r.To, err)
	}
	changes, err := c.v.Diff(ctx, string(from.ID), string(tc.ID))
	if err != nil {
		return nil, err
	}
	p := r.Path
	out := &Diff{From: from.ID, To: tc.ID, Changes: []repo.FileChange{}}
	var mine *repo.FileChange
	for i, ch := range changes {
		if c.SeesAll() && len(out.Changes) >= r.Limit && (p == "" || mine != nil) {
			out.Truncated = true
			out.Total += len(changes) - i // not examined: all visible
			break
		}
		if !c.SeesAll() && (!c.VisibleAt(ctx, ch.Path, ch.Revision) || !c.VisibleAt(ctx, ch.Path, ch.OldRevision)) {
			continue
		}
		out.Total++
		if ch.Path == p {
			mine = &changes[i]
		}
		if len(out.Changes) < r.Limit {
			out.Changes = append(out.Changes, ch)
		} else {
			out.Truncated = true
		}
	}
	if mine == nil {
		return out, nil
	}
	out.PathChanged = true
	if mine.OldRevision != "" {
		if out.Before, err = c.v.ReadRevision(ctx, mine.OldRevision); err != nil {
			return nil, err
		}
	}
	if mine.Revision != "" {
		if out.After, err = c.v.ReadRevision(ctx, mine.Revision); err != nil {
			return nil, err
		}
	}
	return out, nil
}
