package vault

import (
	"context"
	"errors"
	"fmt"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// LinkRef is one link occurrence: a body link or a typed edge (kind "edge", with
// its type and why).
type LinkRef = graph.LinkRef

// Links is what NoteLinks answers.
type Links = graph.NoteLinks

// NoteLinks returns a note's outgoing links (resolved, broken, ambiguous; its
// typed edges last, kind "edge"), its backlinks with their context lines (a typed
// edge's is its why), and the notes sharing a tag with it, each list cut at limit
// (default 50) with totals. It answers from the index, brought up to HEAD first;
// when the index is unavailable (locked by another process, being rebuilt), from
// the notes at HEAD read into memory, with the same answer. A note not at HEAD is
// repo.ErrNotFound.
func NoteLinks(ctx context.Context, v *Vault, p note.Path, limit int) (*Links, error) {
	return VisibleNoteLinks(ctx, v, p, limit, nil)
}

// VisibleNoteLinks is NoteLinks as seen by a caller that may not see the hidden notes
// (graph.Index.LinksHiding).
func VisibleNoteLinks(ctx context.Context, v *Vault, p note.Path, limit int, hidden graph.Hidden) (*Links, error) {
	lv, err := v.linkView(ctx)
	if err != nil {
		return nil, fmt.Errorf("links %s: %w", p, err)
	}
	l, err := lv.src.LinksHiding(p, limit, hidden)
	if errors.Is(err, graph.ErrUnknownNote) {
		return nil, fmt.Errorf("links %s: %w: no such note at HEAD", p, repo.ErrNotFound)
	}
	return l, GraphErr("links", err)
}

// LinkSource answers the link queries: the index (*graph.Index) or, when it is
// unavailable, the notes at HEAD in memory (*graph.ScanGraph).
type LinkSource interface {
	Commit() string
	LinksHiding(p note.Path, limit int, hidden graph.Hidden) (*graph.NoteLinks, error)
	StatsHiding(limit, offset int, hidden graph.Hidden) (*graph.GraphStats, error)
	Inbound(p note.Path) ([]graph.LinkRef, error)
	InboundHiding(p note.Path, hidden graph.Hidden) ([]graph.LinkRef, error)
	Resolve(from note.Path, l note.Link) (graph.Resolution, error)
	ResolveHiding(from note.Path, l note.Link, hidden graph.Hidden) (graph.Resolution, error)
	Resolver() (*graph.Resolver, string, error)
	Referrers(notes []*note.Note) ([]note.Path, error)
	NotesHiding(hidden graph.Hidden) ([]graph.NoteInfo, error)
	Neighborhood(p note.Path, opts graph.NeighborhoodOptions) (*graph.Neighborhood, error)
	HubsHiding(limit, offset int, hidden graph.Hidden) (*graph.NodeList, error)
	EdgesAmong(paths []note.Path, hidden graph.Hidden) ([]graph.Edge, error)
	OrphansHiding(limit, offset int, hidden graph.Hidden) (*graph.NodeList, error)
	ShortestPath(a, b note.Path, maxDepth int) (*graph.GraphPath, error)
}

var (
	_ LinkSource = (*graph.Index)(nil)
	_ LinkSource = (*graph.ScanGraph)(nil)
)

// linkView is a link source and the notes behind it, at one commit.
type linkView struct {
	src    LinkSource
	commit string
	vault  *repo.Vault
	// scan holds every note at commit when src is a scan; with the index, notes
	// are read (and kept) as they are asked for.
	scan  *vaultNotes
	notes map[note.Path]viewNote
}

type viewNote struct {
	n   *note.Note
	rev repo.Revision
}

// linkView returns the index brought up to HEAD or, when it is unavailable, the
// notes at HEAD read and resolved in memory.
func (v *Vault) linkView(ctx context.Context) (*linkView, error) {
	ix, err := v.Index.Graph(ctx)
	if err == nil {
		return &linkView{src: ix, commit: ix.Commit(), vault: v.repo, notes: map[note.Path]viewNote{}}, nil
	}
	if !errors.Is(err, ErrIndexUnavailable) || ctx.Err() != nil {
		return nil, err
	}
	v.Index.log.Debug("link query without the index: reading the notes at HEAD", "why", err)
	vn, err := loadNotes(ctx, v.repo)
	if err != nil {
		return nil, err
	}
	return &linkView{src: vn.graph(), commit: vn.commit, vault: v.repo, scan: vn}, nil
}

// Graph returns the link graph at HEAD: the index brought up to HEAD or, when it
// is unavailable, the notes at HEAD read and resolved in memory. Its Commit is
// the commit it reflects.
func (v *Vault) Graph(ctx context.Context) (LinkSource, error) {
	lv, err := v.linkView(ctx)
	if err != nil {
		return nil, err
	}
	return lv.src, nil
}

// current reports whether the source still reflects the view's commit (the
// index moves on when a write lands meanwhile).
func (lv *linkView) current() bool { return lv.src.Commit() == lv.commit }

// note returns the note at p at the view's commit, parsed as the index parses
// notes, and its revision; repo.ErrNotFound when there is none.
func (lv *linkView) note(ctx context.Context, p note.Path) (*note.Note, repo.Revision, error) {
	if lv.scan != nil {
		if n := lv.scan.find(p); n != nil {
			return n, lv.scan.revs[p], nil
		}
		return nil, "", fmt.Errorf("%w: %s does not exist at HEAD", repo.ErrNotFound, p)
	}
	if vn, ok := lv.notes[p]; ok {
		return vn.n, vn.rev, nil
	}
	b, err := lv.vault.Read(ctx, p, lv.commit)
	if err != nil {
		return nil, "", err
	}
	n := parseAt(p, b.Content)
	lv.notes[p] = viewNote{n, b.Revision}
	return n, b.Revision, nil
}

// revision returns the revision of the file at p at the view's commit, "" when
// there is none.
func (lv *linkView) revision(ctx context.Context, p note.Path) (repo.Revision, error) {
	if lv.scan != nil {
		return lv.scan.revs[p], nil
	}
	if vn, ok := lv.notes[p]; ok {
		return vn.rev, nil
	}
	b, err := lv.vault.Read(ctx, p, lv.commit)
	switch {
	case errors.Is(err, repo.ErrNotFound):
		return "", nil
	case err != nil:
		return "", err
	}
	return b.Revision, nil
}

// Resolve resolves l, written in from, at the view's commit. An index closed
// meanwhile resolves nothing (broken); callers resolve once through src first.
func (lv *linkView) Resolve(from note.Path, l note.Link) graph.Resolution {
	res, err := lv.src.Resolve(from, l)
	if err != nil {
		return graph.Resolution{Status: graph.LinkBroken}
	}
	return res
}
