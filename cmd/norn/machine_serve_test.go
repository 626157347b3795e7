package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/norn-vault/norn/internal/testrerank"
)

// TestServe_MachineSettings runs `norn serve` with no flags: it serves HTTP where
// .git/norn/machine.yaml says, tokenless on loopback as that file allows, and its
// log warns, once, of the rerank endpoint a pulled .norn/config.yaml names (and
// ignores), without the value; its searches rerank with the endpoint the file
// names.
func TestServe_MachineSettings(t *testing.T) {
	dir := newVault(t)
	mustCLI(t, dir, "# Bloom filter one\n\nBloom filter text.\n", "write", "n/one.md")
	mustCLI(t, dir, "# Bloom filter two\n\nBloom filter text.\n", "write", "n/two.md")
	ep := testrerank.New(t, testrerank.Last)
	writeMachine(t, dir, "serve:\n  http: 127.0.0.1:0\n  allow_unauthenticated_loopback: true\nrerank:\n  endpoint: "+ep.URL()+"\n", 0o600)
	if err := os.WriteFile(filepath.Join(dir, ".norn", "config.yaml"), []byte("rerank:\n  threshold: 0.8\n  endpoint: https://elsewhere.example.com/v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "commit", "-qam", "pulled settings")

	pr, pw := io.Pipe()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: pw, getenv: func(k string) string {
		if k == "NORN_VAULT" {
			return dir
		}
		return ""
	}}
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"serve"}, e)
		pw.Close()
	}()
	lines := make(chan string, 1000)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	const warning = "committed config names a per-machine setting"
	var url string
	var seen []string
	warned := false
	deadline := time.After(60 * time.Second) // a hang guard, not a timing assertion
	for url == "" || !warned {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("norn serve ended early (exit %d):\n%s", <-code, strings.Join(seen, "\n"))
			}
			seen = append(seen, line)
			if u := regexp.MustCompile(`http://127\.0\.0\.1:\d+/mcp`).FindString(line); u != "" {
				url = u
			}
			warned = warned || strings.Contains(line, warning)
		case <-deadline:
			t.Fatalf("no URL or no warning:\n%s", strings.Join(seen, "\n"))
		}
	}
	c, err := client.NewStreamableHttpClient(url) // no token
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "t", Version: "0"}
	if _, err := c.Initialize(context.Background(), init); err != nil {
		t.Fatalf("tokenless initialize, allowed by machine.yaml: %v", err)
	}
	// The server searches with the reranker machine.yaml names.
	call := mcp.CallToolRequest{}
	call.Params.Name, call.Params.Arguments = "search", map[string]any{"query": "bloom filter", "rerank": "force"}
	res, err := c.CallTool(context.Background(), call)
	if err != nil || res.IsError {
		t.Fatalf("search: %v %v", err, res)
	}
	if b, _ := json.Marshal(res.StructuredContent); !strings.Contains(string(b), `"engine":"bm25+rerank:served"`) || len(ep.Bodies()) != 1 {
		t.Fatalf("search through norn serve: %s, %d calls", b, len(ep.Bodies()))
	}
	c.Close()
	stop()
	for line := range lines {
		seen = append(seen, line)
	}
	if c := <-code; c != exitOK {
		t.Fatalf("norn serve: exit %d\n%s", c, strings.Join(seen, "\n"))
	}
	log := strings.Join(seen, "\n")
	if n := strings.Count(log, warning); n != 1 || !strings.Contains(log, "key=rerank.endpoint") || strings.Contains(log, "elsewhere") {
		t.Errorf("want one warning naming rerank.endpoint without its value; got %d:\n%s", n, log)
	}
}
