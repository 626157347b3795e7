package bench

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/norn-vault/norn/bench/metric"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// Stage names the point a Search has reached, for progress reports.
type Stage int

// The stages of a Search, in order; each is reported with the Report so far.
const (
	StageCopy        Stage = iota // about to copy the corpus into Report.Vault
	StageImport                   // about to commit Report.Files files
	StageRebuild                  // imported in Report.ImportMS; about to rebuild the index
	StageQueries                  // rebuilt in Report.RebuildMS; about to run Report.Queries.Count queries
	StageCatchUp                  // queries done; about to time catch-up
	StageCaughtUp                 // catch-up timed (Report.CatchUp)
	StageFTS5                     // about to run the anchor Report.FTS5.Script
	StageFTS5Failed               // the anchor failed (Report.FTS5.Reason)
	StageFTS5Skipped              // the anchor was not run (Report.FTS5.Reason)
	StageBleve                    // about to run the Bleve anchor Report.Bleve.Script
	StageBleveFailed              // the Bleve anchor failed (Report.Bleve.Reason)
)

// Options say what a Search measures and how.
type Options struct {
	Notes       string       // the corpus folder
	QueriesPath string       // the queries file (the anchor reads it too)
	Queries     []Query      // its queries (LoadQueries)
	Qrels       metric.Qrels // judgements (LoadQrels); nil: no quality figures
	// Keep is a new, empty folder to build the vault in and keep; "" builds it in
	// a temporary folder, removed when Search returns.
	Keep string
	// FTS5Script is the anchor script to run; FTS5Skip, when not "", says why it
	// is not run.
	FTS5Script, FTS5Skip string
	// Bleve is the Bleve anchor binary (built from ../shared/bench/bleve) to run
	// as well; "" runs none.
	Bleve  string
	Logger *slog.Logger // nil: slog.Default()
	// OpenIndexer opens the index of the vault Search built.
	OpenIndexer func(ctx context.Context, v *repo.Vault, s *vault.Settings) *vault.Indexer
	// Progress, if not nil, is told each Stage as it is reached.
	Progress func(Stage, *Report)
}

// Search builds a vault and index from o.Notes, times o.Queries and catch-up,
// runs the anchor, and returns what it measured.
func Search(ctx context.Context, o Options) (*Report, error) {
	progress := func(s Stage, r *Report) {
		if o.Progress != nil {
			o.Progress(s, r)
		}
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	rep := &Report{Corpus: o.Notes, GoVersion: runtime.Version(), GOMAXPROCS: runtime.GOMAXPROCS(0)}
	dir, err := o.Keep, error(nil)
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("bench: %w", err)
		}
		rep.Kept = true
	} else {
		if dir, err = os.MkdirTemp("", "norn-bench-"); err != nil {
			return nil, fmt.Errorf("bench: %w", err)
		}
		defer os.RemoveAll(dir)
	}
	rep.Vault = dir

	progress(StageCopy, rep)
	if rep.Files, rep.Skipped, err = copyTree(ctx, o.Notes, dir); err != nil {
		return nil, err
	}
	progress(StageImport, rep)
	start := time.Now()
	v, _, err := repo.Init(ctx, dir, repo.InitOptions{Options: repo.Options{Logger: o.Logger}})
	if err != nil {
		return nil, err
	}
	defer v.Close()
	rep.ImportMS = msSince(start)
	settings := vault.NewSettings()
	settings.Bind(v)
	x := o.OpenIndexer(ctx, v, settings)
	defer x.Close()
	if _, problem := x.Status(); problem != "" {
		return nil, fmt.Errorf("bench: open index: %s", problem)
	}

	progress(StageRebuild, rep)
	start = time.Now()
	if err := x.Rebuild(ctx, nil); err != nil {
		return nil, err
	}
	rep.RebuildMS = msSince(start)
	if commit, _ := x.Status(); commit != string(v.Head()) {
		return nil, fmt.Errorf("bench: rebuilt index is at %q, HEAD at %s", commit, v.Head())
	}
	rep.IndexBytes = dirBytes(vault.IndexDir(v))
	notes, err := notePaths(ctx, v)
	if err != nil {
		return nil, err
	}
	rep.Notes = len(notes)

	rep.Queries.Count = len(o.Queries)
	progress(StageQueries, rep)
	run, err := timeQueries(ctx, x, o.Queries, &rep.Queries)
	if err != nil {
		return nil, err
	}
	if o.Qrels != nil {
		rep.Quality = quality(o.Qrels, run)
	}
	rep.Memory = readMemory()

	progress(StageCatchUp, rep)
	if err := timeCatchUp(ctx, v, x, notes, &rep.CatchUp); err != nil {
		return nil, err
	}
	progress(StageCaughtUp, rep)
	runAnchor(ctx, o, rep, progress)
	runBleveAnchor(ctx, o, rep, progress)
	return rep, nil
}

// notePaths lists the notes of v.
func notePaths(ctx context.Context, v *repo.Vault) ([]note.Path, error) {
	files, _, err := v.Files(ctx, "")
	if err != nil {
		return nil, err
	}
	var notes []note.Path
	for _, f := range files {
		if note.IsNote(f.Path) {
			notes = append(notes, f.Path)
		}
	}
	return notes, nil
}

// runAnchor runs the FTS5 anchor (unless o says why not) and sets rep.FTS5.
func runAnchor(ctx context.Context, o Options, rep *Report, progress func(Stage, *Report)) {
	if o.FTS5Skip != "" {
		rep.FTS5 = FTS5{Status: "skipped", Reason: o.FTS5Skip}
		progress(StageFTS5Skipped, rep)
		return
	}
	rep.FTS5.Script = o.FTS5Script
	progress(StageFTS5, rep)
	rep.FTS5 = runFTS5(ctx, o.FTS5Script, o.Notes, o.QueriesPath, o.Qrels)
	if rep.FTS5.Status == "failed" {
		progress(StageFTS5Failed, rep)
	}
	if rep.FTS5.Status == "ok" {
		rep.FTS5.TargetP50 = P50Target
		if rep.FTS5.P50MS > 0 {
			rep.FTS5.RatioP50 = metric.Round(rep.Queries.P50MS/rep.FTS5.P50MS, 4)
		}
		if rep.FTS5.BuildMS > 0 {
			rep.FTS5.RatioBuild = metric.Round(rep.RebuildMS/rep.FTS5.BuildMS, 4)
		}
	}
}

// runBleveAnchor runs the Bleve anchor when o names one and sets rep.Bleve.
func runBleveAnchor(ctx context.Context, o Options, rep *Report, progress func(Stage, *Report)) {
	if o.Bleve == "" {
		return
	}
	rep.Bleve = &FTS5{Script: o.Bleve}
	progress(StageBleve, rep)
	*rep.Bleve = runBleve(ctx, o.Bleve, o.Notes, o.QueriesPath, o.Qrels)
	if rep.Bleve.Status != "ok" {
		progress(StageBleveFailed, rep)
	}
}

// quality scores a run at Limit.
func quality(q metric.Qrels, run map[string][]string) *Quality {
	s := metric.Score(q, run, Limit)
	return &Quality{Judged: s.Queries, MRR10: s.MRR, NDCG10: s.NDCG, Recall1: s.Recall1, Recall10: s.RecallK}
}

// timeQueries runs every query once to warm up, then once timed, and returns the
// timed pass's results (query id → paths).
func timeQueries(ctx context.Context, x *vault.Indexer, queries []Query, out *Queries) (map[string][]string, error) {
	out.Count, out.Limit = len(queries), Limit
	run := map[string][]string{}
	lat := make([]time.Duration, 0, len(queries))
	bare := make([]time.Duration, 0, len(queries))
	for pass := range 2 {
		lat = lat[:0]
		out.Errors, out.NotBM25 = 0, 0
		for i, q := range queries {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if pass == 1 && i%2 == 0 {
				bare = append(bare, timeBare(ctx, x, q))
			}
			start := time.Now()
			resp, err := x.Search(ctx, vault.SearchRequest{Query: q.Text, Limit: Limit, Literal: true})
			d := time.Since(start)
			if pass == 0 {
				continue
			}
			if i%2 == 1 {
				bare = append(bare, timeBare(ctx, x, q))
			}
			lat = append(lat, d)
			if err != nil {
				out.Errors++
				run[q.ID] = nil
				continue
			}
			if resp.Engine != vault.EngineBM25 {
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
	out.NoSnippetsP50MS, out.NoSnippetsP95MS, _, _ = latencyStats(bare)
	return run, nil
}

// timeBare times query q without snippets (vault.SearchRequest.NoSnippets), as
// the Bleve anchor answers: ids only. The timed pass runs it next to the query
// with snippets, before it for even queries and after it for odd ones, so that
// neither variant always finds the blocks the other read in the cache.
func timeBare(ctx context.Context, x *vault.Indexer, q Query) time.Duration {
	start := time.Now()
	x.Search(ctx, vault.SearchRequest{Query: q.Text, Limit: Limit, Literal: true, NoSnippets: true})
	return time.Since(start)
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

// timeCatchUp times CatchUp with nothing to do, then after EditRounds commits
// each appending a line to NotesPerEdit notes (or every note, when fewer).
func timeCatchUp(ctx context.Context, v *repo.Vault, x *vault.Indexer, notes []note.Path, out *CatchUp) error {
	out.NoopRounds = NoopRounds
	lat := make([]time.Duration, 0, NoopRounds)
	for range NoopRounds {
		start := time.Now()
		if err := x.CatchUp(ctx); err != nil {
			return err
		}
		lat = append(lat, time.Since(start))
	}
	p50, _, _, _ := latencyStats(lat)
	out.NoopP50US = metric.Round(p50*1000, 3)
	if len(notes) == 0 {
		return nil
	}
	k := min(NotesPerEdit, len(notes))
	out.Rounds, out.NotesPerCommit, out.Verified = EditRounds, k, true
	// Made-up words, none a prefix of another (the index may expand prefixes), so
	// each finds exactly the notes of its round.
	markers := [EditRounds]string{"quorbixant", "zelfrimmot", "vantroglid", "kribbosunt", "wuffelpandor"}
	for r, marker := range markers {
		found, err := editRound(ctx, v, x, notes, r, k, marker, out)
		if err != nil {
			return err
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

// editRound commits marker appended to k notes (round r's share of notes), times
// the commit and the catch-up after it into out, and returns how many notes the
// index then finds by marker (-1: the search failed or was not the index's).
func editRound(ctx context.Context, v *repo.Vault, x *vault.Indexer, notes []note.Path, r, k int, marker string, out *CatchUp) (int, error) {
	tx := repo.Tx{Author: v.Owner(), Roles: []string{"owner"}, Op: repo.OpEdit,
		Message: fmt.Sprintf("bench: append a line to %d notes", k)}
	for i := range k {
		p := notes[(r*k+i)%len(notes)]
		b, err := v.Read(ctx, p, "")
		if err != nil {
			return 0, err
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
		return 0, fmt.Errorf("bench: commit: %w", err)
	}
	out.CommitMS = append(out.CommitMS, msSince(start))
	start = time.Now()
	if err := x.CatchUp(ctx); err != nil {
		return 0, err
	}
	out.MS = append(out.MS, msSince(start))
	if commit, _ := x.Status(); commit != string(v.Head()) {
		return 0, fmt.Errorf("bench: index at %q after catch-up, HEAD at %s", commit, v.Head())
	}
	found := -1
	resp, err := x.Search(ctx, vault.SearchRequest{Query: marker, Limit: 1, Literal: true})
	if err == nil && resp.Engine == vault.EngineBM25 {
		found = resp.Total
	}
	return found, nil
}

// readMemory reads VmHWM (peak) and VmRSS from /proc/self/status.
func readMemory() Memory {
	m := Memory{Note: "whole norn process (vault, index, Go runtime); VmHWM is the peak so far, import and rebuild included"}
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
			m.VmHWMMB = metric.Round(kb/1024, 1)
		case "VmRSS":
			m.VmRSSMB = metric.Round(kb/1024, 1)
		}
	}
	return m
}

func durMS(d time.Duration) float64 { return metric.Round(float64(d.Nanoseconds())/1e6, 6) }

func msSince(t time.Time) float64 { return metric.Round(float64(time.Since(t).Nanoseconds())/1e6, 3) }
