// Package graph is Norn's derived index, kept in pebble: full-text search over notes
// (BM25F postings with positions, per-field lengths and collection statistics,
// snippets and best sections), the link graph beside it (what each note links to,
// resolved in memory: backlinks, neighbourhoods, hubs, orphans, paths) and derived
// tables of opaque rows (Row) for callers such as the ledger.
//
// It owns the index directory it is given (.git/norn/index in a vault) and the keys
// under its namespaces there ("s/" search, "g/" link graph, "r/" rows). It knows
// nothing about git: a caller feeds it typed records — Doc, Remove, Row — in one
// Batch per commit (Update) or as one stream (Rebuild) and says which commit they
// reflect; the index records that commit atomically with the data, so after a crash
// the caller catches up by diffing from Commit(). Everything in it can be rebuilt
// from the vault, so a format mismatch (ErrFormat) or damage (ErrCorrupt) means
// "remove the directory and rebuild", and Scan answers queries meanwhile. It does
// not judge a note's privacy: the caller marks private notes (Doc.Private), and a
// search that hides them (SearchOptions.HidePrivate) answers as an index without
// them would. Nor does it interpret a Row's value.
//
// It must never import a Norn package other than note, read files on its own, log
// note text above Debug, or let pebble types or errors escape its API.
package graph
