package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/sync/feed"
)

// lineWriter collects output and tells each complete line to a channel.
type lineWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	lines chan string
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	for {
		line, err := w.buf.ReadString('\n')
		if err != nil {
			w.buf.WriteString(line) // not complete yet
			return len(p), nil
		}
		w.lines <- strings.TrimSpace(line)
	}
}

// TestCLI_Watch: norn watch --json --since replays a server's commits as JSON
// events, then follows the live ones; a bad --since is a usage error.
func TestCLI_Watch(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "", "init", dir)
	start := repo.CommitID(strings.TrimSpace(git(t, dir, "rev-parse", "HEAD")))
	mustCLI(t, dir, "# A\n", "write", "a.md")
	v, err := repo.Open(context.Background(), dir, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	hub := feed.New(v, feed.Options{})
	defer hub.Close()
	srv := httptest.NewServer(feed.NewHandler(hub, feed.HandlerOptions{Authenticate: func(_ *http.Request, tok string) (feed.Access, bool) {
		return feed.Access{Principal: "me"}, tok == "secret"
	}}))
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &lineWriter{lines: make(chan string, 16)}
	var errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: out, stderr: &errb, getenv: func(string) string { return "" }}
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"watch", "--json", "--since", string(start), "--url", srv.URL, "--token", "secret"}, e)
	}()
	first := <-out.lines
	if !strings.Contains(first, `"type":"event"`) || !strings.Contains(first, `"path":"a.md"`) {
		t.Fatalf("first line %s, want the replayed write of a.md", first)
	}
	res, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "agent"}, Op: repo.OpWrite,
		Changes: []repo.Change{{Kind: repo.Put, Path: "b.md", Content: []byte("# B\n")}}})
	if err != nil {
		t.Fatal(err)
	}
	second := <-out.lines
	if !strings.Contains(second, `"commit":"`+string(res.Commit)+`"`) || !strings.Contains(second, `"path":"b.md"`) {
		t.Fatalf("second line %s, want the live write of b.md", second)
	}
	cancel()
	if c := <-code; c != 0 {
		t.Fatalf("norn watch exited %d after its context ended: %s", c, errb.String())
	}

	if _, errs, c := cli(t, dir, "", "watch", "--since", "xyz", "--url", srv.URL); c != exitUsage || !strings.Contains(errs, "since") {
		t.Fatalf("bad --since: exit %d %s, want a usage error", c, errs)
	}
	if _, errs, c := cli(t, dir, "", "watch", "--url", srv.URL, "--token", "wrong"); c == 0 || !strings.Contains(errs, "refused") {
		t.Fatalf("wrong token: exit %d %s, want a refusal", c, errs)
	}
}
