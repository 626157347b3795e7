package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/norn-vault/norn/internal/testrerank"
	"github.com/norn-vault/norn/internal/testvault"
	"github.com/norn-vault/norn/rerank"
)

// TestCLI_SearchRerank: norn search --rerank over a randomized vault with many
// private notes, the endpoint from $NORN_RERANK_URL (and its alias
// $NORN_RERANK_ENDPOINT): no request holds any private path, title, heading or
// body line; private hits keep their places, one query and --stdin --json alike;
// off makes no call; force without an endpoint says so; a bad mode is a usage
// error.
func TestCLI_SearchRerank(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	tv := testrerank.NewVault(seed, 25)
	dir := t.TempDir()
	mustCLI(t, dir, "", "init")
	testvault.WriteFiles(t, dir, tv.Files)
	cfg := filepath.Join(dir, ".norn", "config.yaml")
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// The notes NewVault tags private are private here too.
	withTag := strings.Replace(string(b), "privacy:\n", "privacy:\n  tags: ["+testrerank.PrivateTag+"]\n", 1)
	if withTag == string(b) {
		t.Fatalf("norn init wrote no privacy section: %s", b)
	}
	if err := os.WriteFile(cfg, []byte(withTag), 0o644); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, dir, "", "commit")
	ep := testrerank.New(t, testrerank.Last)
	type result struct {
		Engine string `json:"engine"`
		Rerank *struct {
			TokensIn int `json:"tokens_in"`
		}
		Results []struct{ Path string }
	}
	searchJSON := func(vars map[string]string, stdin string, args ...string) []result {
		t.Helper()
		out, errs, code := cliEnvIn(t, dir, vars, stdin, args...)
		if code != 0 {
			t.Fatalf("norn %v: exit %d %s", args, code, errs)
		}
		var rs []result
		dec := json.NewDecoder(strings.NewReader(out))
		for dec.More() {
			var r result
			if err := dec.Decode(&r); err != nil {
				t.Fatal(err)
			}
			rs = append(rs, r)
		}
		return rs
	}
	url := map[string]string{envRerankURL: ep.URL()}
	alias := map[string]string{envRerankEndpoint: ep.URL()}
	withPrivate := 0
	for i, q := range tv.Queries {
		base := searchJSON(url, "", "search", "--json", "--literal", "--limit", "30", "--rerank", "off", q)[0]
		vars := url
		if i%2 == 1 {
			vars = alias
		}
		got := searchJSON(vars, "", "search", "--json", "--literal", "--limit", "30", "--rerank", "force", q)[0]
		if !strings.HasPrefix(got.Engine, "bm25+rerank:") || len(got.Results) != len(base.Results) {
			t.Fatalf("%q: engine %q, %d results vs %d", q, got.Engine, len(got.Results), len(base.Results))
		}
		for j, h := range base.Results {
			if tv.Private[h.Path] {
				withPrivate++
				if got.Results[j].Path != h.Path {
					t.Errorf("%q: private %s at %d moved", q, h.Path, j)
				}
			}
		}
	}
	calls := len(ep.Bodies())
	stdin := strings.Join(tv.Queries, "\n") + "\n"
	lines := searchJSON(url, stdin, "search", "--stdin", "--json", "--literal", "--limit", "30", "--rerank", "force")
	if len(lines) != len(tv.Queries) || !strings.HasPrefix(lines[0].Engine, "bm25+rerank:") {
		t.Fatalf("--stdin: %d lines, first engine %q", len(lines), lines[0].Engine)
	}
	if withPrivate == 0 || calls == 0 {
		t.Fatalf("%d private hits, %d calls: the test proves nothing", withPrivate, calls)
	}
	if leaks := testrerank.Leaks(ep.Bodies(), tv.Secrets); len(leaks) > 0 {
		t.Fatalf("private text sent (seed %d): %v", seed, leaks[:min(5, len(leaks))])
	}
	before := len(ep.Bodies())
	if r := searchJSON(url, "", "search", "--json", "--rerank", "off", tv.Queries[0])[0]; r.Engine != "bm25" || len(ep.Bodies()) != before {
		t.Fatalf("off: engine %q, %d new calls", r.Engine, len(ep.Bodies())-before)
	}
	out, errs, code := cliEnvIn(t, dir, nil, "", "search", "--rerank", "force", tv.Queries[0])
	if code != 0 || !strings.Contains(out, rerank.EngineNoEndpoint) || !strings.Contains(errs, "no rerank endpoint is configured") || !strings.Contains(errs, envRerankURL) {
		t.Fatalf("force without endpoint: exit %d\n%s\n%s", code, out, errs)
	}
	if _, errs, code := cliEnvIn(t, dir, url, "", "search", "--rerank", "always", "bloom"); code != exitUsage || !strings.Contains(errs, "auto, off or force") {
		t.Fatalf("bad mode: exit %d %q", code, errs)
	}
}
