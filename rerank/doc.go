// Package rerank owns the gated reranker: it decides per query, from BM25's own
// scores, whether the top of a ranking is contested (Gate); if so it sends the top
// K public candidates to an OpenAI-compatible chat-completions endpoint under a
// documented wire contract (docs/rerank.md), and merges the model's scores back
// into the BM25 order (Merge) so that private candidates keep their slots and an
// unsure model changes nothing. It caches answers by query and the candidates'
// revisions, keeps a per-day budget of calls and tokens, appends one egress record
// per call, and labels every outcome (Result.Engine).
//
// It must never: read the index or the notes (its caller hands it candidates and
// says which are private); send any part of a private candidate, nor their count;
// put the API key in a log line, an error or the egress file; let a failure of the
// endpoint fail a search (the BM25 order stands); read environment variables or
// configuration files (cmd/norn passes what it found).
package rerank
