package mcp

import "github.com/norn-vault/norn/vault"

// CommitInfo is one commit as the tools report it (vault.CommitInfo): to a
// caller without the private scope, commits of private notes do not exist.
type CommitInfo = vault.CommitInfo
