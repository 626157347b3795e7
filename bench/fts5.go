package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/norn-vault/norn/bench/metric"
)

// runFTS5 runs the anchor script on the original notes and scores its run file.
func runFTS5(ctx context.Context, script, notesDir, queriesPath string, judged metric.Qrels) FTS5 {
	python, err := exec.LookPath("python3")
	if err != nil {
		return FTS5{Script: script, Status: "skipped", Reason: "python3 is not installed"}
	}
	return runAnchorCmd(ctx, script, judged, python, script, "vault", notesDir, queriesPath)
}

// runBleve runs the Bleve anchor binary (../shared/bench/bleve, the same
// interface and output as the FTS5 script) on the original notes and scores its
// run file.
func runBleve(ctx context.Context, binary, notesDir, queriesPath string, judged metric.Qrels) FTS5 {
	return runAnchorCmd(ctx, binary, judged, binary, "vault", notesDir, queriesPath)
}

// runAnchorCmd runs an anchor (argv, with "--run FILE" appended), reads the
// figures it prints last as JSON and scores its run file.
func runAnchorCmd(ctx context.Context, script string, judged metric.Qrels, argv ...string) FTS5 {
	res := FTS5{Script: script}
	runFile, err := os.CreateTemp("", "norn-bench-anchor-*.jsonl")
	if err != nil {
		res.Status, res.Reason = "failed", err.Error()
		return res
	}
	runFile.Close()
	defer os.Remove(runFile.Name())
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, argv[0], append(argv[1:], "--run", runFile.Name())...)
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
	res.BuildMS, res.IndexBytes = metric.Round(*out.BuildS*1000, 3), out.IndexBytes
	res.P50MS, res.P95MS, res.Queries = *out.P50MS, out.P95MS, out.Queries
	if judged != nil {
		run, err := loadRun(runFile.Name())
		if err != nil {
			res.Status, res.Reason = "failed", err.Error()
			return res
		}
		res.Quality = quality(judged, run)
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

// FindAnchor looks for the FTS5 anchor script where the shared material keeps it:
// ../shared/bench from the current folder, else bench/ in the corpus folder or
// any folder above it (shared/corpora/X/notes finds shared/bench). "" if none.
func FindAnchor(notesDir string) string {
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
