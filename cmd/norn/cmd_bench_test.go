package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/norn-vault/norn/bench"
	"github.com/norn-vault/norn/bench/metric"
)

// benchCLI runs norn in-process with the given environment variables and returns
// stdout, stderr and the exit code.
func benchCLI(t *testing.T, vars map[string]string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string { return vars[k] }}
	code := run(context.Background(), args, e)
	return out.String(), errb.String(), code
}

// benchAnimals name the notes of the generated corpus: each appears in one note only.
func benchAnimals() []string {
	return strings.Fields(`aardvark albatross alligator alpaca anteater antelope armadillo axolotl
	baboon badger barracuda beaver bison bobcat buffalo camel capybara caribou cheetah chinchilla
	cobra condor cougar coyote crocodile dingo dolphin donkey dormouse eagle echidna eland emu
	falcon ferret flamingo gazelle gecko gibbon giraffe gorilla hamster hedgehog heron hippo
	hyena ibex iguana jackal jaguar`)
}

// writeBenchCorpus writes 50 notes, 5 queries with one known answer each, and their
// qrels into dir; it returns the notes folder, the queries and the qrels files.
func writeBenchCorpus(t *testing.T, dir string) (notes, queries, qrelsPath string) {
	t.Helper()
	notes = filepath.Join(dir, "notes")
	filler := "The field guide describes where the creature lives, what it eats and how it raises its young."
	animals := benchAnimals()
	for i, a := range animals[:50] {
		p := filepath.Join(notes, fmt.Sprintf("topic-%d", i%5), a+".md")
		body := fmt.Sprintf("---\ntitle: The %s\ntags: [animals]\n---\n# The %s\n\n%s The %s is note %d.\n\n## Habitat\n\n%s\n", a, a, filler, a, i, filler)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A hidden folder and a non-note file at the top (copied before any folder is
	// made): the first is skipped, the second imported.
	os.MkdirAll(filepath.Join(notes, ".obsidian"), 0o755)
	os.WriteFile(filepath.Join(notes, ".obsidian", "app.json"), []byte("{}\n"), 0o644)
	os.WriteFile(filepath.Join(notes, "readme.txt"), []byte("not a note\n"), 0o644)

	var q, r strings.Builder
	for i, n := range []int{3, 11, 24, 37, 48} {
		a := animals[n]
		fmt.Fprintf(&q, "{\"id\": \"k%d\", \"text\": \"%s habitat\"}\n", i+1, a)
		fmt.Fprintf(&r, "k%d\ttopic-%d/%s.md\t1\n", i+1, n%5, a)
	}
	queries, qrelsPath = filepath.Join(dir, "q.jsonl"), filepath.Join(dir, "q.qrels.tsv")
	os.WriteFile(queries, []byte(q.String()), 0o644)
	os.WriteFile(qrelsPath, []byte(r.String()), 0o644)
	return notes, queries, qrelsPath
}

// anchorScript is the FTS5 anchor in the shared bench folder, or "" when absent.
func anchorScript(t *testing.T) string {
	p := filepath.Join("..", "..", "..", "shared", "bench", "fts5_baseline.py")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	if _, err := exec.LookPath("python3"); err != nil {
		return ""
	}
	return p
}

func TestCLI_Bench(t *testing.T) {
	dir := t.TempDir()
	notes, queries, qrelsPath := writeBenchCorpus(t, dir)
	kept := filepath.Join(dir, "vault")
	script := anchorScript(t)
	start := time.Now()
	out, errs, code := benchCLI(t, map[string]string{"NORN_FTS5": script}, "bench", "search", notes, queries, qrelsPath, "--keep", kept, "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	t.Logf("bench took %s", time.Since(start))
	var r bench.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if r.Notes != 50 || r.Files != 51 || r.Skipped != 1 || !r.Kept {
		t.Fatalf("corpus: %d notes, %d files, %d skipped, kept %v", r.Notes, r.Files, r.Skipped, r.Kept)
	}
	if r.ImportMS <= 0 || r.RebuildMS <= 0 || r.IndexBytes <= 0 {
		t.Fatalf("import %v ms, rebuild %v ms, index %d bytes", r.ImportMS, r.RebuildMS, r.IndexBytes)
	}
	q := r.Queries
	if q.Count != 5 || q.Errors != 0 || q.NotBM25 != 0 || q.P50MS <= 0 || q.P95MS < q.P50MS || q.MaxMS < q.P95MS || q.MeanMS <= 0 ||
		q.NoSnippetsP50MS <= 0 || q.NoSnippetsP95MS < q.NoSnippetsP50MS {
		t.Fatalf("queries: %+v", q)
	}
	// Each query names one animal, found in one note only: rank 1 every time.
	if r.Quality == nil || r.Quality.Judged != 5 || r.Quality.MRR10 != 1 || r.Quality.Recall1 != 1 || r.Quality.Recall10 != 1 {
		t.Fatalf("quality: %+v", r.Quality)
	}
	c := r.CatchUp
	if c.NoopRounds != bench.NoopRounds || c.NoopP50US <= 0 || c.Rounds != bench.EditRounds || c.NotesPerCommit != 50 ||
		len(c.MS) != bench.EditRounds || len(c.CommitMS) != bench.EditRounds || c.MedianMS <= 0 || !c.Verified {
		t.Fatalf("catch-up: %+v", c)
	}
	if r.Memory.VmHWMMB <= 0 || r.Memory.VmRSSMB <= 0 || r.Memory.VmRSSMB > r.Memory.VmHWMMB {
		t.Fatalf("memory: %+v", r.Memory)
	}
	// The kept vault holds the import and the five timed commits, and the appended lines.
	if n := strings.Count(git(t, kept, "log", "--format=%s"), "\n"); n != 1+bench.EditRounds {
		t.Fatalf("kept vault has %d commits, want %d", n, 1+bench.EditRounds)
	}
	b, err := os.ReadFile(filepath.Join(kept, "topic-3", benchAnimals()[3]+".md"))
	if err != nil || !strings.Contains(string(b), "bench edit wuffelpandor") {
		t.Fatalf("kept note: %v\n%s", err, b)
	}
	for _, phase := range []string{"copying", "importing", "rebuilding", "catch-up", "FTS5"} {
		if !strings.Contains(errs, phase) {
			t.Errorf("no %q progress line on stderr:\n%s", phase, errs)
		}
	}

	f := r.FTS5
	if script == "" {
		if f.Status != "skipped" || f.Reason == "" {
			t.Fatalf("fts5 without a script: %+v", f)
		}
		t.Log("python3 or fts5_baseline.py absent: the anchor path is only checked as skipped")
		return
	}
	if f.Status != "ok" || f.BuildMS <= 0 || f.P50MS <= 0 || f.Queries != 5 || f.IndexBytes <= 0 {
		t.Fatalf("fts5: %+v", f)
	}
	if f.Quality == nil || f.Quality.Judged != 5 || f.Quality.MRR10 < 0 || f.Quality.MRR10 > 1 || f.Quality.Recall10 != 1 {
		t.Fatalf("fts5 quality: %+v", f.Quality)
	}
	if want := metric.Round(q.P50MS/f.P50MS, 4); f.RatioP50 != want || f.TargetP50 != bench.P50Target {
		t.Fatalf("fts5 p50 ratio %v, want %v", f.RatioP50, want)
	}
	if want := metric.Round(r.RebuildMS/f.BuildMS, 4); f.RatioBuild != want {
		t.Fatalf("fts5 build ratio %v, want %v", f.RatioBuild, want)
	}
}

func TestCLI_BenchHumanNoAnchor(t *testing.T) {
	dir := t.TempDir()
	notes, queries, _ := writeBenchCorpus(t, dir)
	out, errs, code := benchCLI(t, nil, "bench", "search", notes, queries, "--no-fts5")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{"50 notes", "p50 ms", "build ms", "fts5     skipped: --no-fts5", "catch-up after a 50-note commit", "VmHWM"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "MRR@10") {
		t.Errorf("quality rows without qrels:\n%s", out)
	}
}

// TestCLI_BenchBleve: --bleve runs a second anchor with the FTS5 script's
// interface (here a stand-in that answers every query right and one that
// fails) and prints its columns beside FTS5's.
func TestCLI_BenchBleve(t *testing.T) {
	dir := t.TempDir()
	notes, queries, qrelsPath := writeBenchCorpus(t, dir)
	qrels, err := os.ReadFile(qrelsPath)
	if err != nil {
		t.Fatal(err)
	}
	var run strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(string(qrels)), "\n") {
		f := strings.Fields(l)
		fmt.Fprintf(&run, "{\"qid\": %q, \"results\": [%q]}\n", f[0], f[1])
	}
	anchor := filepath.Join(dir, "bleveanchor")
	script := "#!/bin/sh\n[ \"$1 $4\" = \"vault --run\" ] || exit 3\ncat >\"$5\" <<'EOF'\n" + run.String() + "EOF\n" +
		"echo '{\"build_s\": 0.5, \"index_bytes\": 2097152, \"p50_ms\": 0.25, \"p95_ms\": 0.5, \"queries\": 5}'\n"
	if err := os.WriteFile(anchor, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	out, errs, code := benchCLI(t, nil, "bench", "search", notes, queries, qrelsPath, "--no-fts5", "--bleve", anchor, "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	var r bench.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	b := r.Bleve
	if b == nil || b.Status != "ok" || b.P50MS != 0.25 || b.BuildMS != 500 || b.Queries != 5 || b.Quality == nil || b.Quality.MRR10 != 1 {
		t.Fatalf("bleve: %+v", b)
	}
	out, errs, code = benchCLI(t, nil, "bench", "search", notes, queries, qrelsPath, "--no-fts5", "--bleve", anchor)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{"norn/bleve", "p50 ms, no snippets", "0.250"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errs, "running the Bleve anchor") {
		t.Errorf("no Bleve progress line:\n%s", errs)
	}
	failing := filepath.Join(dir, "failing")
	os.WriteFile(failing, []byte("#!/bin/sh\necho broken >&2\nexit 1\n"), 0o755)
	out, errs, code = benchCLI(t, nil, "bench", "search", notes, queries, "--no-fts5", "--bleve", failing)
	if code != 0 || !strings.Contains(out, "bleve    failed: ") || !strings.Contains(out, "broken") || !strings.Contains(errs, "Bleve anchor failed") {
		t.Fatalf("failing anchor: exit %d\n%s%s", code, out, errs)
	}
}

func TestCLI_BenchUsage(t *testing.T) {
	dir := t.TempDir()
	notes, queries, qrelsPath := writeBenchCorpus(t, dir)
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte("{\"id\": 1, \"text\": \"x\"}\nnot json\n"), 0o644)
	badQrels := filepath.Join(dir, "bad.tsv")
	os.WriteFile(badQrels, []byte("k1\ta.md\tone\n"), 0o644)
	full := filepath.Join(dir, "full")
	os.MkdirAll(full, 0o755)
	os.WriteFile(filepath.Join(full, "x"), nil, 0o644)
	for _, args := range [][]string{
		{"bench"},
		{"bench", "search"},
		{"bench", "search", notes},
		{"bench", "index", notes, queries},
		{"bench", "search", notes, queries, qrelsPath, "extra"},
		{"bench", "search", filepath.Join(dir, "missing"), queries},
		{"bench", "search", queries, queries},
		{"bench", "search", notes, filepath.Join(dir, "missing.jsonl")},
		{"bench", "search", notes, bad},
		{"bench", "search", notes, queries, badQrels},
		{"bench", "search", notes, queries, "--fts5", filepath.Join(dir, "missing.py")},
		{"bench", "search", notes, queries, "--keep", full},
		{"bench", "search", notes, queries, "--bleve", filepath.Join(dir, "missing-anchor")},
		{"bench", "search", notes, queries, "--bogus"},
	} {
		if out, errs, code := benchCLI(t, nil, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want 2\n%s%s", args, code, out, errs)
		}
	}
}
