package vault

import (
	"context"
	"fmt"
	"sort"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// LinkCounts counts link occurrences outside code, embeds included
// (graph.LinkCounts).
type LinkCounts = graph.LinkCounts

// Count is one row of a per-folder, per-tag or per-edge-type table.
type Count = graph.Count

// Stats describes the vault at HEAD (graph.GraphStats): notes, files, body links
// and typed edges by status, orphans, notes whose frontmatter breaks the codec's
// rules (their body's links still count), and the folder, tag and edge-type
// tables, each paged with its total and next offset.
type Stats = graph.GraphStats

// VaultStats counts notes, links, folders, tags and edge types at HEAD. Each table
// is sorted by count (most first, ties by name) and paged: limit rows (default 50,
// at most 1000) from offset. It answers from the index, brought up to HEAD first;
// when the index is unavailable, from the notes at HEAD read into memory, with
// the same answer.
func VaultStats(ctx context.Context, v *Vault, limit, offset int) (*Stats, error) {
	return VisibleVaultStats(ctx, v, limit, offset, nil)
}

// VisibleVaultStats is VaultStats as seen by a caller that may not see the hidden notes.
func VisibleVaultStats(ctx context.Context, v *Vault, limit, offset int, hidden graph.Hidden) (*Stats, error) {
	lv, err := v.linkView(ctx)
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	st, err := lv.src.StatsHiding(limit, offset, hidden)
	return st, GraphErr("stats", err)
}

// CheckFollowTypes refuses the edge types a graph walk is asked to follow that
// are neither link (body links), nor registered (edges.types), nor the type of an
// edge in the vault as the caller sees it (hidden: nil for all), which notes
// written under the off profile, or before a type was dropped, may hold. The
// error (config.ErrInvalid) lists the registered types.
func (v *Vault) CheckFollowTypes(ctx context.Context, types []string, hidden graph.Hidden) error {
	cfg, _, _ := v.Settings.Current(ctx)
	if cfg.Edges.CheckFollow(types, nil) == nil {
		return nil
	}
	st, err := VisibleVaultStats(ctx, v, 1000, 0, hidden)
	if err != nil {
		return err
	}
	var present []string
	for _, c := range st.EdgeTypes {
		present = append(present, c.Name)
	}
	return cfg.Edges.CheckFollow(types, present)
}

// vaultNotes is every note at HEAD, parsed, with a resolver over them.
type vaultNotes struct {
	commit   string
	files    int
	notes    []*note.Note // sorted by path
	unparsed int
	resolver *graph.Resolver
	revs     map[note.Path]repo.Revision // of every file
	docs     []graph.Doc                 // the notes and the attachments
}

// loadNotes reads and parses every note at HEAD (on every core). A note whose
// frontmatter breaks the codec's rules keeps the links of its body.
func loadNotes(ctx context.Context, v *repo.Vault) (*vaultNotes, error) {
	files, head, err := v.Files(ctx, "")
	if err != nil {
		return nil, err
	}
	out := &vaultNotes{commit: string(head), files: len(DocFiles(files)), revs: make(map[note.Path]repo.Revision, len(files))}
	var attachments []note.Path
	for _, f := range files {
		out.revs[f.Path] = f.Revision
		if !note.IsNote(f.Path) && indexed(f.Path) {
			attachments = append(attachments, f.Path)
			out.docs = append(out.docs, graph.Doc{Path: f.Path, Revision: string(f.Revision)})
		}
	}
	for d, err := range readDocs(ctx, v, config.Privacy{}, NotesOnly(DocFiles(files))) { // privacy is not asked of these
		if err != nil {
			return nil, err
		}
		if d.Unparsed {
			out.unparsed++ // parseDoc kept the links of its body
		}
		out.notes = append(out.notes, d.Note)
		out.docs = append(out.docs, d)
	}
	sort.Slice(out.notes, func(i, j int) bool { return out.notes[i].Path < out.notes[j].Path })
	out.resolver = graph.NewResolver(out.notes)
	out.resolver.AddFiles(attachments)
	return out, nil
}

// graph is the link graph of the notes, in memory.
func (vn *vaultNotes) graph() *graph.ScanGraph { return graph.NewScanGraph(vn.commit, vn.docs) }

// find returns the note at p, or nil.
func (vn *vaultNotes) find(p note.Path) *note.Note {
	i := sort.Search(len(vn.notes), func(i int) bool { return vn.notes[i].Path >= p })
	if i < len(vn.notes) && vn.notes[i].Path == p {
		return vn.notes[i]
	}
	return nil
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

// Top is the limit most frequent keys of m, most frequent first, and whether
// there were more.
func Top(m map[string]int, limit int) ([]Count, bool) {
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
