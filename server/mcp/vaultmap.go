package mcp

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/vault"
)

// VaultMapArgs are vault_map's arguments.
type VaultMapArgs struct {
	Recent  int `json:"recent,omitempty" jsonschema:"how many recent commits (default 10, at most 50)"`
	Tags    int `json:"tags,omitempty" jsonschema:"how many tags, most used first (default 30, at most 200)"`
	Folders int `json:"folders,omitempty" jsonschema:"how many folders, by path (default 100, at most 500)"`
}

// VaultMap is vault_map's answer.
type VaultMap struct {
	HeadCommit string `json:"head_commit"`
	Notes      int    `json:"notes"`
	// Inbox is the folder capture writes to.
	Inbox         string        `json:"inbox"`
	RootDocs      []NoteRef     `json:"root_docs"`
	RootDocsTotal int           `json:"root_docs_total"`
	Folders       []vault.Count `json:"folders"`
	FoldersTotal  int           `json:"folders_total"`
	Tags          []vault.Count `json:"tags"`
	TagsTotal     int           `json:"tags_total"`
	Recent        []CommitInfo  `json:"recent"`
	// Truncated says a list was cut at its limit.
	Truncated bool `json:"truncated"`
}

const maxRootDocs = 50

func (t *mcpTools) vaultMap(ctx context.Context, c *caller, in VaultMapArgs) (*VaultMap, error) {
	recent, err := bound("recent", in.Recent, 10, 50)
	if err != nil {
		return nil, err
	}
	ntags, err := bound("tags", in.Tags, 30, 200)
	if err != nil {
		return nil, err
	}
	nfolders, err := bound("folders", in.Folders, 100, 500)
	if err != nil {
		return nil, err
	}
	src, err := t.v.Graph(ctx) // the index, or the notes at HEAD read when it is unavailable
	if err != nil {
		return nil, fmt.Errorf("vault map: %w", err)
	}
	notes, err := src.NotesHiding(c.Hidden(ctx))
	if err != nil {
		return nil, vault.GraphErr("vault map", err)
	}
	out := &VaultMap{HeadCommit: src.Commit(), Inbox: c.Config().Inbox, RootDocs: []NoteRef{}, Recent: []CommitInfo{}}
	folders, tags := map[string]int{}, map[string]int{}
	var roots []NoteRef
	for _, n := range notes {
		if isNornPath(n.Path) {
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
	if len(names) > nfolders {
		names, out.Truncated = names[:nfolders], true
	}
	out.Folders = make([]vault.Count, len(names))
	for i, f := range names {
		out.Folders[i] = vault.Count{Name: f, Notes: folders[f]}
	}
	out.TagsTotal = len(tags)
	var cut bool
	out.Tags, cut = vault.Top(tags, ntags)
	out.Truncated = out.Truncated || cut
	commits, _, err := t.visibleLog(ctx, c, "", 0, recent)
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

// isNornPath reports whether p is Norn's own (under .norn/).
func isNornPath(p note.Path) bool { return strings.HasPrefix(string(p), ".norn/") }

// --- search ---
