package mcp

import (
	"context"

	"github.com/norn-vault/norn/vault"
)

// --- list_archived ---

// ListArchivedArgs are list_archived's arguments.
type ListArchivedArgs struct {
	Folder string `json:"folder,omitempty" jsonschema:"only notes under this folder, at any depth (default: the whole vault)"`
	Since  string `json:"since,omitempty" jsonschema:"only notes archived at or after this date (YYYY-MM-DD, from the start of that day, UTC) or RFC 3339 time"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most entries (default 50, at most 500)"`
}

// ListArchivedResult is list_archived's answer (vault.ArchiveCatalog).
type ListArchivedResult = vault.ArchiveCatalog

func (t *mcpTools) listArchived(ctx context.Context, c *caller, in ListArchivedArgs) (*ListArchivedResult, error) {
	limit, err := bound("limit", in.Limit, 50, 500)
	if err != nil {
		return nil, err
	}
	folder, err := folderArg(in.Folder)
	if err != nil {
		return nil, err
	}
	cat, err := c.Archived(ctx, vault.ArchiveQuery{Folder: folder, Since: in.Since, Limit: limit})
	if err != nil {
		return nil, inputToolError(err)
	}
	return cat, nil
}
