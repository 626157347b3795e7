package vault

import (
	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/repo"
)

// Assemble builds a Vault from parts for tests that hold a second index handle or
// none: x nil is an index this process has not opened (LazyIndex).
func Assemble(rv *repo.Vault, s *Settings, x *Indexer) *Vault {
	if x == nil {
		x = newIndexer(rv, graph.Options{}, nil)
		x.lazy, x.unopened = true, true
	}
	return &Vault{repo: rv, Settings: s, Index: x}
}

// Repo is the vault's repository, for tests.
func (v *Vault) Repo() *repo.Vault { return v.repo }
