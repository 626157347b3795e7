package mcp

import (
	"context"

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
type VaultMap = vault.Map

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
	return c.Map(ctx, vault.MapRequest{Recent: recent, Tags: ntags, Folders: nfolders})
}

// isNornPath reports whether p is Norn's own (under .norn/).
func isNornPath(p note.Path) bool { return vault.IsNornPath(p) }

// --- search ---
