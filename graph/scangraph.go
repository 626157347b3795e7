package graph

import (
	"slices"
	"strings"

	"github.com/norn-vault/norn/note"
)

// ScanGraph is the link graph of a set of parsed notes held in memory, without an
// index: what the link queries answer from when the index is locked by another
// process or being rebuilt. Built from the same notes, it answers exactly as an
// Index does. It never changes once built and is safe for concurrent use.
type ScanGraph struct {
	commit   string
	g        *linkGraph
	contexts map[note.Path][]string
}

// NewScanGraph builds the link graph of docs (notes and attachments, as Rebuild
// takes them) at commit.
func NewScanGraph(commit string, docs []Doc) *ScanGraph {
	docs = slices.Clone(docs)
	slices.SortFunc(docs, func(a, b Doc) int { return strings.Compare(string(a.Path), string(b.Path)) })
	docs = slices.CompactFunc(docs, func(a, b Doc) bool { return a.Path == b.Path })
	var recs []nodeRec
	var atts []note.Path
	ctxs := make(map[note.Path][]string, len(docs))
	for _, d := range docs {
		if d.Note == nil {
			atts = append(atts, d.Path)
			continue
		}
		r := nodeRecOf(d.Note, d.Unparsed)
		ctxs[r.names.path] = r.contexts
		recs = append(recs, r)
	}
	return &ScanGraph{commit: commit, g: buildLinkGraph(recs, atts), contexts: ctxs}
}

// Commit returns the commit the graph was built at.
func (s *ScanGraph) Commit() string { return s.commit }

func (s *ScanGraph) contextsOf(p note.Path, idx []int) ([]string, error) {
	cs := s.contexts[p]
	out := make([]string, len(idx))
	for k, i := range idx {
		if i < len(cs) {
			out[k] = cs[i]
		}
	}
	return out, nil
}

// Links is Index.Links over the scanned notes.
func (s *ScanGraph) Links(p note.Path, limit int) (*NoteLinks, error) {
	return s.LinksHiding(p, limit, nil)
}

// LinksHiding is Index.LinksHiding over the scanned notes.
func (s *ScanGraph) LinksHiding(p note.Path, limit int, hidden Hidden) (*NoteLinks, error) {
	return s.g.noteLinks(s.commit, p, limit, hidden, s.contextsOf)
}

// Inbound is Index.Inbound over the scanned notes.
func (s *ScanGraph) Inbound(p note.Path) ([]LinkRef, error) { return s.g.inbound(p, nil, s.contextsOf) }

// InboundHiding is Index.InboundHiding over the notes in memory.
func (s *ScanGraph) InboundHiding(p note.Path, hidden Hidden) ([]LinkRef, error) {
	return s.g.inbound(p, hidden, s.contextsOf)
}

// Resolve is Index.Resolve over the scanned notes.
func (s *ScanGraph) Resolve(from note.Path, l note.Link) (Resolution, error) {
	return s.g.res.Resolve(from, l), nil
}

// ResolveHiding is Index.ResolveHiding over the scanned notes.
func (s *ScanGraph) ResolveHiding(from note.Path, l note.Link, hidden Hidden) (Resolution, error) {
	return s.g.res.ResolveHiding(from, l, hidden), nil
}

// Resolver is Index.Resolver over the scanned notes.
func (s *ScanGraph) Resolver() (*Resolver, string, error) { return s.g.res.clone(), s.commit, nil }

// NotesHiding is Index.NotesHiding over the scanned notes.
func (s *ScanGraph) NotesHiding(hidden Hidden) ([]NoteInfo, error) { return s.g.notes(hidden), nil }

// Referrers is Index.Referrers over the scanned notes.
func (s *ScanGraph) Referrers(notes []*note.Note) ([]note.Path, error) {
	return s.g.referrers(notes), nil
}

// Stats is Index.Stats over the scanned notes.
func (s *ScanGraph) Stats(limit, offset int) (*GraphStats, error) {
	return s.StatsHiding(limit, offset, nil)
}

// StatsHiding is Index.StatsHiding over the scanned notes.
func (s *ScanGraph) StatsHiding(limit, offset int, hidden Hidden) (*GraphStats, error) {
	limit, err := statsArgs(limit, offset)
	if err != nil {
		return nil, err
	}
	return s.g.stats(s.commit, limit, offset, hidden), nil
}

// Neighborhood is Index.Neighborhood over these notes.
func (s *ScanGraph) Neighborhood(p note.Path, opts NeighborhoodOptions) (*Neighborhood, error) {
	return s.g.neighborhood(s.commit, p, opts)
}

// HubsHiding is Index.HubsHiding over these notes.
func (s *ScanGraph) HubsHiding(limit, offset int, hidden Hidden) (*NodeList, error) {
	return s.g.hubs(s.commit, limit, offset, hidden)
}

// OrphansHiding is Index.OrphansHiding over these notes.
func (s *ScanGraph) OrphansHiding(limit, offset int, hidden Hidden) (*NodeList, error) {
	return s.g.orphans(s.commit, limit, offset, hidden)
}

// ShortestPath is Index.ShortestPath over these notes.
func (s *ScanGraph) ShortestPath(a, b note.Path, maxDepth int) (*GraphPath, error) {
	return s.g.shortestPath(s.commit, a, b, maxDepth)
}
