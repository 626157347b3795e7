package bench

// ScaleReport is what `norn bench scale` measured: one ScaleSize per vault size,
// each measure beside its anchor from the same run. Times are wall clock on this
// machine; compare them with the anchor's of the same run, never across runs.
type ScaleReport struct {
	GoVersion  string      `json:"go_version"`
	GOMAXPROCS int         `json:"gomaxprocs"`
	Norn       string      `json:"norn"` // the binary measured
	Sizes      []ScaleSize `json:"sizes"`
}

// Cold is a command run as a new process Rounds times, alternating with its anchor.
type Cold struct {
	P50MS float64 `json:"p50_ms"`
	MinMS float64 `json:"min_ms"`
}

// ScaleSize is one vault size's figures.
type ScaleSize struct {
	Notes  int    `json:"notes"`
	Vault  string `json:"vault"`  // the cached vault (the figures come from a copy of it)
	Cached bool   `json:"cached"` // the vault was made by an earlier run
	Rounds int    `json:"rounds"` // cold-process rounds of each command and its anchor

	Version    Cold `json:"norn_version"` // `norn version`
	GitVersion Cold `json:"git_version"`  // its anchor, `git version`
	Read       Cold `json:"norn_read"`    // `norn read PATH`
	GitShow    Cold `json:"git_show"`     // `git show HEAD:PATH`
	Write      Cold `json:"norn_write"`   // `norn write` of a new note
	GitWrite   Cold `json:"git_write"`    // `git add` + `git commit` of a new note

	// Rebuild is `norn reindex` as a process: wall, user + system CPU, peak RSS.
	RebuildS     float64 `json:"rebuild_s"`
	RebuildCPUS  float64 `json:"rebuild_cpu_s"`
	RebuildRSSMB float64 `json:"rebuild_peak_rss_mb"`

	// Search is the query set (known_item.py) in-process through the indexer.
	Search Queries `json:"search"`
	// FTS5 is the anchor on the same notes and queries: its build and its p50.
	FTS5 FTS5 `json:"fts5"`

	// The server (`norn serve --http` on a loopback port), after it answered and
	// rested WarmS: its CPU over IdleS, in % of one core, and its RSS.
	WarmS      float64 `json:"warm_s"`
	IdleS      float64 `json:"idle_window_s"`
	IdleCPUPct float64 `json:"idle_cpu_pct"`
	RSSIdleMB  float64 `json:"rss_idle_mb"`
	// HandEditMS is from a line appended to a note by hand until HEAD moves (the
	// server's external commit).
	HandEditMS float64 `json:"hand_edit_ms"`
	// CatchUpMS is, per round, from a `git commit` by hand of CatchUpNotes notes
	// until a search through the server's local endpoint finds them all by a word
	// only that commit has; CatchUpFound how many it found.
	CatchUpNotes    int       `json:"catchup_notes"`
	CatchUpMS       []float64 `json:"catchup_ms"`
	CatchUpMedianMS float64   `json:"catchup_median_ms"`
	CatchUpFound    []int     `json:"catchup_found"`
	// CatchUpCPUMS is the server's CPU (user + system) over each round's wait: a
	// figure the load of other processes inflates far less than the wall time.
	CatchUpCPUMS []float64 `json:"catchup_server_cpu_ms"`
	// Searches through the local endpoint (the query set, cycled), their p50, and
	// the server's RSS after them.
	Searches         int     `json:"searches"`
	LocalSearchP50MS float64 `json:"local_search_p50_ms"`
	RSSSearchedMB    float64 `json:"rss_after_searches_mb"`
	// ServerPID is the server's process id (it has exited when Scale returns).
	ServerPID int `json:"server_pid"`
}
