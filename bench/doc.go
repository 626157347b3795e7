// Package bench owns `norn bench search`'s evaluation: it loads a corpus and its
// queries, builds a throw-away vault and index from the corpus, times queries and
// index catch-up, runs the SQLite FTS5 anchor script on the same corpus, and scores
// both runs against judgements with package metric. It returns a Report; printing
// it, and flags, belong to cmd/norn.
//
// It never touches a vault it did not create, and it reads no environment or
// configuration: the caller passes what it found.
package bench
