package ledger

import (
	"context"
	"fmt"
	"time"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// Archived is one entry of the archive catalog: a note archived and not back at
// its path since.
type Archived struct {
	Path note.Path `json:"path"`
	// Reason is the archive's Norn-Reason (archived, superseded, retracted).
	Reason repo.Reason `json:"reason"`
	// Who archived it ("Name <email>", the commit's author) and when.
	Who  string    `json:"who"`
	When time.Time `json:"when"`
	// Commit is the archive commit; Revision the note's last revision, which
	// restore brings back (the short form, as archive prints it, too).
	Commit   repo.CommitID `json:"commit"`
	Revision repo.Revision `json:"revision"`
}

// CatalogStep is what one commit does to the archive catalog, from its
// trailers and its changes: a note it removes in a commit whose Norn-Op is
// archive enters (with the commit's Norn-Reason, author and time, and the
// note's last revision); a path it brings a note to — written, edited,
// restored, moved there — leaves. A note leaving its path by a move is not
// archived; a removal in any other commit (a merge bringing in another side's
// archive, whose own commit entered it) changes nothing.
func CatalogStep(ev repo.Event, enter func(Archived), leave func(note.Path)) {
	for _, ch := range ev.Changes {
		if !note.IsNote(ch.Path) {
			continue
		}
		switch ch.Kind {
		case repo.EventArchived:
			if ev.Op == repo.OpArchive {
				enter(Archived{Path: ch.Path, Reason: ev.Reason, Who: fmt.Sprintf("%s <%s>", ev.Author.Name, ev.Author.Email),
					When: ev.When, Commit: ev.ID, Revision: ch.OldRevision})
			}
		default:
			leave(ch.Path)
		}
	}
}

// CatalogChanges folds the commits reachable from to and not from ("" from: the
// whole history), parents first, through CatalogStep: each path whose entry
// they change, with its entry now (nil: it left the catalog). A rebuild takes
// the non-nil entries of CatalogChanges(ctx, v, "", head); a catch-up applies
// CatalogChanges(ctx, v, old, head) to what it had, which comes to the same.
func CatalogChanges(ctx context.Context, v *repo.Vault, from, to repo.CommitID) (map[note.Path]*Archived, error) {
	out := map[note.Path]*Archived{}
	enter := func(a Archived) { out[a.Path] = &a }
	leave := func(p note.Path) { out[p] = nil }
	for ev, err := range v.EventsBetween(ctx, from, to) {
		if err != nil {
			return nil, fmt.Errorf("archive catalog: %w", err)
		}
		CatalogStep(ev, enter, leave)
	}
	return out, nil
}
