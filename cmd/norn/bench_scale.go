package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/norn-vault/norn/bench"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server"
	"github.com/norn-vault/norn/vault"
)

// runBenchScale is `norn bench scale`: the scale suite (bench.Scale) on vaults made
// by ../shared/bench/scale_vault.py, printed as one Markdown table.
func runBenchScale(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("bench scale", g)
	sizes := fs.String("sizes", "10000,100000", "vault sizes in notes, comma-separated")
	shared := fs.String("shared", filepath.Join("..", "shared", "bench"), "the folder of scale_vault.py, known_item.py and fts5_baseline.py")
	cache := fs.String("cache", "", "the folder the generated vaults are kept in (default $TMPDIR/norn-scale)")
	nornBin := fs.String("norn", "", "the norn binary to measure (default: this one)")
	rounds := fs.Int("rounds", 21, "cold-process rounds of each command and of its anchor")
	warm := fs.Duration("warm", 30*time.Second, "how long the server rests after it first answers, before the idle window")
	idleWin := fs.Duration("idle", 30*time.Second, "the idle window the server's CPU is measured over")
	searches := fs.Int("searches", 1000, "searches through the running server")
	catchUps := fs.Int("catchup-rounds", 3, "hand commits of 100 notes timed until the server's index answers")
	noFTS5 := fs.Bool("no-fts5", false, "do not run the FTS5 anchor")
	from := fs.String("from", "", "measure nothing: print the table of an earlier run's --json output")
	if _, err := parseArgs(fs, args, 0, 0); err != nil {
		return err
	}
	if *from != "" {
		return printScaleFrom(e, *from)
	}
	o := bench.ScaleOptions{Rounds: *rounds, Warm: *warm, Idle: *idleWin, Searches: *searches, CatchUpRounds: *catchUps,
		Generator: filepath.Join(*shared, "scale_vault.py"), KnownItem: filepath.Join(*shared, "known_item.py"),
		Cache: *cache, Norn: *nornBin, Logger: logger(e, g),
		Ask: askSearch, OpenIndexer: func(ctx context.Context, v *repo.Vault, s *vault.Settings) *vault.Indexer {
			return openIndexer(ctx, e, g, v, s)
		},
		Progress: func(format string, a ...any) { fmt.Fprintf(e.stderr, "bench scale: "+format+"\n", a...) },
	}
	for _, f := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 10 {
			return usagef("--sizes: %q is not a vault size (10 notes or more)", f)
		}
		o.Sizes = append(o.Sizes, n)
	}
	if err := inRange("rounds", *rounds, 1, 1000); err != nil {
		return err
	}
	if err := inRange("searches", *searches, 1, 1_000_000); err != nil {
		return err
	}
	if err := inRange("catchup-rounds", *catchUps, 0, bench.MaxCatchUpRounds); err != nil {
		return err
	}
	if *warm < 0 || *idleWin <= 0 {
		return usagef("--warm must be 0 or more and --idle more than 0")
	}
	if o.Cache == "" {
		o.Cache = filepath.Join(os.TempDir(), "norn-scale")
	}
	if o.Norn == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("bench scale: the norn binary: %w", err)
		}
		o.Norn = exe
	}
	switch script := filepath.Join(*shared, "fts5_baseline.py"); {
	case *noFTS5:
		o.FTS5Skip = "--no-fts5"
	case !regularFile(script):
		o.FTS5Skip = "no anchor script at " + script
	default:
		o.FTS5Script = script
	}
	if !regularFile(o.Generator) || !regularFile(o.KnownItem) {
		fmt.Fprintf(e.stderr, "bench scale: skipped: no %s or %s (give --shared)\n", o.Generator, o.KnownItem)
		return nil
	}
	rep, err := bench.Scale(ctx, o)
	if err != nil {
		return err
	}
	if g.json {
		return printJSON(e, rep)
	}
	printScale(e.stdout, rep)
	return nil
}

// printScaleFrom prints the table of a report saved with --json.
func printScaleFrom(e *env, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return usagef("--from: %v", err)
	}
	var rep bench.ScaleReport
	if err := json.Unmarshal(b, &rep); err != nil {
		return usagef("--from %s: not a bench scale report: %v", path, err)
	}
	printScale(e.stdout, &rep)
	return nil
}

func regularFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// askSearch asks the server running on the vault at gitDir for query, as one-shot
// commands do, and returns how many notes match.
func askSearch(ctx context.Context, gitDir, query string) (int, error) {
	var resp vault.SearchResponse
	err := server.AskLocal(ctx, gitDir, server.Query{Op: "search",
		Search: &vault.SearchRequest{Query: query, Limit: bench.Limit, Literal: true}}, &resp)
	if err != nil {
		return 0, err
	}
	if resp.Engine != vault.EngineBM25 {
		return 0, fmt.Errorf("bench scale: search answered by %q, not the index", resp.Engine)
	}
	return resp.Total, nil
}

// printScale prints rep as one Markdown table: a row per measure, a column per
// size, then the anchor and our figure over the anchor's, per size.
func printScale(w io.Writer, rep *bench.ScaleReport) {
	fmt.Fprintf(w, "norn bench scale: %s, GOMAXPROCS %d, %s\n\n", rep.GoVersion, rep.GOMAXPROCS, rep.Norn)
	head := []string{"measure"}
	for _, s := range rep.Sizes {
		head = append(head, humanCount(s.Notes)+" notes")
	}
	head = append(head, "anchor", "ratio")
	fmt.Fprintln(w, "| "+strings.Join(head, " | ")+" |")
	fmt.Fprintln(w, "|"+strings.Repeat("---|", len(head)))
	for _, r := range scaleRows {
		cells := []string{r.name}
		var anchors, ratios []string
		for i := range rep.Sizes {
			s := &rep.Sizes[i]
			ours, theirs, ratio := r.cell(s)
			cells = append(cells, ours)
			anchors, ratios = append(anchors, theirs), append(ratios, ratio)
		}
		anchor := r.anchor
		if a := strings.Join(anchors, " / "); strings.Trim(a, " /—") != "" {
			anchor += ": " + a
		}
		ratio := strings.Join(ratios, " / ")
		if strings.Trim(ratio, " /—") == "" {
			ratio = "—"
		}
		fmt.Fprintln(w, "| "+strings.Join(append(cells, anchor, ratio), " | ")+" |")
	}
	if len(rep.Sizes) > 1 {
		fmt.Fprintln(w, "\nAnchor and ratio columns give one figure per size, in the order of the columns.")
	}
	for _, s := range rep.Sizes {
		if s.FTS5.Status != "ok" && s.FTS5.Status != "" {
			fmt.Fprintf(w, "FTS5 anchor at %d notes %s: %s\n", s.Notes, s.FTS5.Status, s.FTS5.Reason)
		}
	}
}

// humanCount writes 10000 as 10k, 1500 as 1500.
func humanCount(n int) string {
	if n >= 1000 && n%1000 == 0 {
		return strconv.Itoa(n/1000) + "k"
	}
	return strconv.Itoa(n)
}

// scaleRow is one measure of the table: cell gives our figure, the anchor's and
// the ratio for one size ("—" where there is none).
type scaleRow struct {
	name, anchor string
	cell         func(s *bench.ScaleSize) (ours, theirs, ratio string)
}

const none = "—"

func ms(f float64) string {
	switch {
	case f >= 1000:
		return fmt.Sprintf("%.2f s", f/1000)
	case f >= 100:
		return fmt.Sprintf("%.0f ms", f)
	case f >= 10:
		return fmt.Sprintf("%.1f ms", f)
	}
	return fmt.Sprintf("%.2f ms", f)
}

func ratio(ours, theirs float64) string {
	if theirs <= 0 {
		return none
	}
	return fmt.Sprintf("%.2f×", ours/theirs)
}

func coldRow(name, anchor string, ours, theirs func(*bench.ScaleSize) bench.Cold) scaleRow {
	return scaleRow{name, anchor, func(s *bench.ScaleSize) (string, string, string) {
		a, b := ours(s), theirs(s)
		return fmt.Sprintf("%s (min %s)", ms(a.P50MS), ms(a.MinMS)), fmt.Sprintf("%s (min %s)", ms(b.P50MS), ms(b.MinMS)), ratio(a.P50MS, b.P50MS)
	}}
}

func plainRow(name string, f func(*bench.ScaleSize) string) scaleRow {
	return scaleRow{name, none, func(s *bench.ScaleSize) (string, string, string) { return f(s), none, none }}
}

var scaleRows = []scaleRow{
	plainRow("idle server CPU (% of a core)", func(s *bench.ScaleSize) string {
		return fmt.Sprintf("%.2f%% over %.0f s", s.IdleCPUPct, s.IdleS)
	}),
	plainRow("hand edit → external commit", func(s *bench.ScaleSize) string { return ms(s.HandEditMS) }),
	coldRow("`norn write` of a new note, p50", "`git add` + `git commit`", func(s *bench.ScaleSize) bench.Cold { return s.Write }, func(s *bench.ScaleSize) bench.Cold { return s.GitWrite }),
	coldRow("`norn read`, p50", "`git show HEAD:PATH`", func(s *bench.ScaleSize) bench.Cold { return s.Read }, func(s *bench.ScaleSize) bench.Cold { return s.GitShow }),
	coldRow("`norn version`, p50", "`git version`", func(s *bench.ScaleSize) bench.Cold { return s.Version }, func(s *bench.ScaleSize) bench.Cold { return s.GitVersion }),
	{"full rebuild (`norn reindex`), wall", "FTS5 build", func(s *bench.ScaleSize) (string, string, string) {
		if s.FTS5.Status != "ok" {
			return ms(s.RebuildS * 1000), none, none
		}
		return ms(s.RebuildS * 1000), ms(s.FTS5.BuildMS), ratio(s.RebuildS*1000, s.FTS5.BuildMS)
	}},
	plainRow("full rebuild, CPU (user + system)", func(s *bench.ScaleSize) string { return fmt.Sprintf("%.1f s", s.RebuildCPUS) }),
	plainRow("full rebuild, peak RSS", func(s *bench.ScaleSize) string { return fmt.Sprintf("%.0f MB", s.RebuildRSSMB) }),
	plainRow("server RSS, idle", func(s *bench.ScaleSize) string { return fmt.Sprintf("%.0f MB", s.RSSIdleMB) }),
	plainRow("server RSS after the searches", func(s *bench.ScaleSize) string {
		return fmt.Sprintf("%.0f MB (%d)", s.RSSSearchedMB, s.Searches)
	}),
	plainRow("search through the server's local endpoint, p50", func(s *bench.ScaleSize) string { return ms(s.LocalSearchP50MS) }),
	plainRow("catch-up after a hand `git commit` of 100 notes, end to end, median", func(s *bench.ScaleSize) string {
		return fmt.Sprintf("%s (%s)", ms(s.CatchUpMedianMS), strings.Join(msList(s.CatchUpMS), ", "))
	}),
	plainRow("the same, the server's CPU per round", func(s *bench.ScaleSize) string {
		return strings.Join(msList(s.CatchUpCPUMS), ", ")
	}),
	{"search p50, in-process", "FTS5 p50", func(s *bench.ScaleSize) (string, string, string) {
		if s.FTS5.Status != "ok" {
			return ms(s.Search.P50MS), none, none
		}
		return ms(s.Search.P50MS), ms(s.FTS5.P50MS), ratio(s.Search.P50MS, s.FTS5.P50MS)
	}},
}

func msList(l []float64) []string {
	out := make([]string, len(l))
	for i, f := range l {
		out[i] = ms(f)
	}
	return out
}
