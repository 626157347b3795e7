// Package vault is Norn's application layer: an open vault with everything wired
// (the repository, the write gates under the vault's settings, the search index
// and its upkeep) and every domain operation, called the same way by every
// surface — the CLI, the MCP tools, the local endpoint and, as they land, the web,
// sync and the feed.
//
// It owns Open and Close of a vault (Options.LazyIndex keeps a CLI command from
// opening the index), the writes (Apply, WriteNote, EditNote, Capture, FileNote,
// MoveNote, ArchiveNote, RestoreNote, LinkNotes, UnlinkNotes, and the sync's
// Advance and Merge, all in turn with a move's commit), the reads (search through Indexer, ResolveName, links, stats,
// the graph queries, reads at any revision), the Maintainer, and the privacy
// rule: Viewer is the one answer to "may this actor see this note?", and its
// methods are the reads that depend on it (VisibleLog, VisibleDiff, ListNotes, Map).
//
// It never imports a surface (server, server/auth, server/mcp, cmd/norn): who
// asks is an Actor, a plain value the surfaces make from their own callers. It
// never speaks a wire protocol: no JSON-RPC, no HTTP, no tool schemas. Nothing
// outside it reaches repo.Vault.Apply, which bypasses the move lock.
package vault
