// Package bench owns `norn bench`'s measurements.
//
// Search (`norn bench search`) loads a corpus and its queries, builds a throw-away
// vault and index from the corpus, times queries and index catch-up, runs the
// SQLite FTS5 anchor script on the same corpus, and scores both runs against
// judgements with package metric.
//
// Scale (`norn bench scale`, `make bench-scale`) measures a norn binary as its
// users meet it, on generated vaults of 10,000 and 100,000 notes cached between
// runs: commands as new processes beside the git CLI, a full rebuild and the
// queries beside FTS5, and a running `norn serve` (idle CPU, RSS, a hand edit,
// catch-up after a hand commit). Every process it starts has ended when it
// returns.
//
// Both return a report; printing it, and flags, belong to cmd/norn. It never
// touches a vault it did not create, and it reads no environment or
// configuration: the caller passes what it found.
package bench
