// Package feed is the live change feed: every commit on the vault's branch as a
// message to websocket clients, resumable from any commit they saw.
//
// A Hub is fed repo.Events (Publish, which New subscribes to the vault) and fans
// them out to clients, each with a bounded queue of its own: a client that falls
// behind is closed with code 1008 and a reason naming the last commit it was sent,
// and resumes with since. Handler serves the websocket endpoint (GET /v1/events)
// with callbacks it is given for authentication, origin checks and privacy, so it
// knows nothing of tokens, principals or the vault's privacy rule. Watch is the
// reference client: it reconnects with backoff and resumes where it left off.
//
// It must never make a writer wait for a subscriber, never let one client delay
// another, never send a client a path its Visible function hides (nor a commit's
// subject or message, which may name one), and never guess: a since it cannot
// replay from gets a resync message with the current head. It imports only note
// and repo.
package feed
