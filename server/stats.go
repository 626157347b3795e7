package server

import (
	"context"
	"fmt"
	"sort"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// LinkCounts counts link occurrences outside code, embeds included.
type LinkCounts struct {
	Total     int `json:"total"`
	Resolved  int `json:"resolved"`
	Broken    int `json:"broken"`
	Ambiguous int `json:"ambiguous"`
}

// Count is one row of a per-folder or per-tag table.
type Count struct {
	Name  string `json:"name"`
	Notes int    `json:"notes"`
}

// Stats describes the vault at HEAD.
type Stats struct {
	Commit string     `json:"commit"`
	Notes  int        `json:"notes"`
	Files  int        `json:"files"`
	Links  LinkCounts `json:"links"`
	// Unparsed counts notes whose frontmatter breaks the codec's rules (their links
	// are still counted: the body parses).
	Unparsed  int     `json:"unparsed"`
	Folders   []Count `json:"folders"`
	Tags      []Count `json:"tags"`
	EdgeTypes []Count `json:"edge_types"`
	// Truncated says the folder, tag or edge-type tables were cut at the limit.
	Truncated bool `json:"truncated,omitempty"`
}

// VaultStats reads every note at HEAD, resolves every link (graph.Resolver) and
// counts notes, links, folders, tags and edge types. Tables are sorted by count and
// cut at limit rows each.
func VaultStats(ctx context.Context, v *repo.Vault, limit int) (*Stats, error) {
	if limit <= 0 {
		limit = 50
	}
	vn, err := loadNotes(ctx, v)
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	st := &Stats{Commit: vn.commit, Files: vn.files, Notes: len(vn.notes), Unparsed: vn.unparsed}
	notes, r := vn.notes, vn.resolver
	folders, tags, edges := map[string]int{}, map[string]int{}, map[string]int{}
	for _, n := range notes {
		folder := n.Path.Folder()
		if folder == "" {
			folder = "/"
		}
		folders[folder]++
		for _, t := range n.Tags {
			tags[t]++
		}
		for _, e := range n.Edges {
			edges[e.Type]++
		}
		for _, l := range n.Links {
			st.Links.Total++
			switch r.Resolve(n.Path, l).Status {
			case graph.LinkResolved:
				st.Links.Resolved++
			case graph.LinkBroken:
				st.Links.Broken++
			case graph.LinkAmbiguous:
				st.Links.Ambiguous++
			}
		}
	}
	var cut bool
	st.Folders, cut = top(folders, limit)
	st.Truncated = st.Truncated || cut
	st.Tags, cut = top(tags, limit)
	st.Truncated = st.Truncated || cut
	st.EdgeTypes, cut = top(edges, limit)
	st.Truncated = st.Truncated || cut
	return st, nil
}

// vaultNotes is every note at HEAD, parsed, with a resolver over them.
type vaultNotes struct {
	commit   string
	files    int
	notes    []*note.Note // sorted by path
	unparsed int
	resolver *graph.Resolver
}

// loadNotes reads and parses every note at HEAD (on every core). A note whose
// frontmatter breaks the codec's rules keeps the links of its body.
func loadNotes(ctx context.Context, v *repo.Vault) (*vaultNotes, error) {
	files, head, err := v.Files(ctx, "")
	if err != nil {
		return nil, err
	}
	out := &vaultNotes{commit: string(head), files: len(files)}
	var attachments []note.Path
	for _, f := range files {
		if !isNote(f.Path) {
			attachments = append(attachments, f.Path)
		}
	}
	for d, err := range readDocs(ctx, v, notesOnly(files)) {
		if err != nil {
			return nil, err
		}
		if d.Unparsed {
			out.unparsed++ // parseDoc kept the links of its body
		}
		out.notes = append(out.notes, d.Note)
	}
	sort.Slice(out.notes, func(i, j int) bool { return out.notes[i].Path < out.notes[j].Path })
	out.resolver = graph.NewResolver(out.notes)
	out.resolver.AddFiles(attachments)
	return out, nil
}

// bodyAfterFrontmatter returns the bytes after a leading "---" block, or nil.
func bodyAfterFrontmatter(raw []byte) []byte {
	s := string(raw)
	if len(s) < 4 || s[:4] != "---\n" {
		return nil
	}
	for i := 4; i < len(s); {
		j := i
		for j < len(s) && s[j] != '\n' {
			j++
		}
		line := s[i:j]
		if line == "---" || line == "..." {
			if j < len(s) {
				return raw[j+1:]
			}
			return []byte{}
		}
		i = j + 1
	}
	return nil
}

func top(m map[string]int, limit int) ([]Count, bool) {
	out := make([]Count, 0, len(m))
	for k, n := range m {
		out = append(out, Count{Name: k, Notes: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Notes != out[j].Notes {
			return out[i].Notes > out[j].Notes
		}
		return out[i].Name < out[j].Name
	})
	if len(out) > limit {
		return out[:limit], true
	}
	return out, false
}
