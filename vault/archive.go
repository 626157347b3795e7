package vault

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/ledger"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// archiveTable is the index table of the archive catalog: one row per note
// archived and not back at its path, keyed by path, its value the entry's other
// fields (encodeArchived).
const archiveTable = "archive"

// archiveDeriver keeps the archive catalog (ledger.CatalogChanges).
type archiveDeriver struct{}

// AllRows folds the whole history reachable from head.
func (archiveDeriver) AllRows(ctx context.Context, v *repo.Vault, head repo.CommitID, _ []repo.File) iter.Seq2[graph.Row, error] {
	return func(yield func(graph.Row, error) bool) {
		cat, err := ledger.CatalogChanges(ctx, v, "", head)
		if err != nil {
			yield(graph.Row{}, err)
			return
		}
		for _, p := range slices.Sorted(maps.Keys(cat)) {
			if cat[p] == nil {
				continue
			}
			r, err := archiveRow(p, cat[p])
			if !yield(r, err) || err != nil {
				return
			}
		}
	}
}

// ChangedRows folds the commits between from and to.
func (archiveDeriver) ChangedRows(ctx context.Context, v *repo.Vault, from, to repo.CommitID, _ []repo.FileChange) ([]graph.Row, error) {
	cat, err := ledger.CatalogChanges(ctx, v, from, to)
	if err != nil {
		return nil, err
	}
	rows := make([]graph.Row, 0, len(cat))
	for _, p := range slices.Sorted(maps.Keys(cat)) {
		r, err := archiveRow(p, cat[p])
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// archiveRow is p's row: a's entry, or its deletion when a is nil.
func archiveRow(p note.Path, a *ledger.Archived) (graph.Row, error) {
	if a == nil {
		return graph.Row{Table: archiveTable, Key: []byte(p), Delete: true}, nil
	}
	return graph.Row{Table: archiveTable, Key: []byte(p), Value: encodeArchived(a)}, nil
}

// encodeArchived is a catalog row's value: reason, who, when (Unix
// nanoseconds), commit and revision, separated by NUL bytes (none of them holds
// one: a git identity cannot). A lookup decodes a thousand in well under a
// millisecond, which JSON does not.
func encodeArchived(a *ledger.Archived) []byte {
	return []byte(strings.Join([]string{string(a.Reason), a.Who, strconv.FormatInt(a.When.UnixNano(), 10), string(a.Commit), string(a.Revision)}, "\x00"))
}

// decodeArchived reads the row of p (encodeArchived).
func decodeArchived(p note.Path, b []byte) (ledger.Archived, error) {
	f := strings.Split(string(b), "\x00")
	if len(f) != 5 {
		return ledger.Archived{}, fmt.Errorf("archive catalog %s: %w: a row of %d fields", p, graph.ErrCorrupt, len(f))
	}
	ns, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return ledger.Archived{}, fmt.Errorf("archive catalog %s: %w: time %q", p, graph.ErrCorrupt, f[2])
	}
	return ledger.Archived{Path: p, Reason: repo.Reason(f[0]), Who: f[1], When: time.Unix(0, ns).UTC(),
		Commit: repo.CommitID(f[3]), Revision: repo.Revision(f[4])}, nil
}

// ArchiveQuery selects entries of the archive catalog.
type ArchiveQuery struct {
	// Folder keeps the notes under it, at any depth ("" every note).
	Folder string
	// Since keeps the notes archived at or after it: YYYY-MM-DD (from the start of
	// that day, UTC) or an RFC 3339 time ("" any time).
	Since string
	// Limit is the most entries returned (<= 0: all).
	Limit int
}

// ArchiveCatalog is the answer to an ArchiveQuery, in path order.
type ArchiveCatalog struct {
	Archived []ledger.Archived `json:"archived"`
	// Total counts the entries that matched; Truncated says Limit cut them.
	Total     int  `json:"total"`
	Truncated bool `json:"truncated"`
	// Source is "index" (the catalog table) or "history" (the index could not be
	// used, so the history was walked for it).
	Source string `json:"source"`
}

// Archived lists the archive catalog as the viewer sees it: the notes archived
// and not back at their paths, with the reason, who and when, and the last
// revision (what restore takes). It is a lookup in the index's catalog table,
// caught up with HEAD first; without a usable index it walks the history
// instead (Source says which). An entry the viewer may not see (a private
// folder, or private bytes at its last revision) is left out and not counted.
func (c *Viewer) Archived(ctx context.Context, q ArchiveQuery) (*ArchiveCatalog, error) {
	folder := strings.Trim(q.Folder, "/")
	if folder != "" {
		if err := repo.ValidPath(folder); err != nil {
			return nil, invalidf("folder %q: %v", q.Folder, err)
		}
		folder += "/"
	}
	var since time.Time
	if q.Since != "" {
		var err error
		if since, _, err = ledger.ParseDate(q.Since); err != nil {
			return nil, invalidf("since: %v", err)
		}
	}
	entries, source, err := c.v.archiveEntries(ctx, folder)
	if err != nil {
		return nil, err
	}
	out := &ArchiveCatalog{Archived: []ledger.Archived{}, Source: source}
	for _, a := range entries {
		if a.When.Before(since) || !c.VisibleAt(ctx, a.Path, a.Revision) {
			continue
		}
		out.Total++
		if q.Limit > 0 && len(out.Archived) == q.Limit {
			out.Truncated = true
			continue
		}
		out.Archived = append(out.Archived, a)
	}
	return out, nil
}

// archiveEntries returns the catalog's entries under folder (a prefix ending in
// "/", or "" for all), in path order, from the index or else from the history.
func (v *Vault) archiveEntries(ctx context.Context, folder string) ([]ledger.Archived, string, error) {
	x := v.Index
	x.load()
	if err := x.CatchUp(ctx); err != nil && ctx.Err() == nil {
		x.log.Warn("catch up index", "err", err)
	}
	if ix, _ := x.index(); ix != nil && ix.Commit() == string(v.Head()) {
		rows, err := ix.Rows(ctx, archiveTable, []byte(folder))
		if err == nil {
			out := make([]ledger.Archived, 0, len(rows))
			for _, r := range rows {
				a, err := decodeArchived(note.Path(r.Key), r.Value)
				if err != nil {
					return nil, "", err
				}
				out = append(out, a)
			}
			return out, "index", nil
		}
		x.log.Warn("read archive catalog", "err", x.checked(ix, err))
	}
	cat, err := ledger.CatalogChanges(ctx, v.repo, "", v.Head())
	if err != nil {
		return nil, "", err
	}
	var out []ledger.Archived
	for _, p := range slices.Sorted(maps.Keys(cat)) {
		if a := cat[p]; a != nil && strings.HasPrefix(string(p), folder) {
			out = append(out, *a)
		}
	}
	return out, "history", nil
}
