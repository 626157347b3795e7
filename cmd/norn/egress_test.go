package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/rerank"
)

// TestEgress: a rerank configured from machine.yaml and the environment records
// its call in .git/norn/egress.jsonl, and norn egress shows it (filtered by
// --since) without the key.
func TestEgress(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "", "init")
	if out := mustCLI(t, dir, "", "egress"); !strings.Contains(out, "nothing sent") {
		t.Fatalf("no file yet: %q", out)
	}
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = r.Header.Get("Authorization")
		io.Copy(io.Discard, r.Body)
		content, _ := json.Marshal(`{"scores":[{"id":"b.md","score":0.9},{"id":"a.md","score":0.1}]}`)
		fmt.Fprintf(w, `{"model":"m","choices":[{"message":{"role":"assistant","content":%s}}],"usage":{"prompt_tokens":42,"completion_tokens":7}}`, content)
	}))
	defer srv.Close()
	writeMachine(t, dir, "rerank:\n  model: small\n  api_key_env: MY_KEY\n", 0o600)
	vars := map[string]string{"MY_KEY": machineSecret, envRerankEndpoint: srv.URL + "/v1"}
	m, err := loadMachine(&env{getenv: func(k string) string { return vars[k] }}, dir+"/.git")
	if err != nil {
		t.Fatal(err)
	}
	o, ok := rerankOptions(m, config.Default(), dir+"/.git", slog.New(slog.NewTextHandler(io.Discard, nil)))
	if !ok {
		t.Fatal("endpoint set, yet reranking off")
	}
	r, err := rerank.New(o)
	if err != nil {
		t.Fatal(err)
	}
	res := r.Rerank(context.Background(), rerank.Auto, "q", []rerank.Candidate{
		{ID: "a.md", Path: "a.md", Score: 2}, {ID: "b.md", Path: "b.md", Score: 1.9}})
	if res.Engine != "bm25+rerank:small" || res.Candidates[0].ID != "b.md" || auth != "Bearer "+machineSecret {
		t.Fatalf("engine %q, first %s, auth %q", res.Engine, res.Candidates[0].ID, auth)
	}
	out := decode(t, mustCLI(t, dir, "", "egress", "--json"))
	recs := out["records"].([]any)
	if len(recs) != 1 {
		t.Fatalf("records: %v", out)
	}
	rec := recs[0].(map[string]any)
	if rec["model"] != "small" || rec["outcome"] != "ok" || rec["tokens_in"].(float64) != 42 || fmt.Sprint(rec["paths"]) != "[a.md b.md]" {
		t.Fatalf("record %v", rec)
	}
	text := mustCLI(t, dir, "", "egress", "--since", "1h")
	if !strings.Contains(text, "a.md b.md") || strings.Contains(text, machineSecret) {
		t.Fatalf("text: %q", text)
	}
	future := time.Now().Add(48 * time.Hour).Format(time.DateOnly)
	if out := mustCLI(t, dir, "", "egress", "--since", future); !strings.Contains(out, "nothing sent") {
		t.Fatalf("--since tomorrow: %q", out)
	}
	if _, errs, code := cli(t, dir, "", "egress", "--since", "yesterday"); code == 0 || !strings.Contains(errs, "--since") {
		t.Fatalf("bad --since: exit %d %q", code, errs)
	}
}

// TestEgress_Malformed: a line that is not a record is invalid (exit 1, code
// invalid), naming the line; the file is left as it was.
func TestEgress_Malformed(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "", "init")
	p := egressPath(dir + "/.git")
	bad := "{\"time\":\"2026-12-01T10:00:00Z\",\"host\":\"h\",\"model\":\"m\",\"query_sha256\":\"x\",\"paths\":[],\"tokens_in\":0,\"tokens_out\":0,\"latency_ms\":0,\"outcome\":\"ok\"}\nnot a record\n"
	if err := os.WriteFile(p, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, code := cli(t, dir, "", "egress", "--json")
	m := decode(t, out)
	if code != 1 || m["code"] != "invalid" || !strings.Contains(m["error"].(string), "line 2") {
		t.Fatalf("exit %d %v", code, m)
	}
	if b, _ := os.ReadFile(p); string(b) != bad {
		t.Fatal("the egress file changed")
	}
}
