// Package graph is Norn's derived index, kept in pebble: full-text search over notes
// (BM25F postings with positions, per-field lengths and collection statistics,
// snippets and best sections) and, later, the link graph tables beside it.
//
// It owns the index directory it is given (.git/norn/index in a vault) and the keys
// under its namespaces there ("s/" for search). It knows nothing about git: a caller
// feeds it parsed notes (Update, Rebuild) and says which commit they reflect; the
// index records that commit atomically with the data, so after a crash the caller
// catches up by diffing from Commit(). Everything in it can be rebuilt from the
// notes, so a format mismatch (ErrFormat) or damage (ErrCorrupt) means "remove the
// directory and rebuild", and Scan answers queries meanwhile. It does not judge a
// note's privacy: the caller marks private notes (Doc.Private), and a search that
// hides them (SearchOptions.HidePrivate) answers as an index without them would.
//
// It must never import a Norn package other than note, read files on its own, log
// note text above Debug, or let pebble types or errors escape its API.
package graph
