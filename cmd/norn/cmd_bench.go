package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server"
)

// Bench parameters: they are part of what the figures mean, so they are printed.
const (
	benchLimit        = 10   // results per query, as the anchor
	benchNoopRounds   = 2000 // catch-ups timed with nothing to do
	benchEditRounds   = 5    // fresh commits timed for catch-up
	benchNotesPerEdit = 100  // notes one such commit touches
	benchP50Target    = 0.2  // our p50 over the anchor's p50 we aim at
)

// benchReport is what `norn bench search` measured. Times are wall clock on this
// machine; compare them with the anchor's of the same run, never across runs.
type benchReport struct {
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

	Queries benchQueries  `json:"queries"`
	Quality *benchQuality `json:"quality,omitempty"`
	CatchUp benchCatchUp  `json:"catchup"`
	Memory  benchMemory   `json:"memory"`
	FTS5    benchFTS5     `json:"fts5"`
}

// benchQueries are the query latencies, measured in-process through the indexer.
type benchQueries struct {
	Count int     `json:"count"`
	Limit int     `json:"limit"`
	P50MS float64 `json:"p50_ms"`
	P95MS float64 `json:"p95_ms"`
	// MeanMS and MaxMS are over the timed pass (one warm-up pass precedes it).
	MeanMS float64 `json:"mean_ms"`
	MaxMS  float64 `json:"max_ms"`
	// Errors counts queries the index refused; NotBM25 those the index did not
	// answer itself (a scan fallback). Both should be 0.
	Errors  int `json:"errors"`
	NotBM25 int `json:"not_bm25"`
}

// benchQuality is a run scored against qrels, with eval.py's definitions.
type benchQuality struct {
	Judged   int     `json:"judged"`
	MRR10    float64 `json:"mrr_at_10"`
	NDCG10   float64 `json:"ndcg_at_10"`
	Recall1  float64 `json:"recall_at_1"`
	Recall10 float64 `json:"recall_at_10"`
}

// benchCatchUp is how long bringing the index to HEAD takes.
type benchCatchUp struct {
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

// benchMemory is read from /proc/self/status after the queries: it is the whole
// norn process (vault, index, Go runtime), not the index alone.
type benchMemory struct {
	VmHWMMB float64 `json:"vm_hwm_mb"`
	VmRSSMB float64 `json:"vm_rss_mb"`
	Note    string  `json:"note"`
}

// benchFTS5 is the SQLite FTS5 anchor run in the same session.
type benchFTS5 struct {
	Status     string        `json:"status"` // ok | skipped | failed
	Reason     string        `json:"reason,omitempty"`
	Script     string        `json:"script,omitempty"`
	BuildMS    float64       `json:"build_ms,omitempty"`
	IndexBytes int64         `json:"index_bytes,omitempty"`
	P50MS      float64       `json:"p50_ms,omitempty"`
	P95MS      float64       `json:"p95_ms,omitempty"`
	Queries    int           `json:"queries,omitempty"`
	Quality    *benchQuality `json:"quality,omitempty"`
	// RatioP50 is our p50 over the anchor's (target ≤ TargetP50); RatioBuild our
	// rebuild over its build.
	RatioP50   float64 `json:"ratio_p50,omitempty"`
	TargetP50  float64 `json:"target_ratio_p50,omitempty"`
	RatioBuild float64 `json:"ratio_build,omitempty"`
}

// benchQuery is one line of a queries file.
type benchQuery struct {
	ID   string
	Text string
}

// qrels maps a query id to its judged documents and their grades.
type qrels map[string]map[string]int

func runBench(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("bench", g)
	fts5Flag := fs.String("fts5", "", "the anchor script fts5_baseline.py (default $NORN_FTS5, else ../shared/bench/fts5_baseline.py, else bench/fts5_baseline.py in a folder above the corpus)")
	noFTS5 := fs.Bool("no-fts5", false, "do not run the FTS5 anchor")
	keep := fs.String("keep", "", "build the vault in this new folder and keep it (default: a temporary folder, removed)")
	args, err := parseArgs(fs, args, 1, 4)
	if err != nil {
		return err
	}
	if args[0] != "search" {
		return usagef("unknown bench %q (want: search)", args[0])
	}
	args = args[1:]
	if err := wantArgs(args, 2, 3); err != nil {
		return err
	}
	notesDir, queriesPath := args[0], args[1]
	if fi, err := os.Stat(notesDir); err != nil || !fi.IsDir() {
		return usagef("%s is not a folder", notesDir)
	}
	queries, err := loadBenchQueries(queriesPath)
	if err != nil {
		return usagef("%v", err)
	}
	var judged qrels
	if len(args) == 3 {
		if judged, err = loadQrels(args[2]); err != nil {
			return usagef("%v", err)
		}
	}
	script, fts5Skip := "", ""
	switch {
	case *noFTS5:
		fts5Skip = "--no-fts5"
	case *fts5Flag != "":
		if _, err := os.Stat(*fts5Flag); err != nil {
			return usagef("--fts5: %v", err)
		}
		script = *fts5Flag
	default:
		if script = e.getenv("NORN_FTS5"); script != "" {
			if _, err := os.Stat(script); err != nil {
				fts5Skip = fmt.Sprintf("no anchor script at $NORN_FTS5 %s", script)
			}
		} else if script = findAnchor(notesDir); script == "" {
			fts5Skip = "no anchor script at ../shared/bench/fts5_baseline.py nor in a bench/ folder above the corpus (give --fts5 or set $NORN_FTS5)"
		}
	}

	progress := func(format string, a ...any) {
		fmt.Fprintf(e.stderr, "bench: "+format+"\n", a...)
	}
	rep := benchReport{Corpus: notesDir, GoVersion: runtime.Version(), GOMAXPROCS: runtime.GOMAXPROCS(0)}
	dir := *keep
	if dir != "" {
		if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
			return usagef("--keep %s: folder is not empty", dir)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		rep.Kept = true
	} else {
		if dir, err = os.MkdirTemp("", "norn-bench-"); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		defer os.RemoveAll(dir)
	}
	rep.Vault = dir

	progress("copying %s to %s", notesDir, dir)
	if rep.Files, rep.Skipped, err = copyTree(ctx, notesDir, dir); err != nil {
		return err
	}
	progress("importing %s (one commit)", plural(rep.Files, "file"))
	start := time.Now()
	v, _, err := repo.Init(ctx, dir, repo.InitOptions{Options: repo.Options{Logger: logger(e, g)}})
	if err != nil {
		return err
	}
	defer v.Close()
	rep.ImportMS = msSince(start)
	settings := server.NewSettings()
	settings.Bind(v)
	x := openIndexer(ctx, e, g, v, settings)
	defer x.Close()
	if _, problem := x.Status(); problem != "" {
		return fmt.Errorf("bench: open index: %s", problem)
	}

	progress("import took %.0f ms; rebuilding the index", rep.ImportMS)
	start = time.Now()
	if err := x.Rebuild(ctx, nil); err != nil {
		return err
	}
	rep.RebuildMS = msSince(start)
	if commit, _ := x.Status(); commit != string(v.Head()) {
		return fmt.Errorf("bench: rebuilt index is at %q, HEAD at %s", commit, v.Head())
	}
	rep.IndexBytes = dirBytes(server.IndexDir(v))
	files, _, err := v.Files(ctx, "")
	if err != nil {
		return err
	}
	var notes []note.Path
	for _, f := range files {
		if note.IsNote(f.Path) {
			notes = append(notes, f.Path)
		}
	}
	rep.Notes = len(notes)

	progress("rebuild took %.0f ms; running %d queries (one warm-up pass, one timed)", rep.RebuildMS, len(queries))
	run, err := timeQueries(ctx, x, queries, &rep.Queries)
	if err != nil {
		return err
	}
	if judged != nil {
		q := scoreRun(judged, run, benchLimit)
		rep.Quality = &q
	}
	rep.Memory = readMemory()

	progress("queries p50 %.3f ms; timing catch-up", rep.Queries.P50MS)
	if err := timeCatchUp(ctx, v, x, notes, &rep.CatchUp); err != nil {
		return err
	}
	progress("catch-up after a %d-note commit: median %.1f ms", rep.CatchUp.NotesPerCommit, rep.CatchUp.MedianMS)

	if fts5Skip == "" {
		progress("running the FTS5 anchor %s", script)
		rep.FTS5 = runFTS5(ctx, script, notesDir, queriesPath, judged)
		if rep.FTS5.Status == "failed" {
			progress("FTS5 anchor failed: %s", rep.FTS5.Reason)
		}
	} else {
		rep.FTS5 = benchFTS5{Status: "skipped", Reason: fts5Skip}
		progress("FTS5 anchor skipped: %s", fts5Skip)
	}
	if rep.FTS5.Status == "ok" {
		rep.FTS5.TargetP50 = benchP50Target
		if rep.FTS5.P50MS > 0 {
			rep.FTS5.RatioP50 = round(rep.Queries.P50MS/rep.FTS5.P50MS, 4)
		}
		if rep.FTS5.BuildMS > 0 {
			rep.FTS5.RatioBuild = round(rep.RebuildMS/rep.FTS5.BuildMS, 4)
		}
	}
	if g.json {
		return printJSON(e, rep)
	}
	printBench(e, &rep)
	return nil
}

// loadBenchQueries reads {"id" or "qid", "text"} lines.
func loadBenchQueries(path string) ([]benchQuery, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read queries: %w", err)
	}
	var out []benchQuery
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		var q struct {
			ID   any    `json:"id"`
			QID  any    `json:"qid"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			return nil, fmt.Errorf("queries %s line %d: %w", path, i+1, err)
		}
		id := q.ID
		if id == nil {
			id = q.QID
		}
		if id == nil {
			return nil, fmt.Errorf("queries %s line %d: no id or qid", path, i+1)
		}
		out = append(out, benchQuery{ID: fmt.Sprint(id), Text: q.Text})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("queries %s: no queries", path)
	}
	return out, nil
}

// loadQrels reads query_id, doc, grade lines (tab-separated, else by white space),
// as eval.py does.
func loadQrels(path string) (qrels, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read qrels: %w", err)
	}
	defer f.Close()
	q := qrels{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		var parts []string
		if strings.Contains(line, "\t") {
			parts = strings.Split(line, "\t")
		} else {
			parts = strings.Fields(line)
		}
		if len(parts) < 3 {
			continue
		}
		grade, err := strconv.Atoi(strings.TrimSpace(parts[2]))
		if err != nil {
			return nil, fmt.Errorf("qrels %s line %d: %w", path, n, err)
		}
		if q[parts[0]] == nil {
			q[parts[0]] = map[string]int{}
		}
		q[parts[0]][parts[1]] = grade
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read qrels %s: %w", path, err)
	}
	return q, nil
}

// scoreRun scores a run (query id → result paths in rank order) as eval.py's score
// does: over the queries with judgements; a judged document counts as relevant
// whatever its grade; documents are compared by path when the qrels name paths (a "/"
// or ".md"; leading "." and "/" of results dropped), else by file stem. MRR@k is the
// reciprocal rank of the first relevant result in the top k; nDCG@k gains 2^grade−1
// at rank i discounted by log2(i+1), over the ideal ordering of the judged grades;
// recall@n the relevant results in the top n over the number judged.
// gainAt is nDCG's discounted gain of a grade-g document at 0-based rank i.
func gainAt(i, g int) float64 {
	return (math.Exp2(float64(g)) - 1) / math.Log2(float64(i+2))
}

func scoreRun(q qrels, run map[string][]string, k int) benchQuality {
	byPath := false
	for _, rel := range q {
		for d := range rel {
			if strings.Contains(d, "/") || strings.HasSuffix(d, ".md") {
				byPath = true
			}
		}
	}
	key := pyStem
	if byPath {
		key = func(p string) string { return strings.TrimLeft(p, "./") }
	}
	recall := func(docs []string, rel map[string]int, n int) float64 {
		hits := 0
		for _, d := range docs[:min(n, len(docs))] {
			if _, ok := rel[d]; ok {
				hits++
			}
		}
		return float64(hits) / float64(len(rel))
	}
	var out benchQuality
	for qid, rel := range q {
		if len(rel) == 0 {
			continue
		}
		out.Judged++
		var docs []string
		for _, r := range run[qid] {
			docs = append(docs, key(r))
		}
		rr, dcg := 0.0, 0.0
		for i, d := range docs[:min(k, len(docs))] {
			if g, ok := rel[d]; ok {
				if rr == 0 {
					rr = 1 / float64(i+1)
				}
				dcg += gainAt(i, g)
			}
		}
		grades := make([]int, 0, len(rel))
		for _, g := range rel {
			grades = append(grades, g)
		}
		slices.SortFunc(grades, func(a, b int) int { return b - a })
		idcg := 0.0
		for i, g := range grades[:min(k, len(grades))] {
			idcg += gainAt(i, g)
		}
		out.MRR10 += rr
		if idcg > 0 {
			out.NDCG10 += dcg / idcg
		}
		out.Recall1 += recall(docs, rel, 1)
		out.Recall10 += recall(docs, rel, 10)
	}
	if out.Judged > 0 {
		n := float64(out.Judged)
		out.MRR10 = round(out.MRR10/n, 4)
		out.NDCG10 = round(out.NDCG10/n, 4)
		out.Recall1 = round(out.Recall1/n, 4)
		out.Recall10 = round(out.Recall10/n, 4)
	}
	return out
}

// pyStem is Python's os.path.splitext(os.path.basename(p))[0]: leading dots are not
// an extension.
func pyStem(p string) string {
	base := p[strings.LastIndex(p, "/")+1:]
	lead := len(base) - len(strings.TrimLeft(base, "."))
	if i := strings.LastIndex(base[lead:], "."); i >= 0 {
		return base[:lead+i]
	}
	return base
}

// copyTree copies the regular files of src into dst, skipping files and folders
// whose names start with "." (as the anchor does for folders). It returns the files
// copied and the entries skipped.
func copyTree(ctx context.Context, src, dst string) (files, skipped int, err error) {
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if p == src {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			skipped++
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		if !d.Type().IsRegular() {
			skipped++
			return nil
		}
		files++
		return copyFile(p, out)
	})
	if err != nil {
		return 0, 0, fmt.Errorf("copy %s: %w", src, err)
	}
	return files, skipped, nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// timeQueries runs every query once to warm up, then once timed, and returns the
// timed pass's results (query id → paths).
func timeQueries(ctx context.Context, x *server.Indexer, queries []benchQuery, out *benchQueries) (map[string][]string, error) {
	out.Count, out.Limit = len(queries), benchLimit
	run := map[string][]string{}
	lat := make([]time.Duration, 0, len(queries))
	for pass := range 2 {
		lat = lat[:0]
		out.Errors, out.NotBM25 = 0, 0
		for _, q := range queries {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			start := time.Now()
			resp, err := x.Search(ctx, server.SearchRequest{Query: q.Text, Limit: benchLimit, Literal: true})
			d := time.Since(start)
			if pass == 0 {
				continue
			}
			lat = append(lat, d)
			if err != nil {
				out.Errors++
				run[q.ID] = nil
				continue
			}
			if resp.Engine != server.EngineBM25 {
				out.NotBM25++
			}
			paths := make([]string, 0, len(resp.Hits))
			for _, h := range resp.Hits {
				paths = append(paths, string(h.Path))
			}
			run[q.ID] = paths
		}
	}
	out.P50MS, out.P95MS, out.MeanMS, out.MaxMS = latencyStats(lat)
	return run, nil
}

// latencyStats returns p50, p95, mean and max in ms. p50 is the median (the mean of
// the middle two for an even count) and p95 the element at int(0.95·(n-1)) of the
// sorted list, as the anchor computes them.
func latencyStats(lat []time.Duration) (p50, p95, mean, maxMS float64) {
	if len(lat) == 0 {
		return 0, 0, 0, 0
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	return durMS(med), durMS(s[int(0.95*float64(n-1))]), durMS(sum / time.Duration(n)), durMS(s[n-1])
}

// timeCatchUp times CatchUp with nothing to do, then after benchEditRounds commits
// each appending a line to benchNotesPerEdit notes (or every note, when fewer).
func timeCatchUp(ctx context.Context, v *repo.Vault, x *server.Indexer, notes []note.Path, out *benchCatchUp) error {
	out.NoopRounds = benchNoopRounds
	lat := make([]time.Duration, 0, benchNoopRounds)
	for range benchNoopRounds {
		start := time.Now()
		if err := x.CatchUp(ctx); err != nil {
			return err
		}
		lat = append(lat, time.Since(start))
	}
	p50, _, _, _ := latencyStats(lat)
	out.NoopP50US = round(p50*1000, 3)
	if len(notes) == 0 {
		return nil
	}
	k := min(benchNotesPerEdit, len(notes))
	out.Rounds, out.NotesPerCommit, out.Verified = benchEditRounds, k, true
	// Made-up words, none a prefix of another (the index may expand prefixes), so
	// each finds exactly the notes of its round.
	markers := [benchEditRounds]string{"quorbixant", "zelfrimmot", "vantroglid", "kribbosunt", "wuffelpandor"}
	for r, marker := range markers {
		tx := repo.Tx{Author: v.Owner(), Roles: []string{"owner"}, Op: repo.OpEdit,
			Message: fmt.Sprintf("bench: append a line to %d notes", k)}
		for i := range k {
			p := notes[(r*k+i)%len(notes)]
			b, err := v.Read(ctx, p, "")
			if err != nil {
				return err
			}
			c := slices.Clip(b.Content)
			if len(c) > 0 && c[len(c)-1] != '\n' {
				c = append(c, '\n')
			}
			c = append(c, "\nbench edit "+marker+"\n"...)
			tx.Changes = append(tx.Changes, repo.Change{Kind: repo.Put, Path: p, Content: c, ExpectedRevision: b.Revision})
		}
		start := time.Now()
		if _, err := v.Apply(ctx, tx); err != nil {
			return fmt.Errorf("bench: commit: %w", err)
		}
		out.CommitMS = append(out.CommitMS, msSince(start))
		start = time.Now()
		if err := x.CatchUp(ctx); err != nil {
			return err
		}
		out.MS = append(out.MS, msSince(start))
		if commit, _ := x.Status(); commit != string(v.Head()) {
			return fmt.Errorf("bench: index at %q after catch-up, HEAD at %s", commit, v.Head())
		}
		found := -1
		resp, err := x.Search(ctx, server.SearchRequest{Query: marker, Limit: 1, Literal: true})
		if err == nil && resp.Engine == server.EngineBM25 {
			found = resp.Total
		}
		out.Found = append(out.Found, found)
		if found != k {
			out.Verified = false
		}
	}
	s := slices.Clone(out.MS)
	slices.Sort(s)
	out.MedianMS = s[len(s)/2]
	return nil
}

// readMemory reads VmHWM (peak) and VmRSS from /proc/self/status.
func readMemory() benchMemory {
	m := benchMemory{Note: "whole norn process (vault, index, Go runtime); VmHWM is the peak so far, import and rebuild included"}
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		m.Note = "unavailable: " + err.Error()
		return m
	}
	for _, line := range strings.Split(string(b), "\n") {
		name, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(val)
		if len(f) != 2 || f[1] != "kB" {
			continue
		}
		kb, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			continue
		}
		switch name {
		case "VmHWM":
			m.VmHWMMB = round(kb/1024, 1)
		case "VmRSS":
			m.VmRSSMB = round(kb/1024, 1)
		}
	}
	return m
}

// runFTS5 runs the anchor script on the original notes and scores its run file.
func runFTS5(ctx context.Context, script, notesDir, queriesPath string, judged qrels) benchFTS5 {
	res := benchFTS5{Script: script}
	python, err := exec.LookPath("python3")
	if err != nil {
		res.Status, res.Reason = "skipped", "python3 is not installed"
		return res
	}
	runFile, err := os.CreateTemp("", "norn-bench-fts5-*.jsonl")
	if err != nil {
		res.Status, res.Reason = "failed", err.Error()
		return res
	}
	runFile.Close()
	defer os.Remove(runFile.Name())
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, python, script, "vault", notesDir, queriesPath, "--run", runFile.Name())
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		res.Status, res.Reason = "failed", fmt.Sprintf("%v: %s", err, strings.TrimSpace(stderr.String()))
		return res
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	var out struct {
		BuildS     *float64 `json:"build_s"`
		IndexBytes int64    `json:"index_bytes"`
		P50MS      *float64 `json:"p50_ms"`
		P95MS      float64  `json:"p95_ms"`
		Queries    int      `json:"queries"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &out); err != nil || out.BuildS == nil || out.P50MS == nil {
		res.Status, res.Reason = "failed", fmt.Sprintf("unexpected output %q (%v)", stdout.String(), err)
		return res
	}
	res.Status = "ok"
	res.BuildMS, res.IndexBytes = round(*out.BuildS*1000, 3), out.IndexBytes
	res.P50MS, res.P95MS, res.Queries = *out.P50MS, out.P95MS, out.Queries
	if judged != nil {
		run, err := loadRun(runFile.Name())
		if err != nil {
			res.Status, res.Reason = "failed", err.Error()
			return res
		}
		q := scoreRun(judged, run, benchLimit)
		res.Quality = &q
	}
	return res
}

// loadRun reads a run file: {"qid", "results": [paths]} per line.
func loadRun(path string) (map[string][]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read run: %w", err)
	}
	run := map[string][]string{}
	for i, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var r struct {
			QID     any      `json:"qid"`
			Results []string `json:"results"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return nil, fmt.Errorf("run %s line %d: %w", path, i+1, err)
		}
		if r.QID == nil {
			return nil, fmt.Errorf("run %s line %d: %w", path, i+1, errors.New("no qid"))
		}
		run[fmt.Sprint(r.QID)] = r.Results
	}
	return run, nil
}

func printBench(e *env, r *benchReport) {
	w := e.stdout
	fmt.Fprintf(w, "corpus   %s: %s, %s (%d hidden entries skipped)\n", r.Corpus, plural(r.Notes, "note"), plural(r.Files, "file"), r.Skipped)
	fmt.Fprintf(w, "machine  %s, GOMAXPROCS %d\n", r.GoVersion, r.GOMAXPROCS)
	fmt.Fprintf(w, "import   %.0f ms (one commit, no gate)\n", r.ImportMS)
	q := r.Queries
	fmt.Fprintf(w, "queries  %d, top %d, in-process; errors %d, not answered by bm25 %d\n\n", q.Count, q.Limit, q.Errors, q.NotBM25)

	f := r.FTS5
	ok := f.Status == "ok"
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tnorn\tfts5\tnorn/fts5\t")
	row := func(name string, ours, theirs float64, format string, ratio bool) {
		t, rt := "-", "-"
		if ok {
			t = fmt.Sprintf(format, theirs)
			if ratio && theirs > 0 {
				rt = fmt.Sprintf("%.3f", ours/theirs)
			}
		}
		fmt.Fprintf(tw, "%s\t"+format+"\t%s\t%s\t\n", name, ours, t, rt)
	}
	row("build ms", r.RebuildMS, f.BuildMS, "%.0f", true)
	row("index MB", float64(r.IndexBytes)/(1<<20), float64(f.IndexBytes)/(1<<20), "%.1f", true)
	row("p50 ms", q.P50MS, f.P50MS, "%.3f", true)
	row("p95 ms", q.P95MS, f.P95MS, "%.3f", true)
	if r.Quality != nil {
		var fq benchQuality
		if f.Quality != nil {
			fq = *f.Quality
		}
		row("MRR@10", r.Quality.MRR10, fq.MRR10, "%.4f", false)
		row("nDCG@10", r.Quality.NDCG10, fq.NDCG10, "%.4f", false)
		row("recall@1", r.Quality.Recall1, fq.Recall1, "%.4f", false)
		row("recall@10", r.Quality.Recall10, fq.Recall10, "%.4f", false)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nmean %.3f ms, max %.3f ms per query", q.MeanMS, q.MaxMS)
	if r.Quality != nil {
		fmt.Fprintf(w, "; %d judged queries", r.Quality.Judged)
	}
	fmt.Fprintln(w)
	switch {
	case ok:
		verdict := "met"
		if f.RatioP50 > f.TargetP50 {
			verdict = "NOT met"
		}
		fmt.Fprintf(w, "fts5     p50 ratio %.3f, target ≤ %.1f: %s\n", f.RatioP50, f.TargetP50, verdict)
	default:
		fmt.Fprintf(w, "fts5     %s: %s\n", f.Status, f.Reason)
	}
	c := r.CatchUp
	fmt.Fprintf(w, "catch-up nothing to do: p50 %.3f µs (%d rounds)\n", c.NoopP50US, c.NoopRounds)
	if c.Rounds > 0 {
		fmt.Fprintf(w, "catch-up after a %d-note commit: median %.1f ms (%s ms; commits %s ms); index found the touched notes: %v %v\n",
			c.NotesPerCommit, c.MedianMS, joinMS(c.MS), joinMS(c.CommitMS), c.Verified, c.Found)
	}
	fmt.Fprintf(w, "memory   VmHWM %.1f MB, VmRSS %.1f MB after the queries: %s\n", r.Memory.VmHWMMB, r.Memory.VmRSSMB, r.Memory.Note)
	if r.Kept {
		fmt.Fprintf(w, "vault    kept at %s\n", r.Vault)
	}
}

func joinMS(ms []float64) string {
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = fmt.Sprintf("%.1f", m)
	}
	return strings.Join(s, ", ")
}

// dirBytes is the size of the files under dir.
func dirBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

func durMS(d time.Duration) float64 { return round(float64(d.Nanoseconds())/1e6, 6) }

func msSince(t time.Time) float64 { return round(float64(time.Since(t).Nanoseconds())/1e6, 3) }

func round(f float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(f*p) / p
}

// findAnchor looks for the FTS5 anchor script where the shared material keeps it:
// ../shared/bench from the current folder, else bench/ in the corpus folder or
// any folder above it (shared/corpora/X/notes finds shared/bench). "" if none.
func findAnchor(notesDir string) string {
	const name = "fts5_baseline.py"
	if p := filepath.Join("..", "shared", "bench", name); fileExists(p) {
		return p
	}
	dir, err := filepath.Abs(notesDir)
	if err != nil {
		return ""
	}
	for {
		if p := filepath.Join(dir, "bench", name); fileExists(p) {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
