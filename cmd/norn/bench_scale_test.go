package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/norn-vault/norn/bench"
)

// sharedBench is the shared bench folder seen from this package's folder.
var sharedBench = filepath.Join("..", "..", "..", "shared", "bench")

// TestBenchScale_Tiny runs the whole scale suite on a 200-note vault with the real
// binary, the real git and the FTS5 anchor: every measure is filled in, the
// catch-up finds the hand commit's notes, the server it started has exited and its
// working copy is gone, and the generated vault stays cached.
func TestBenchScale_Tiny(t *testing.T) {
	if !regularFile(filepath.Join(sharedBench, "scale_vault.py")) {
		t.Skip("no ../shared/bench/scale_vault.py")
	}
	bin := buildNorn(t)
	cache := t.TempDir()
	args := []string{"bench", "scale", "--sizes", "200", "--shared", sharedBench, "--cache", cache, "--norn", bin,
		"--warm", "0", "--idle", "1s", "--rounds", "1", "--searches", "20", "--catchup-rounds", "1", "--json"}
	out, errs, code := benchCLI(t, nil, args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	var rep bench.ScaleReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(rep.Sizes) != 1 {
		t.Fatalf("sizes: %+v", rep.Sizes)
	}
	s := rep.Sizes[0]
	if s.Notes != 200 || s.Cached || s.CatchUpNotes != 100 || len(s.CatchUpFound) != 1 || s.CatchUpFound[0] != 100 {
		t.Errorf("size: notes %d cached %v catch-up %d notes, found %v", s.Notes, s.Cached, s.CatchUpNotes, s.CatchUpFound)
	}
	if len(s.CatchUpCPUMS) != 1 {
		t.Errorf("catch-up CPU: %v", s.CatchUpCPUMS)
	}
	if s.Search.Count == 0 || s.Search.Errors != 0 || s.Search.NotBM25 != 0 || s.Searches != 20 {
		t.Errorf("searches: %+v, %d through the server", s.Search, s.Searches)
	}
	for name, f := range map[string]float64{"version": s.Version.MinMS, "git version": s.GitVersion.MinMS, "read": s.Read.MinMS,
		"git show": s.GitShow.MinMS, "write": s.Write.MinMS, "git write": s.GitWrite.MinMS, "rebuild": s.RebuildS,
		"rebuild rss": s.RebuildRSSMB, "idle rss": s.RSSIdleMB, "rss after searches": s.RSSSearchedMB,
		"hand edit": s.HandEditMS, "catch-up": s.CatchUpMedianMS} {
		if f <= 0 {
			t.Errorf("%s: %v, want a figure", name, f)
		}
	}
	if s.FTS5.Status != "ok" && !strings.Contains(s.FTS5.Reason, "python3") {
		t.Errorf("fts5: %+v", s.FTS5)
	}
	if err := syscall.Kill(s.ServerPID, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("server %d still there: kill 0: %v", s.ServerPID, err)
	}
	base := filepath.Dir(s.Vault)
	if _, err := os.Stat(filepath.Join(base, "work")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("working copy left behind: %v", err)
	}

	var table bytes.Buffer
	printScale(&table, &rep)
	lines := strings.Split(table.String(), "\n")
	rows := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "| ") {
			rows++
		}
	}
	if rows != len(scaleRows)+1 || !strings.Contains(table.String(), "| measure | 200 notes | anchor | ratio |") {
		t.Errorf("table:\n%s", table.String())
	}

	// --from prints the same table from the saved report.
	saved := filepath.Join(t.TempDir(), "scale.json")
	if err := os.WriteFile(saved, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	if again, errs, code := benchCLI(t, nil, "bench", "scale", "--from", saved); code != 0 || again != table.String() {
		t.Errorf("--from: exit %d\n%s%s\nwant\n%s", code, again, errs, table.String())
	}

	// The vault stays cached for the next run (keyed by size and generator).
	if !regularFile(filepath.Join(base, "ready")) || !regularFile(filepath.Join(base, "ki.queries.jsonl")) {
		t.Errorf("no cached vault in %s", base)
	}
}

// TestBenchScale_BadInput: bad flags are usage errors and create nothing; without
// the generator the suite says it skipped.
func TestBenchScale_BadInput(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "cache")
	for _, args := range [][]string{
		{"--sizes", "ten"},
		{"--sizes", "5"},
		{"--sizes", "1000,"},
		{"--rounds", "0"},
		{"--searches", "0"},
		{"--idle", "0s"},
		{"--warm", "-1s"},
		{"--catchup-rounds", "10"},
		{"extra"},
		{"--from", filepath.Join(cache, "missing.json")},
		{"--from", "bench_scale_test.go"},
	} {
		out, errs, code := benchCLI(t, nil, append([]string{"bench", "scale", "--cache", cache}, args...)...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want %d\n%s%s", args, code, exitUsage, out, errs)
		}
	}
	if _, err := os.Stat(cache); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("bad input created the cache: %v", err)
	}
	out, errs, code := benchCLI(t, nil, "bench", "scale", "--cache", cache, "--shared", t.TempDir())
	if code != 0 || !strings.Contains(errs, "skipped") {
		t.Errorf("no generator: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(cache); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a skipped run created the cache: %v", err)
	}
}
