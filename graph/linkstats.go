package graph

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Count is one row of a per-folder, per-tag or per-edge-type table.
type Count struct {
	Name  string `json:"name"`
	Notes int    `json:"notes"`
}

// LinkCounts counts link occurrences outside code, embeds included (typed edges
// are counted apart, per type).
type LinkCounts struct {
	Total     int `json:"total"`
	Resolved  int `json:"resolved"`
	Broken    int `json:"broken"`
	Ambiguous int `json:"ambiguous"`
}

// GraphStats describes the vault at the index's commit.
type GraphStats struct {
	Commit string     `json:"commit"`
	Notes  int        `json:"notes"`
	Files  int        `json:"files"`
	Links  LinkCounts `json:"links"`
	// Edges counts the typed edges by where they resolve (Links counts body links).
	Edges     LinkCounts `json:"edges"`
	Orphans   int        `json:"orphans"`
	Unparsed  int        `json:"unparsed"`
	Folders   []Count    `json:"folders"`
	Tags      []Count    `json:"tags"`
	EdgeTypes []Count    `json:"edge_types"`
	// FoldersTotal, TagsTotal and EdgeTypesTotal count every row; each table is
	// the page [offset, offset+limit) of rows sorted by count, then name, and its
	// *NextOffset is where its next page starts (0 when this is its last).
	FoldersTotal        int  `json:"folders_total"`
	TagsTotal           int  `json:"tags_total"`
	EdgeTypesTotal      int  `json:"edge_types_total"`
	FoldersNextOffset   int  `json:"folders_next_offset,omitempty"`
	TagsNextOffset      int  `json:"tags_next_offset,omitempty"`
	EdgeTypesNextOffset int  `json:"edge_types_next_offset,omitempty"`
	Truncated           bool `json:"truncated,omitempty"`
}

// Stats counts notes, links by status, and notes per folder, tag and edge type.
// Each table is sorted by count (most first, ties by name) and paged by limit
// (default 50, at most 1000) and offset.
func (ix *Index) Stats(limit, offset int) (*GraphStats, error) {
	return ix.StatsHiding(limit, offset, nil)
}

// StatsHiding is Stats as seen by a caller that may not see the hidden notes and
// attachments: the Stats of the vault without them (a visible note's link that a
// hidden note answers counts by where it resolves without it).
func (ix *Index) StatsHiding(limit, offset int, hidden Hidden) (*GraphStats, error) {
	limit, err := statsArgs(limit, offset)
	if err != nil {
		return nil, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	g, err := ix.graph()
	if err != nil {
		return nil, err
	}
	return g.stats(ix.commit, limit, offset, hidden), nil
}

func statsArgs(limit, offset int) (int, error) {
	limit = cmp.Or(limit, 50)
	if limit < 1 || limit > 1000 {
		return 0, fmt.Errorf("stats: limit %d: %w", limit, errRange("limit", 1, 1000))
	}
	if offset < 0 {
		return 0, fmt.Errorf("stats: offset %d: %w", offset, errRange("offset", 0, 1<<31-1))
	}
	return limit, nil
}

func (g *linkGraph) stats(commit string, limit, offset int, hidden Hidden) *GraphStats {
	st := &GraphStats{Commit: commit}
	folders, tags, etypes := map[string]int{}, map[string]int{}, map[string]int{}
	v := g.view(hidden).all()
	for id, n := range g.nodes {
		if n == nil || v.hides(int32(id)) {
			continue
		}
		st.Files++
		if n.attachment {
			continue
		}
		st.Notes++
		if n.rec.unparsed {
			st.Unparsed++
		}
		folder := n.rec.names.path.Folder()
		if folder == "" {
			folder = "/"
		}
		folders[folder]++
		for _, t := range uniq(n.rec.tags) {
			tags[t]++
		}
		seenType := map[string]bool{}
		for i, l := range n.rec.links {
			c := &st.Links
			if l.typed() {
				c = &st.Edges
				if t := l.etype(); !seenType[t] {
					seenType[t] = true
					etypes[t]++
				}
			}
			c.Total++
			switch v.out(int32(id), i).status {
			case statusResolved:
				c.Resolved++
			case statusBroken:
				c.Broken++
			case statusAmbiguous:
				c.Ambiguous++
			}
		}
		if nd := g.nodeOf(int32(id), 0, v); nd.Backlinks == 0 && nd.Links == 0 {
			st.Orphans++
		}
	}
	var more bool
	st.Folders, st.FoldersTotal, more = page(folders, limit, offset)
	st.FoldersNextOffset = nextOffset(more, offset, len(st.Folders))
	st.Tags, st.TagsTotal, more = page(tags, limit, offset)
	st.TagsNextOffset = nextOffset(more, offset, len(st.Tags))
	st.EdgeTypes, st.EdgeTypesTotal, more = page(etypes, limit, offset)
	st.EdgeTypesNextOffset = nextOffset(more, offset, len(st.EdgeTypes))
	st.Truncated = st.FoldersNextOffset+st.TagsNextOffset+st.EdgeTypesNextOffset > 0
	return st
}

func nextOffset(more bool, offset, n int) int {
	if more {
		return offset + n
	}
	return 0
}

// page sorts m's rows by count, then name, and returns the page [offset,
// offset+limit), the number of rows, and whether rows follow the page.
func page(m map[string]int, limit, offset int) ([]Count, int, bool) {
	rows := make([]Count, 0, len(m))
	for k, v := range m {
		rows = append(rows, Count{Name: k, Notes: v})
	}
	slices.SortFunc(rows, func(a, b Count) int {
		if c := cmp.Compare(b.Notes, a.Notes); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	if offset >= len(rows) {
		return []Count{}, len(rows), false
	}
	end := min(len(rows), offset+limit)
	return rows[offset:end], len(rows), end < len(rows)
}
