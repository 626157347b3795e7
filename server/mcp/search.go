package mcp

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/rerank"
	"github.com/norn-vault/norn/vault"
)

// SearchArgs are search's arguments.
type SearchArgs struct {
	Query                string `json:"query" jsonschema:"the query (see the tool description for the syntax)"`
	Limit                int    `json:"limit,omitempty" jsonschema:"hits per page (default 10, at most 50)"`
	Offset               int    `json:"offset,omitempty" jsonschema:"hits to skip: pass next_offset from the previous page (at most 1000)"`
	Folder               string `json:"folder,omitempty" jsonschema:"only notes under this folder"`
	Literal              bool   `json:"literal,omitempty" jsonschema:"take the query as plain words, no operators"`
	WaitForPendingWrites bool   `json:"wait_for_pending_writes,omitempty" jsonschema:"wait (up to 2 s) until the index has every commit; an index still behind is an index_stale error"`
	Rerank               string `json:"rerank,omitempty" jsonschema:"rerank the top with this machine's model: auto (the default) when BM25's top is contested; off never; force always. Private notes are never sent; engine says what happened,enum=auto,enum=off,enum=force"`
}

// SearchHit is one search result.
type SearchHit struct {
	Path     note.Path `json:"path"`
	Title    string    `json:"title"`
	Score    float64   `json:"score"`
	Line     int       `json:"line"`
	Snippet  string    `json:"snippet"`
	Section  string    `json:"section"`
	Revision string    `json:"revision"`
	Matched  []string  `json:"matched"`
	// Inbound is present when the inbound field (what other notes say where
	// they link here) added to the score: the linking line holding the most
	// query words, and its note.
	Inbound *SearchInbound `json:"inbound,omitempty"`
	// Synthesis is the hit's synthesis status when it is a registered summary;
	// every hit's draws on the result's one SynthesisBudget.
	Synthesis *vault.SynthesisStatus `json:"synthesis,omitempty"`
	// Claims are the live claims read from the note, at most 5, each fresh or not.
	Claims []NoteClaim `json:"claims,omitempty"`
}

// SearchInbound is a line of another note that links to a hit.
type SearchInbound struct {
	From note.Path `json:"from"`
	Line string    `json:"line"`
}

// SearchResult is search's answer.
type SearchResult struct {
	Engine      string  `json:"engine"`
	IndexCommit string  `json:"index_commit"`
	HeadCommit  string  `json:"head_commit"`
	IndexStale  bool    `json:"index_stale"`
	TookMS      float64 `json:"took_ms"`
	// Total counts the matching notes you can see: for a caller without the private
	// scope, the search ran as if the private notes were not there.
	Total int `json:"total"`
	// Truncated: the degraded scan stopped at its bound before reading every note.
	Truncated bool        `json:"truncated"`
	Hits      []SearchHit `json:"hits"`
	// NextOffset is the offset of the next page, absent on the last page.
	NextOffset int `json:"next_offset,omitempty"`
	// Rerank is what asking the reranker cost, when it was asked.
	Rerank *vault.RerankStats `json:"rerank,omitempty"`
	// SynthesisBudget is the budget the hits' synthesis statuses shared, when a
	// hit is a registered summary.
	SynthesisBudget *vault.SynthesisBudget `json:"synthesis_budget,omitempty"`
}

func (t *mcpTools) search(ctx context.Context, c *caller, in SearchArgs) (*SearchResult, error) {
	if strings.TrimSpace(in.Query) == "" {
		return nil, errInput("query is required")
	}
	limit, err := bound("limit", in.Limit, 10, 50)
	if err != nil {
		return nil, err
	}
	if in.Offset < 0 || in.Offset > maxSearchOffset {
		return nil, errInput("offset must be between 0 and %d, not %d", maxSearchOffset, in.Offset)
	}
	folder, err := folderArg(in.Folder)
	if err != nil {
		return nil, err
	}
	mode, err := rerank.ParseMode(in.Rerank)
	if err != nil {
		return nil, errInput("rerank must be auto, off or force, not %q", in.Rerank)
	}
	start := time.Now()
	// A caller without the private scope searches the public view (Viewer.Search).
	req := vault.SearchRequest{Query: in.Query, Folder: folder, Literal: in.Literal, WaitForPendingWrites: in.WaitForPendingWrites,
		Limit: limit + 1, Offset: in.Offset, Rerank: mode} // one more than a page says whether there is a next one
	first, err := c.Search(ctx, req)
	if err != nil {
		return nil, err
	}
	hits, total := first.Hits, first.Total
	if in.WaitForPendingWrites && first.Engine == vault.EngineBM25 && first.IndexStale && !first.CaughtUp() {
		return nil, &ToolError{Class: ClassRetryable, Code: CodeIndexStale,
			Message: fmt.Sprintf("the index is at %s and HEAD at %s: it is still catching up (a rebuild may be running); retry in a moment, or search without wait_for_pending_writes for results that may miss the newest commits",
				first.IndexCommit, first.HeadCommit)}
	}
	out := &SearchResult{Engine: first.Engine, IndexCommit: first.IndexCommit, HeadCommit: first.HeadCommit,
		IndexStale: first.IndexStale, Truncated: first.Truncated, Total: total, Hits: []SearchHit{}, Rerank: first.Rerank}
	more := len(hits) > limit
	if len(hits) > limit {
		hits = hits[:limit]
	}
	budget := c.SynthesisBudget()
	for _, h := range hits {
		m := h.Matched
		if m == nil {
			m = []string{}
		}
		sh := SearchHit{Path: h.Path, Title: h.Title, Score: h.Score, Line: h.Line,
			Snippet: h.Snippet, Section: h.Section, Revision: h.Revision, Matched: m}
		if in := h.Inbound; in != nil { // a caller without the private scope is answered from the public view: no private line

			sh.Inbound = &SearchInbound{From: in.From, Line: in.Text}
		}
		if sh.Synthesis = t.freshness(ctx, c, h.Path, budget); sh.Synthesis != nil {
			out.SynthesisBudget = budget
		}
		out.Hits = append(out.Hits, sh)
	}
	if first.IndexCommit != "" { // a degraded scan's hits carry no claims: reading them would scan too
		if err := c.hitClaims(ctx, out.Hits); err != nil {
			return nil, err
		}
	}
	if more && in.Offset+len(hits) <= maxSearchOffset {
		out.NextOffset = in.Offset + len(hits)
	}
	out.TookMS = float64(time.Since(start).Microseconds()) / 1000
	return out, nil
}

// --- read_note ---
