package bench

// Bench parameters: they are part of what the figures mean, so they are printed.
const (
	Limit        = 10   // results per query, as the anchor
	NoopRounds   = 2000 // catch-ups timed with nothing to do
	EditRounds   = 5    // fresh commits timed for catch-up
	NotesPerEdit = 100  // notes one such commit touches
	P50Target    = 0.2  // our p50 over the anchor's p50 we aim at
)

// Report is what `norn bench search` measured. Times are wall clock on this
// machine; compare them with the anchor's of the same run, never across runs.
type Report struct {
	Corpus     string `json:"corpus"`
	Vault      string `json:"vault"`
	Kept       bool   `json:"kept"`
	Files      int    `json:"files"`
	Notes      int    `json:"notes"`
	Skipped    int    `json:"skipped_hidden"`
	GoVersion  string `json:"go_version"`
	GOMAXPROCS int    `json:"gomaxprocs"`

	ImportMS   float64 `json:"import_ms"`
	RebuildMS  float64 `json:"rebuild_ms"`
	IndexBytes int64   `json:"index_bytes"`

	Queries Queries  `json:"queries"`
	Quality *Quality `json:"quality,omitempty"`
	CatchUp CatchUp  `json:"catchup"`
	Memory  Memory   `json:"memory"`
	FTS5    FTS5     `json:"fts5"`
	// Bleve is the Bleve anchor run in the same session (Options.Bleve).
	Bleve *FTS5 `json:"bleve,omitempty"`
	// Rerank is filled by the caller with --rerank (EvaluateRerank).
	Rerank *RerankReport `json:"rerank,omitempty"`
}

// Queries are the query latencies, measured in-process through the indexer.
type Queries struct {
	Count int     `json:"count"`
	Limit int     `json:"limit"`
	P50MS float64 `json:"p50_ms"`
	P95MS float64 `json:"p95_ms"`
	// MeanMS and MaxMS are over the timed pass (one warm-up pass precedes it).
	MeanMS float64 `json:"mean_ms"`
	MaxMS  float64 `json:"max_ms"`
	// NoSnippetsP50MS and NoSnippetsP95MS time the same queries without
	// snippets (ids, titles and scores only, as the Bleve anchor returns).
	NoSnippetsP50MS float64 `json:"no_snippets_p50_ms"`
	NoSnippetsP95MS float64 `json:"no_snippets_p95_ms"`
	// Errors counts queries the index refused; NotBM25 those the index did not
	// answer itself (a scan fallback). Both should be 0.
	Errors  int `json:"errors"`
	NotBM25 int `json:"not_bm25"`
}

// Quality is a run scored against qrels, with eval.py's definitions.
type Quality struct {
	Judged   int     `json:"judged"`
	MRR10    float64 `json:"mrr_at_10"`
	NDCG10   float64 `json:"ndcg_at_10"`
	Recall1  float64 `json:"recall_at_1"`
	Recall10 float64 `json:"recall_at_10"`
}

// CatchUp is how long bringing the index to HEAD takes.
type CatchUp struct {
	NoopRounds int     `json:"noop_rounds"`
	NoopP50US  float64 `json:"noop_p50_us"`
	// Rounds commits each touching NotesPerCommit notes; CommitMS is the Apply of
	// each, MS the CatchUp after it, MedianMS the median of MS.
	Rounds         int       `json:"rounds"`
	NotesPerCommit int       `json:"notes_per_commit"`
	CommitMS       []float64 `json:"commit_ms"`
	MS             []float64 `json:"ms"`
	MedianMS       float64   `json:"median_ms"`
	// Verified: after each catch-up the index found exactly the touched notes by the
	// word appended to them.
	// Found is, per round, how many notes the index found by that word (-1: the
	// search failed or did not come from the index).
	Verified bool  `json:"verified"`
	Found    []int `json:"found"`
}

// Memory is read from /proc/self/status after the queries: it is the whole
// norn process (vault, index, Go runtime), not the index alone.
type Memory struct {
	VmHWMMB float64 `json:"vm_hwm_mb"`
	VmRSSMB float64 `json:"vm_rss_mb"`
	Note    string  `json:"note"`
}

// FTS5 is an anchor run in the same session: the SQLite FTS5 script, or the
// Bleve binary (Report.Bleve; TargetP50 and the ratios are FTS5's alone).
type FTS5 struct {
	Status     string   `json:"status"` // ok | skipped | failed
	Reason     string   `json:"reason,omitempty"`
	Script     string   `json:"script,omitempty"`
	BuildMS    float64  `json:"build_ms,omitempty"`
	IndexBytes int64    `json:"index_bytes,omitempty"`
	P50MS      float64  `json:"p50_ms,omitempty"`
	P95MS      float64  `json:"p95_ms,omitempty"`
	Queries    int      `json:"queries,omitempty"`
	Quality    *Quality `json:"quality,omitempty"`
	// RatioP50 is our p50 over the anchor's (target ≤ TargetP50); RatioBuild our
	// rebuild over its build.
	RatioP50   float64 `json:"ratio_p50,omitempty"`
	TargetP50  float64 `json:"target_ratio_p50,omitempty"`
	RatioBuild float64 `json:"ratio_build,omitempty"`
}
