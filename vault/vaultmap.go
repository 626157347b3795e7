package vault

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// NoteRef names a note: its path, and its title or revision where the answer
// has them.
type NoteRef struct {
	Path     note.Path     `json:"path"`
	Title    string        `json:"title,omitempty"`
	Revision repo.Revision `json:"revision,omitempty"`
}

// MapRequest bounds the lists of a Map: the most recent commits, the most used
// tags and the folders (by path) it holds.
type MapRequest struct {
	Recent, Tags, Folders int
}

// Map is an overview of the vault as a viewer sees it (vault_map's answer).
type Map struct {
	HeadCommit string `json:"head_commit"`
	Notes      int    `json:"notes"`
	// Inbox is the folder capture writes to.
	Inbox         string       `json:"inbox"`
	RootDocs      []NoteRef    `json:"root_docs"`
	RootDocsTotal int          `json:"root_docs_total"`
	Folders       []Count      `json:"folders"`
	FoldersTotal  int          `json:"folders_total"`
	Tags          []Count      `json:"tags"`
	TagsTotal     int          `json:"tags_total"`
	Recent        []CommitInfo `json:"recent"`
	// Truncated says a list was cut at its limit.
	Truncated bool `json:"truncated"`
}

const maxRootDocs = 50

// Map returns the overview of the vault the viewer sees: its notes, root docs,
// folders and tags without the notes hidden from it, and its recent commits as
// VisibleLog lists them.
func (c *Viewer) Map(ctx context.Context, r MapRequest) (*Map, error) {
	src, err := c.v.Graph(ctx) // the index, or the notes at HEAD read when it is unavailable
	if err != nil {
		return nil, fmt.Errorf("vault map: %w", err)
	}
	notes, err := src.NotesHiding(c.Hidden(ctx))
	if err != nil {
		return nil, GraphErr("vault map", err)
	}
	out := &Map{HeadCommit: src.Commit(), Inbox: c.Config().Inbox, RootDocs: []NoteRef{}, Recent: []CommitInfo{}}
	folders, tags := map[string]int{}, map[string]int{}
	var roots []NoteRef
	for _, n := range notes {
		if IsNornPath(n.Path) {
			continue
		}
		out.Notes++
		for _, t := range n.Tags {
			tags[t]++
		}
		folder := n.Path.Folder()
		if folder == "" {
			roots = append(roots, NoteRef{Path: n.Path, Title: n.Title})
		}
		for folder != "" {
			folders[folder]++
			i := strings.LastIndexByte(folder, '/')
			if i < 0 {
				break
			}
			folder = folder[:i]
		}
	}
	sort.SliceStable(roots, func(i, j int) bool {
		a, b := rootRank(roots[i].Path), rootRank(roots[j].Path)
		if a != b {
			return a < b
		}
		return roots[i].Path < roots[j].Path
	})
	out.RootDocsTotal = len(roots)
	if len(roots) > maxRootDocs {
		roots, out.Truncated = roots[:maxRootDocs], true
	}
	out.RootDocs = append(out.RootDocs, roots...)
	out.FoldersTotal = len(folders)
	names := make([]string, 0, len(folders))
	for f := range folders {
		names = append(names, f)
	}
	sort.Strings(names)
	if len(names) > r.Folders {
		names, out.Truncated = names[:r.Folders], true
	}
	out.Folders = make([]Count, len(names))
	for i, f := range names {
		out.Folders[i] = Count{Name: f, Notes: folders[f]}
	}
	out.TagsTotal = len(tags)
	var cut bool
	out.Tags, cut = Top(tags, r.Tags)
	out.Truncated = out.Truncated || cut
	commits, _, err := c.VisibleLog(ctx, "", 0, r.Recent)
	if err != nil {
		return nil, fmt.Errorf("vault map: %w", err)
	}
	out.Recent = append(out.Recent, commits...)
	return out, nil
}

// rootRank puts the usual entry points first among the root docs.
func rootRank(p note.Path) int {
	switch strings.ToLower(string(p)) {
	case "readme.md":
		return 0
	case "_index.md", "index.md":
		return 1
	}
	return 2
}
