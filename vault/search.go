package vault

import (
	"bytes"
	"context"
	"time"
	"unicode/utf8"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/rerank"
)

// sectionCap bounds the text of a candidate's best section handed to the
// reranker (which cuts it again to its own cap, 600 bytes by default).
const sectionCap = 2048

// RerankStats are what a search's call to the reranker cost (SearchResponse.Rerank):
// present when the model was asked, answered from the cache, or skipped by the budget.
type RerankStats struct {
	Cached    bool `json:"cached,omitempty"`
	TokensIn  int  `json:"tokens_in"`
	TokensOut int  `json:"tokens_out"`
	// TokensEstimated: the endpoint reported no usage (a failed call), so
	// TokensIn is the prompt's estimate.
	TokensEstimated bool    `json:"tokens_estimated,omitempty"`
	LatencyMS       float64 `json:"latency_ms"`
	// GateRatio is the second public score over the first (the gate's input).
	GateRatio float64 `json:"gate_ratio"`
}

// Search answers r from the index (Indexer.Search) and then, when this machine
// has a reranker (Options.Rerank) and r.Rerank asks for it, lets the gated
// reranker reorder the top: the top K public hits go to the model with their
// best section; private hits (the index's private bit, or a folder private under
// the current settings) are never sent and keep their places. Whatever happens
// to the call, the BM25 order stands and Engine says why. Pages past the first
// are cut from the reranked order, so paging stays consistent.
func (v *Vault) Search(ctx context.Context, r SearchRequest) (*SearchResponse, error) {
	rr := v.rerank
	if r.Rerank == rerank.Off || (rr == nil && r.Rerank == rerank.Auto) {
		return v.Index.Search(ctx, r) // the search as it was: no reranker, no cost
	}
	if rr == nil {
		resp, err := v.Index.Search(ctx, r)
		if err == nil && resp.Engine == EngineBM25 {
			resp.Engine = rerank.EngineNoEndpoint
		}
		return resp, err
	}
	start := time.Now()
	if r.Offset == 0 {
		// The first page alone often settles the gate: when it stays closed the
		// search costs what it did without a reranker.
		resp, err := v.Index.Search(ctx, r)
		if err != nil || resp.Engine != EngineBM25 {
			return resp, err
		}
		if cfg, _, err := v.Settings.Current(ctx); err == nil && !asks(cfg, r.Rerank, resp) {
			return resp, nil
		}
	}
	limit := r.Limit
	if limit <= 0 {
		limit = graph.DefaultLimit
	}
	top := r
	top.Offset, top.Limit = 0, max(r.Offset+limit, rr.K())
	top.NoSnippets = false // the reranker reads the hits' best sections
	if top.Limit > graph.MaxLimit {
		return v.Index.Search(ctx, r) // too deep a page to rerank
	}
	resp, err := v.Index.Search(ctx, top)
	if err != nil || resp.Engine != EngineBM25 {
		page(resp, r.Offset, limit)
		return resp, err // a scan is not reranked: its engine says it scanned
	}
	cfg, _, cerr := v.Settings.Current(ctx)
	if cerr != nil {
		resp.Engine = "bm25 (rerank skipped: settings unreadable)" // fail closed: whose notes are private is unknown
		page(resp, r.Offset, limit)
		return resp, nil
	}
	cands := candidates(cfg, resp.Hits)
	for i, h := range resp.Hits {
		cands[i].Private = cands[i].Private || v.HitPrivate(ctx, cfg, h)
	}
	gate := rerank.Gate{Threshold: cfg.Rerank.Threshold}
	if _, ask := rerank.Decide(gate, r.Rerank, cands); ask {
		v.sectionTexts(ctx, cands, resp.Hits, rr.K())
	}
	res := rr.RerankGated(ctx, gate, r.Rerank, r.Query, cands)
	resp.Engine = res.Engine
	if res.Reranked || res.Latency > 0 || res.Engine != EngineBM25 {
		resp.Rerank = &RerankStats{Cached: res.Cached, TokensIn: res.TokensIn, TokensOut: res.TokensOut,
			TokensEstimated: res.TokensEstimated, LatencyMS: float64(res.Latency.Microseconds()) / 1000, GateRatio: res.Gate.Ratio}
	}
	if res.Reranked {
		at := make(map[note.Path]graph.Hit, len(resp.Hits))
		for _, h := range resp.Hits {
			at[h.Path] = h
		}
		for i, c := range res.Candidates {
			resp.Hits[i] = at[note.Path(c.ID)]
		}
	}
	page(resp, r.Offset, limit)
	resp.TookMS = float64(time.Since(start).Microseconds()) / 1000
	return resp, nil
}

// candidates are hits as the reranker takes them, in order: private by the
// index's private bit (the privacy rule, judged when the note was indexed) or by
// a folder private under the current settings cfg (an index not yet rebuilt after
// they changed).
func candidates(cfg config.Config, hits []graph.Hit) []rerank.Candidate {
	cands := make([]rerank.Candidate, len(hits))
	for i, h := range hits {
		cands[i] = rerank.Candidate{ID: string(h.Path), Path: string(h.Path), Title: h.Title, Revision: h.Revision,
			Score: h.Score, Private: h.Private || cfg.IsPrivate(h.Path, nil)}
	}
	return cands
}

// HitPrivate reports whether search hit h is private under the current settings
// cfg where the index's private bit may not say so yet: its folder is private
// now, or the index's bits were judged under other private tags (the settings
// changed and the maintainer has not rebuilt it yet) and the hit's bytes carry a
// private tag now. It reads the hit's revision only in that window; a revision
// it cannot read counts as private (fail closed).
func (v *Vault) HitPrivate(ctx context.Context, cfg config.Config, h graph.Hit) bool {
	if h.Private || cfg.IsPrivate(h.Path, nil) {
		return true
	}
	if !note.IsNote(h.Path) || v.Index.judgedUnder(cfg.Privacy.Tags) {
		return false
	}
	b, err := v.ReadRevision(ctx, repo.Revision(h.Revision))
	return err != nil || notePrivate(cfg, h.Path, b, nil, nil)
}

// asks reports whether the reranker may be asked for a search whose first page
// (offset 0) is resp: false only when the page settles the gate — it holds two
// public hits, or every hit — and the gate stays closed under mode.
func asks(cfg config.Config, mode rerank.Mode, resp *SearchResponse) bool {
	cands := candidates(cfg, resp.Hits)
	public := 0
	for _, c := range cands {
		if !c.Private {
			public++
		}
	}
	if public < 2 && len(resp.Hits) < resp.Total {
		return true // the top two public scores lie beyond the page
	}
	_, ask := rerank.Decide(rerank.Gate{Threshold: cfg.Rerank.Threshold}, mode, cands)
	return ask
}

// page cuts resp's hits (from offset 0) to the page [offset, offset+limit).
func page(resp *SearchResponse, offset, limit int) {
	if resp == nil {
		return
	}
	h := resp.Hits
	resp.Hits = h[min(offset, len(h)):min(len(h), offset+limit)]
}

// sectionTexts fills the text of the first k public candidates: the section of
// the note, at the hit's revision, holding the hit's best line (Hit.Line). A
// note that cannot be read is not sent (marked private: fail closed).
func (v *Vault) sectionTexts(ctx context.Context, cands []rerank.Candidate, hits []graph.Hit, k int) {
	for i := range cands {
		if k == 0 {
			return
		}
		if cands[i].Private {
			continue
		}
		k--
		b, err := v.repo.ReadRevision(ctx, repo.Revision(hits[i].Revision))
		if err != nil {
			v.Index.log.Warn("rerank: note not read; not sent", "path", hits[i].Path, "err", err)
			cands[i].Private = true
			continue
		}
		cands[i].Text = sectionText(hits[i].Path, b, hits[i].Line)
	}
}

// sectionText is the heading section of the note at p (bytes raw) that holds
// line (1-based; 0: the body's start), from its heading to the next heading of
// any level, capped at sectionCap bytes; never the frontmatter. When the line
// lies deep in a long section, the text is the heading line and the section from
// that line on.
func sectionText(p note.Path, raw []byte, line int) string {
	n, err := note.Parse(p, raw)
	body := 0 // frontmatter is never sent
	switch rest := bodyAfterFrontmatter(raw); {
	case err == nil:
		body = n.BodyStart
	case rest != nil:
		body = len(raw) - len(rest)
	case bytes.HasPrefix(raw, []byte("---")):
		return "" // frontmatter without its end: no body to tell apart
	}
	off := body
	if line > 0 {
		off = lineStart(raw, line)
	}
	start, end := body, len(raw)
	if err == nil {
		for _, h := range n.Headings {
			if h.Start <= off {
				start = h.Start
			} else if h.Start < end {
				end = h.Start
			}
		}
	}
	start, off = min(start, len(raw)), min(max(off, start), len(raw))
	text := raw[start:end]
	if off-start > sectionCap/2 {
		head := raw[start:off]
		if nl := bytes.IndexByte(head, '\n'); nl >= 0 {
			head = head[:nl+1]
		}
		text = append(append(bytes.Clone(head), "…\n"...), raw[off:end]...)
	}
	return cutText(string(text), sectionCap)
}

// lineStart is the byte offset of line (1-based) in raw, or len(raw).
func lineStart(raw []byte, line int) int {
	off := 0
	for l := 1; l < line; l++ {
		nl := bytes.IndexByte(raw[off:], '\n')
		if nl < 0 {
			return len(raw)
		}
		off += nl + 1
	}
	return off
}

// cutText cuts s to at most n bytes at a rune boundary.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
