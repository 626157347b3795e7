package graph

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/norn-vault/norn/bench/metric"
)

// buildIndex rebuilds a fresh index in a temp dir from docs.
func buildIndex(tb testing.TB, docs []Doc, opts Options) *Index {
	tb.Helper()
	ix, err := Open(tb.TempDir(), opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ix.Close() })
	if err := ix.Rebuild(context.Background(), "c1", DocRecords(sliceSeq(docs)), nil); err != nil {
		tb.Fatal(err)
	}
	return ix
}

// runQueries searches every query (plain words, as the FTS5 anchor does) and
// returns the run (qid → ranked paths) and the per-query latencies.
func runQueries(tb testing.TB, ix *Index, qs []irQuery, limit int) (map[string][]string, []time.Duration) {
	tb.Helper()
	run := map[string][]string{}
	var lat []time.Duration
	for pass := range 2 { // the first pass warms the caches; the second is timed
		lat = lat[:0]
		for _, q := range qs {
			t0 := time.Now()
			res, err := ix.Search(context.Background(), q.Text, SearchOptions{Limit: limit, Literal: true})
			d := time.Since(t0)
			if err != nil {
				tb.Fatalf("query %s %q: %v", q.ID, q.Text, err)
			}
			lat = append(lat, d)
			if pass == 1 {
				var paths []string
				for _, h := range res.Hits {
					paths = append(paths, string(h.Path))
				}
				run[q.ID] = paths
			}
		}
	}
	slices.Sort(lat)
	return run, lat
}

func p50(lat []time.Duration) time.Duration {
	if len(lat) == 0 {
		return 0
	}
	return lat[len(lat)/2]
}

// writeRun writes a run file eval.py reads.
func writeRun(tb testing.TB, path string, run map[string][]string) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	ids := make([]string, 0, len(run))
	for id := range run {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	enc := json.NewEncoder(f)
	for _, id := range ids {
		if err := enc.Encode(map[string]any{"qid": id, "results": run[id]}); err != nil {
			tb.Fatal(err)
		}
	}
}

// anchor holds the FTS5 baseline's figures (bench/README.md, re-measured in the
// same session for docs/search-quality.md).
var anchor = map[string]metric.Scores{
	"ir-cranfield": {MAP: .3068, NDCG: .3619},
	"ir-cisi":      {MAP: .1362, NDCG: .3335},
	"ir-cacm":      {MAP: .2652, NDCG: .4118},
	"obsidian-hub": {MRR: .1063},
	"cpp-docs":     {MRR: .525},
}

// TestQuality_IR builds an index from each IR collection, runs its queries and
// checks MAP and nDCG@10 against the FTS5 anchor: at least 10% better on each
// (the defaults are tuned on Cranfield and CISI only; docs/search-quality.md).
func TestQuality_IR(t *testing.T) {
	if testing.Short() {
		t.Skip("quality run skipped in -short")
	}
	if raceEnabled {
		t.Skip("takes over a minute under -race: run without -race")
	}
	for _, name := range []string{"ir-cranfield", "ir-cisi", "ir-cacm"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(corporaDir, name)
			needDir(t, dir)
			ix := buildIndex(t, irDocs(t, dir), Options{})
			run, lat := runQueries(t, ix, readQueries(t, filepath.Join(dir, "queries.jsonl")), 100)
			m := metric.Score(readQrels(t, filepath.Join(dir, "qrels.tsv")), run, 10)
			t.Logf("%s: MAP %.4f nDCG@10 %.4f MRR@10 %.4f P@10 %.4f R@100 %.4f (%d queries, p50 %v)",
				name, m.MAP, m.NDCG, m.MRR, m.P, m.R100, m.Queries, p50(lat))
			if out := os.Getenv("NORN_RUN_DIR"); out != "" {
				writeRun(t, filepath.Join(out, name+".run.jsonl"), run)
			}
			a := anchor[name]
			if m.MAP < 1.1*a.MAP || m.NDCG < 1.1*a.NDCG {
				t.Errorf("%s: MAP %.4f nDCG@10 %.4f, want ≥ %.4f and ≥ %.4f", name, m.MAP, m.NDCG, 1.1*a.MAP, 1.1*a.NDCG)
			}
		})
	}
}

// TestQuality_KnownItem runs the known-item sets and checks MRR@10 against FTS5.
func TestQuality_KnownItem(t *testing.T) {
	if testing.Short() {
		t.Skip("quality run skipped in -short")
	}
	if raceEnabled {
		t.Skip("big corpora under -race take minutes: run without -race")
	}
	for _, set := range []struct{ name, corpus string }{
		{"obsidian-hub", "vault-obsidian-hub"},
		{"cpp-docs", "md-cpp-docs"},
	} {
		t.Run(set.name, func(t *testing.T) {
			root := filepath.Join(corporaDir, set.corpus, "notes")
			needDir(t, root)
			bad := 0
			docs := vaultDocs(t, root, &bad)
			ix := buildIndex(t, docs, Options{})
			qs := readQueries(t, filepath.Join(benchDir, "queries", set.name+".queries.jsonl"))
			run, lat := runQueries(t, ix, qs, 10)
			m := metric.Score(readQrels(t, filepath.Join(benchDir, "queries", set.name+".qrels.tsv")), run, 10)
			t.Logf("%s: MRR@10 %.4f top1 %.4f nDCG@10 %.4f (%d queries, %d notes, %d unparsable, p50 %v)",
				set.name, m.MRR, m.Top1, m.NDCG, m.Queries, len(docs), bad, p50(lat))
			if out := os.Getenv("NORN_RUN_DIR"); out != "" {
				writeRun(t, filepath.Join(out, set.name+".run.jsonl"), run)
			}
			if a := anchor[set.name]; m.MRR < a.MRR {
				t.Errorf("%s: MRR@10 %.4f, want ≥ %.4f (FTS5)", set.name, m.MRR, a.MRR)
			}
		})
	}
}

// TestIRNote_MatchesScript checks that irDocs writes the same note bytes as
// bench/ir_to_vault.py, so figures here match a vault made by the script.
func TestIRNote_MatchesScript(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	for _, name := range []string{"ir-cranfield", "ir-cisi", "ir-cacm"} {
		dir := filepath.Join(corporaDir, name)
		needDir(t, dir)
		out := t.TempDir()
		if b, err := exec.Command(py, filepath.Join(benchDir, "ir_to_vault.py"), dir, out).CombinedOutput(); err != nil {
			t.Fatalf("ir_to_vault.py: %v\n%s", err, b)
		}
		docs := irDocs(t, dir)
		for _, d := range docs {
			want, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(string(d.Path))))
			if err != nil {
				t.Fatal(err)
			}
			if string(want) != string(d.Note.Raw) {
				t.Fatalf("%s %s: script wrote %q, irDocs %q", name, d.Path, want, d.Note.Raw)
			}
		}
		t.Logf("%s: %d notes identical to ir_to_vault.py's", name, len(docs))
	}
}
