package vault

import (
	"context"
	"slices"
	"strings"

	"github.com/norn-vault/norn/ledger"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// History returns the history of the note at p (or of the path, when no note is
// there now) that follows its moves, newest first, at most limit entries
// (ledger.History). It shows every path: the surfaces that answer a viewer use
// Viewer.VisibleHistory.
func (v *Vault) History(ctx context.Context, p note.Path, limit int) ([]ledger.Entry, error) {
	return ledger.History(ctx, v.repo, p, ledger.HistoryOptions{Limit: limit})
}

// HistoryEntry is one line of a note's history as a viewer sees it: the commit
// (CommitInfo, its subject and paths filtered as VisibleLog filters them) and
// what it did to the note. In the history of the whole vault only CommitInfo is
// set.
type HistoryEntry struct {
	CommitInfo
	// Path is the note's path at the commit; Kind what the commit did to it
	// (added, modified, moved, archived, restored).
	Path note.Path      `json:"path,omitempty"`
	Kind repo.EventKind `json:"kind,omitempty"`
	// From: a move brought the note from there; To: a move took it there. A path
	// the viewer may not see is never named: the move is listed without it, and
	// the history is not followed into it.
	From note.Path `json:"from,omitempty"`
	To   note.Path `json:"to,omitempty"`
	// Revision is the note's revision after the commit ("" when it left Path);
	// OldRevision the one before ("" when it arrived).
	Revision    repo.Revision `json:"revision,omitempty"`
	OldRevision repo.Revision `json:"old_revision,omitempty"`
}

// VisibleHistory returns the entries skip to skip+n of the history of the note
// at p that the viewer may see (History, following moves only into paths it
// may see), and whether another follows. A note the viewer may not see at HEAD
// has no history (the answer for a path with no note); an entry of a revision
// it may not see (a note private for a while) is left out. It reaches at most
// MaxHistory entries back.
func (c *Viewer) VisibleHistory(ctx context.Context, p note.Path, skip, n int) ([]HistoryEntry, bool, error) {
	out := []HistoryEntry{}
	if !c.Visible(ctx, p) {
		return out, false, nil
	}
	want := min(skip+n+1, MaxHistory+1)
	show := func(q note.Path, rev repo.Revision) bool { return c.VisibleAt(ctx, q, rev) }
	// Entries the viewer may not see are dropped after the walk: walk again,
	// further, while they leave the page short.
	for window := want; ; window = min(2*window, maxLogScan) {
		entries, err := ledger.History(ctx, c.v.repo, p, ledger.HistoryOptions{Limit: window, Show: show})
		if err != nil {
			return nil, false, err
		}
		out = out[:0]
		for _, e := range entries {
			if he, ok := c.historyEntry(ctx, e, show); ok {
				out = append(out, he)
			}
		}
		if len(out) >= want || len(entries) < window || window == maxLogScan {
			break
		}
	}
	if skip >= len(out) {
		return []HistoryEntry{}, false, nil
	}
	end := min(len(out), skip+n)
	return out[skip:end], len(out) > end, nil
}

// historyEntry is e as the viewer sees it; ok is false when it may not see the
// revision e is about, or any path of e's commit.
func (c *Viewer) historyEntry(ctx context.Context, e ledger.Entry, show func(note.Path, repo.Revision) bool) (HistoryEntry, bool) {
	rev := e.Revision
	if rev == "" {
		rev = e.OldRevision
	}
	if !c.all && !show(e.Path, rev) {
		return HistoryEntry{}, false
	}
	ci, ok := c.commitInfo(ctx, e.Commit)
	if !ok {
		return HistoryEntry{}, false
	}
	return HistoryEntry{CommitInfo: ci, Path: e.Path, Kind: e.Kind, From: e.From, To: e.To,
		Revision: e.Revision, OldRevision: e.OldRevision}, true
}

// ResolveRevision turns a revision as history and the archive catalog print it
// — the full blob id, or its first repo.MinPrefix or more hex digits — into the
// full revision of the note at p, looked up among the revisions p's history
// (History, following moves) holds that the viewer may see: a prefix names only
// what that note was, never another object of the repository. None is
// ErrNotFound; two or more is ErrInvalid listing them.
func (c *Viewer) ResolveRevision(ctx context.Context, p note.Path, prefix string) (repo.Revision, error) {
	if len(prefix) < repo.MinPrefix || len(prefix) > 40 || !isHexString(prefix) {
		return "", invalidf("revision %q is not a blob id: give %d to 40 hex digits, as history or archived print it", prefix, repo.MinPrefix)
	}
	prefix = strings.ToLower(prefix)
	show := func(q note.Path, rev repo.Revision) bool { return c.VisibleAt(ctx, q, rev) }
	entries, err := ledger.History(ctx, c.v.repo, p, ledger.HistoryOptions{Limit: MaxHistory, Show: show})
	if err != nil {
		return "", err
	}
	var found []string
	for _, e := range entries {
		for _, rev := range []repo.Revision{e.Revision, e.OldRevision} {
			if rev != "" && strings.HasPrefix(string(rev), prefix) && !slices.Contains(found, string(rev)) && show(e.Path, rev) {
				found = append(found, string(rev))
			}
		}
	}
	switch len(found) {
	case 0:
		return "", missingf(p, "no revision %s in the history of %s: take one from history path=%s or list_archived", prefix, p, p)
	case 1:
		return repo.Revision(found[0]), nil
	}
	slices.Sort(found)
	return "", invalidf("revision %s is ambiguous in the history of %s: %s; give more digits", prefix, p, strings.Join(found, ", "))
}

// isHexString reports whether s is hex digits only.
func isHexString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
