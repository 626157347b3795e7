package vault

import (
	"context"
	"errors"
	"fmt"

	"github.com/norn-vault/norn/errcode"
	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// ErrIndexUnavailable means the index cannot answer graph queries yet (it is
// missing, locked or being rebuilt); it is worth retrying (errcode.IndexStale).
var ErrIndexUnavailable = errcode.New(errcode.IndexStale, "index unavailable")

// Graph returns the index brought up to HEAD, for graph queries. Its errors match
// ErrIndexUnavailable (a lazy index not opened yet has none: Graph does not open it).
func (x *Indexer) Graph(ctx context.Context) (*graph.Index, error) {
	ix, problem := x.index()
	if ix == nil {
		return nil, fmt.Errorf("%w: %s", ErrIndexUnavailable, problem)
	}
	if err := x.CatchUp(ctx); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrIndexUnavailable, err)
	}
	if err := x.checked(ix, ix.LoadLinks()); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrIndexUnavailable, err)
	}
	return ix, nil
}

// graphNow is Graph without waiting: the index when it is at HEAD (after a catch-up
// only if no other one is running), else nil.
func (x *Indexer) graphNow() *graph.Index {
	ix, _ := x.index()
	if ix == nil {
		return nil
	}
	if ix.Commit() != string(x.vault.Head()) {
		x.catchUpNow() // skipped when a catch-up or rebuild holds the lock
		if ix.Commit() != string(x.vault.Head()) {
			return nil
		}
	}
	if x.checked(ix, ix.LoadLinks()) != nil {
		return nil
	}
	return ix
}

// GraphErr classifies a graph query's error: an unknown note is repo.ErrNotFound,
// a bad argument repo.ErrInvalid.
func GraphErr(what string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, graph.ErrUnknownNote):
		return fmt.Errorf("%s: %w: %w", what, repo.ErrNotFound, err)
	case errors.Is(err, graph.ErrArg):
		return fmt.Errorf("%s: %w: %w", what, repo.ErrInvalid, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// Neighborhood is graph.Index.Neighborhood at HEAD. It, Hubs, Orphans and
// ShortestPath answer as NoteLinks does: from the index brought up to HEAD or,
// when the index is unavailable (locked by another process, being rebuilt), from
// the notes at HEAD read into memory, with the same answer.
func (v *Vault) Neighborhood(ctx context.Context, p note.Path, opts graph.NeighborhoodOptions) (*graph.Neighborhood, error) {
	lv, err := v.linkView(ctx)
	if err != nil {
		return nil, err
	}
	nb, err := lv.src.Neighborhood(p, opts)
	return nb, GraphErr("neighborhood", err)
}

// Hubs is graph.Index.Hubs at HEAD.
func (v *Vault) Hubs(ctx context.Context, limit, offset int) (*graph.NodeList, error) {
	lv, err := v.linkView(ctx)
	if err != nil {
		return nil, err
	}
	l, err := lv.src.HubsHiding(limit, offset, nil)
	return l, GraphErr("hubs", err)
}

// Orphans is graph.Index.Orphans at HEAD.
func (v *Vault) Orphans(ctx context.Context, limit, offset int) (*graph.NodeList, error) {
	lv, err := v.linkView(ctx)
	if err != nil {
		return nil, err
	}
	l, err := lv.src.OrphansHiding(limit, offset, nil)
	return l, GraphErr("orphans", err)
}

// ShortestPath is graph.Index.ShortestPath at HEAD.
func (v *Vault) ShortestPath(ctx context.Context, a, b note.Path, maxDepth int) (*graph.GraphPath, error) {
	lv, err := v.linkView(ctx)
	if err != nil {
		return nil, err
	}
	p, err := lv.src.ShortestPath(a, b, maxDepth)
	return p, GraphErr("path", err)
}
