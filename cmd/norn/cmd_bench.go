package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/norn-vault/norn/bench"
	"github.com/norn-vault/norn/bench/metric"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/rerank"
	"github.com/norn-vault/norn/vault"
)

func runBench(ctx context.Context, e *env, g *globals, args []string) error {
	if len(args) > 0 && args[0] == "scale" {
		return runBenchScale(ctx, e, g, args[1:])
	}
	flags := newFlags("bench", g)
	fts5Flag := flags.String("fts5", "", "the anchor script fts5_baseline.py (default $NORN_FTS5, else ../shared/bench/fts5_baseline.py, else bench/fts5_baseline.py in a folder above the corpus)")
	noFTS5 := flags.Bool("no-fts5", false, "do not run the FTS5 anchor")
	bleve := flags.String("bleve", "", "also run the Bleve anchor, this binary (go build -o /tmp/bleveanchor in ../shared/bench/bleve)")
	keep := flags.String("keep", "", "build the vault in this new folder and keep it (default: a temporary folder, removed)")
	rerankFlag := flags.Bool("rerank", false, "also run the queries through the reranker at $NORN_RERANK_URL (model $NORN_RERANK_MODEL, key $NORN_RERANK_API_KEY), gated as norn search --rerank auto")
	args, err := parseArgs(flags, args, 1, 4)
	if err != nil {
		return err
	}
	if args[0] != "search" {
		return usagef("unknown bench %q (want: search or scale)", args[0])
	}
	args = args[1:]
	if err := wantArgs(args, 2, 3); err != nil {
		return err
	}
	notesDir, queriesPath := args[0], args[1]
	if fi, err := os.Stat(notesDir); err != nil || !fi.IsDir() {
		return usagef("%s is not a folder", notesDir)
	}
	queries, err := bench.LoadQueries(queriesPath)
	if err != nil {
		return usagef("%v", err)
	}
	var judged metric.Qrels
	if len(args) == 3 {
		if judged, err = bench.LoadQrels(args[2]); err != nil {
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
		} else if script = bench.FindAnchor(notesDir); script == "" {
			fts5Skip = "no anchor script at ../shared/bench/fts5_baseline.py nor in a bench/ folder above the corpus (give --fts5 or set $NORN_FTS5)"
		}
	}

	var rr *rerank.Reranker
	if *rerankFlag {
		if rr, err = benchReranker(e, g, len(queries)); err != nil {
			return err
		}
	}
	if *bleve != "" {
		if _, err := os.Stat(*bleve); err != nil {
			return usagef("--bleve: %v", err)
		}
	}
	if *keep != "" {
		if ents, err := os.ReadDir(*keep); err == nil && len(ents) > 0 {
			return usagef("--keep %s: folder is not empty", *keep)
		}
	}
	rep, err := bench.Search(ctx, bench.Options{
		Notes: notesDir, QueriesPath: queriesPath, Queries: queries, Qrels: judged, Keep: *keep,
		FTS5Script: script, FTS5Skip: fts5Skip, Bleve: *bleve, Logger: logger(e, g),
		OpenIndexer: func(ctx context.Context, v *repo.Vault, s *vault.Settings) *vault.Indexer {
			return openIndexer(ctx, e, g, v, s)
		},
		Progress: func(s bench.Stage, r *bench.Report) { printBenchProgress(e.stderr, s, r) },
	})
	if err != nil {
		return err
	}
	if rr != nil {
		if rep.Rerank, err = benchRerank(ctx, e, g, rr, notesDir, queries, judged); err != nil {
			return err
		}
	}
	if g.json {
		return printJSON(e, rep)
	}
	printBench(e, rep)
	if rep.Rerank != nil {
		printBenchRerank(e, rep.Rerank)
	}
	return nil
}

// printBenchProgress says on w what a bench has reached.
func printBenchProgress(w io.Writer, s bench.Stage, r *bench.Report) {
	progress := func(format string, a ...any) {
		fmt.Fprintf(w, "bench: "+format+"\n", a...)
	}
	switch s {
	case bench.StageCopy:
		progress("copying %s to %s", r.Corpus, r.Vault)
	case bench.StageImport:
		progress("importing %s (one commit)", plural(r.Files, "file"))
	case bench.StageRebuild:
		progress("import took %.0f ms; rebuilding the index", r.ImportMS)
	case bench.StageQueries:
		progress("rebuild took %.0f ms; running %d queries (one warm-up pass, one timed)", r.RebuildMS, r.Queries.Count)
	case bench.StageCatchUp:
		progress("queries p50 %.3f ms; timing catch-up", r.Queries.P50MS)
	case bench.StageCaughtUp:
		progress("catch-up after a %d-note commit: median %.1f ms", r.CatchUp.NotesPerCommit, r.CatchUp.MedianMS)
	case bench.StageFTS5:
		progress("running the FTS5 anchor %s", r.FTS5.Script)
	case bench.StageFTS5Failed:
		progress("FTS5 anchor failed: %s", r.FTS5.Reason)
	case bench.StageFTS5Skipped:
		progress("FTS5 anchor skipped: %s", r.FTS5.Reason)
	case bench.StageBleve:
		progress("running the Bleve anchor %s", r.Bleve.Script)
	case bench.StageBleveFailed:
		progress("Bleve anchor failed: %s", r.Bleve.Reason)
	}
}

func printBench(e *env, r *bench.Report) {
	w := e.stdout
	fmt.Fprintf(w, "corpus   %s: %s, %s (%d hidden entries skipped)\n", r.Corpus, plural(r.Notes, "note"), plural(r.Files, "file"), r.Skipped)
	fmt.Fprintf(w, "machine  %s, GOMAXPROCS %d\n", r.GoVersion, r.GOMAXPROCS)
	fmt.Fprintf(w, "import   %.0f ms (one commit, no gate)\n", r.ImportMS)
	q := r.Queries
	fmt.Fprintf(w, "queries  %d, top %d, in-process; errors %d, not answered by bm25 %d\n\n", q.Count, q.Limit, q.Errors, q.NotBM25)

	f := r.FTS5
	ok := f.Status == "ok"
	var b bench.FTS5
	if r.Bleve != nil {
		b = *r.Bleve
	}
	bok := b.Status == "ok"
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "\tnorn\tfts5\tnorn/fts5\t"
	if r.Bleve != nil {
		head += "bleve\tnorn/bleve\t"
	}
	fmt.Fprintln(tw, head)
	cell := func(ok bool, ours, theirs float64, format string, ratio bool) string {
		t, rt := "-", "-"
		if ok {
			t = fmt.Sprintf(format, theirs)
			if ratio && theirs > 0 {
				rt = fmt.Sprintf("%.3f", ours/theirs)
			}
		}
		return t + "\t" + rt + "\t"
	}
	row := func(name string, ours, fts, blv float64, format string, ratio bool) {
		line := fmt.Sprintf("%s\t"+format+"\t", name, ours) + cell(ok, ours, fts, format, ratio)
		if r.Bleve != nil {
			line += cell(bok, ours, blv, format, ratio)
		}
		fmt.Fprintln(tw, line)
	}
	row("build ms", r.RebuildMS, f.BuildMS, b.BuildMS, "%.0f", true)
	row("index MB", float64(r.IndexBytes)/(1<<20), float64(f.IndexBytes)/(1<<20), float64(b.IndexBytes)/(1<<20), "%.1f", true)
	row("p50 ms", q.P50MS, f.P50MS, b.P50MS, "%.3f", true)
	row("p95 ms", q.P95MS, f.P95MS, b.P95MS, "%.3f", true)
	row("p50 ms, no snippets", q.NoSnippetsP50MS, f.P50MS, b.P50MS, "%.3f", true)
	row("p95 ms, no snippets", q.NoSnippetsP95MS, f.P95MS, b.P95MS, "%.3f", true)
	if r.Quality != nil {
		var fq, bq bench.Quality
		if f.Quality != nil {
			fq = *f.Quality
		}
		if b.Quality != nil {
			bq = *b.Quality
		}
		row("MRR@10", r.Quality.MRR10, fq.MRR10, bq.MRR10, "%.4f", false)
		row("nDCG@10", r.Quality.NDCG10, fq.NDCG10, bq.NDCG10, "%.4f", false)
		row("recall@1", r.Quality.Recall1, fq.Recall1, bq.Recall1, "%.4f", false)
		row("recall@10", r.Quality.Recall10, fq.Recall10, bq.Recall10, "%.4f", false)
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
	if r.Bleve != nil && !bok {
		fmt.Fprintf(w, "bleve    %s: %s\n", b.Status, b.Reason)
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
