// Package ledger gives git history its meaning as a ledger: the history of a note
// that follows its moves, the archive catalog, claims that know when their source
// has changed, and summaries that know whether their sources have drifted.
//
// It reads the vault through repo and never writes the index itself: the vault
// layer derives the ledger's tables (graph.Row records) from what this package
// decodes, and writes claims and registrations as ordinary commits. See
// docs/ledger.md.
package ledger
