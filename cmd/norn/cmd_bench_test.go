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
	var r benchReport
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
	if q.Count != 5 || q.Errors != 0 || q.NotBM25 != 0 || q.P50MS <= 0 || q.P95MS < q.P50MS || q.MaxMS < q.P95MS || q.MeanMS <= 0 {
		t.Fatalf("queries: %+v", q)
	}
	// Each query names one animal, found in one note only: rank 1 every time.
	if r.Quality == nil || r.Quality.Judged != 5 || r.Quality.MRR10 != 1 || r.Quality.Recall1 != 1 || r.Quality.Recall10 != 1 {
		t.Fatalf("quality: %+v", r.Quality)
	}
	c := r.CatchUp
	if c.NoopRounds != benchNoopRounds || c.NoopP50US <= 0 || c.Rounds != benchEditRounds || c.NotesPerCommit != 50 ||
		len(c.MS) != benchEditRounds || len(c.CommitMS) != benchEditRounds || c.MedianMS <= 0 || !c.Verified {
		t.Fatalf("catch-up: %+v", c)
	}
	if r.Memory.VmHWMMB <= 0 || r.Memory.VmRSSMB <= 0 || r.Memory.VmRSSMB > r.Memory.VmHWMMB {
		t.Fatalf("memory: %+v", r.Memory)
	}
	// The kept vault holds the import and the five timed commits, and the appended lines.
	if n := strings.Count(git(t, kept, "log", "--format=%s"), "\n"); n != 1+benchEditRounds {
		t.Fatalf("kept vault has %d commits, want %d", n, 1+benchEditRounds)
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
	if want := round(q.P50MS/f.P50MS, 4); f.RatioP50 != want || f.TargetP50 != benchP50Target {
		t.Fatalf("fts5 p50 ratio %v, want %v", f.RatioP50, want)
	}
	if want := round(r.RebuildMS/f.BuildMS, 4); f.RatioBuild != want {
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
		{"bench", "search", notes, queries, "--bogus"},
	} {
		if out, errs, code := benchCLI(t, nil, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want 2\n%s%s", args, code, out, errs)
		}
	}
}

func TestScoreRun(t *testing.T) {
	q := qrels{
		"a": {"x/1.md": 1},
		"b": {"x/2.md": 1, "x/3.md": 2},
		"c": {"x/4.md": 1},
		"d": {"x/5.md": 0}, // judged: eval.py counts every listed document as relevant
	}
	run := map[string][]string{
		"a": {"x/1.md", "x/9.md"},                                          // rank 1
		"b": {"x/9.md", "./x/3.md", "x/8.md", "x/2.md"},                    // ranks 2 and 4
		"c": {"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "x/4.md"}, // rank 11: outside @10
		// "d" has no results.
	}
	got := scoreRun(q, run, 10)
	// ranks 1; 2 and 4 of 2 judged; none; none. nDCG@10: a 1, b (3/log2 3 + 1/log2 5) /
	// (3 + 1/log2 3) = .6399 (x/3.md has grade 2), c 0, d 0 (a grade-0 judgement gains nothing).
	want := benchQuality{Judged: 4, MRR10: 0.375, NDCG10: 0.41, Recall1: 0.25, Recall10: 0.5}
	if got != want {
		t.Fatalf("by path: got %+v, want %+v", got, want)
	}
	// Qrels naming stems compare results by file stem.
	got = scoreRun(qrels{"a": {"184": 1}}, map[string][]string{"a": {"docs/7.md", "docs/184.md"}}, 10)
	if got.MRR10 != 0.5 || got.NDCG10 != 0.6309 || got.Recall1 != 0 || got.Recall10 != 1 {
		t.Fatalf("by stem: %+v", got)
	}
	if got := scoreRun(qrels{}, run, 10); got != (benchQuality{}) {
		t.Fatalf("no qrels: %+v", got)
	}
}

func TestPyStem(t *testing.T) {
	for in, want := range map[string]string{"docs/184.md": "184", "a/b.tar.gz": "b.tar", ".bashrc": ".bashrc", "x/..md": "..md", "plain": "plain", "a.b/c": "c"} {
		if got := pyStem(in); got != want {
			t.Errorf("pyStem(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLatencyStats(t *testing.T) {
	var lat []time.Duration
	for i := 20; i >= 1; i-- { // unsorted on purpose
		lat = append(lat, time.Duration(i)*time.Millisecond)
	}
	p50, p95, mean, maxMS := latencyStats(lat)
	// The anchor's definitions: median of 1..20 is 10.5; p95 is sorted[int(0.95*19)] = sorted[18] = 19.
	if p50 != 10.5 || p95 != 19 || mean != 10.5 || maxMS != 20 {
		t.Fatalf("p50 %v p95 %v mean %v max %v", p50, p95, mean, maxMS)
	}
	if lat[0] != 20*time.Millisecond {
		t.Fatal("latencyStats sorted its argument")
	}
	if a, b, c, d := latencyStats(nil); a+b+c+d != 0 {
		t.Fatal("empty")
	}
}

// TestFindAnchor: the anchor script is found in a bench/ folder above the corpus
// (the shared material's layout), and not found when there is none.
func TestFindAnchor(t *testing.T) {
	root := t.TempDir()
	notes := filepath.Join(root, "shared", "corpora", "x", "notes")
	if err := os.MkdirAll(notes, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := findAnchor(notes); got != "" {
		t.Fatalf("no script anywhere: found %q", got)
	}
	script := filepath.Join(root, "shared", "bench", "fts5_baseline.py")
	os.MkdirAll(filepath.Dir(script), 0o755)
	if err := os.WriteFile(script, []byte("# anchor\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := findAnchor(notes); got != script {
		t.Fatalf("found %q, want %q", got, script)
	}
}
