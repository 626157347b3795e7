package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/norn-vault/norn/server"
	"github.com/norn-vault/norn/server/auth"
)

func newVault(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	mustCLI(t, dir, "", "init")
	return dir
}

func tokensFile(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ".git", "norn", "tokens"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

func TestToken_AddListRevoke(t *testing.T) {
	dir := newVault(t)
	add := decode(t, mustCLI(t, dir, "", "token", "add", "claude", "--json"))
	tok, _ := add["token"].(string)
	if add["name"] != "claude" || !strings.HasPrefix(tok, auth.TokenPrefix) || len(add["scopes"].([]any)) != 2 {
		t.Fatalf("add: %v", add)
	}
	// Human output: the token alone on stdout, the hint on stderr.
	out, errs, code := cli(t, dir, "", "token", "add", "codex", "--scopes", "read")
	if code != 0 || !regexp.MustCompile(`^norn_[A-Za-z0-9_-]{43}\n$`).MatchString(out) || !strings.Contains(errs, "Authorization: Bearer") {
		t.Fatalf("add codex: exit %d %q %q", code, out, errs)
	}
	codexTok := strings.TrimSpace(out)
	disk := tokensFile(t, dir)
	if strings.Contains(disk, tok) || strings.Contains(disk, codexTok) {
		t.Fatal("a token is stored in clear")
	}
	if st := git(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("tokens show up in git status: %s", st)
	}

	// Bad input: the right exit code, nothing written.
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"token", "add", "claude"}, exitConflict},
		{[]string{"token", "add", "a<b>"}, exitUsage},
		{[]string{"token", "add", strings.Repeat("n", 65)}, exitUsage},
		{[]string{"token", "add", "x", "--scopes", "read,root"}, exitUsage},
		{[]string{"token", "add", "x", "--scopes", ","}, exitUsage},
		{[]string{"token", "add"}, exitUsage},
		{[]string{"token", "add", "x", "y"}, exitUsage},
		{[]string{"token"}, exitUsage},
		{[]string{"token", "delete", "claude"}, exitUsage},
		{[]string{"token", "list", "--scopes", "read"}, exitUsage},
		{[]string{"token", "revoke"}, exitUsage},
		{[]string{"token", "revoke", "nobody"}, exitError},
	} {
		if _, errs, code := cli(t, dir, "", c.args...); code != c.code {
			t.Errorf("%v: exit %d, want %d (%s)", c.args, code, c.code, errs)
		}
	}
	if out, _, _ := cli(t, dir, "", "token", "revoke", "nobody", "--json"); decode(t, out)["code"] != "not_found" {
		t.Errorf("revoke unknown: %s", out)
	}
	if got := tokensFile(t, dir); got != disk {
		t.Fatal("a refused command changed the tokens file")
	}

	list := decode(t, mustCLI(t, dir, "", "token", "list", "--json"))
	raw, _ := json.Marshal(list)
	if n := len(list["tokens"].([]any)); n != 2 || strings.Contains(string(raw), "sha256") || strings.Contains(string(raw), tok) {
		t.Fatalf("list: %s", raw)
	}
	if out := mustCLI(t, dir, "", "token", "list"); !strings.Contains(out, "claude") || !strings.Contains(out, "read,write") || strings.Contains(out, "norn_") {
		t.Fatalf("list: %s", out)
	}
	mustCLI(t, dir, "", "token", "revoke", "claude")
	list = decode(t, mustCLI(t, dir, "", "token", "list", "--json"))
	if ts := list["tokens"].([]any); len(ts) != 1 || ts[0].(map[string]any)["name"] != "codex" {
		t.Fatalf("after revoke: %v", list)
	}
	mustCLI(t, dir, "", "token", "revoke", "codex")
	if out := decode(t, mustCLI(t, dir, "", "token", "list", "--json")); len(out["tokens"].([]any)) != 0 {
		t.Fatalf("empty list: %v", out)
	}
}

func TestServe_RefusesBadStarts(t *testing.T) {
	dir := newVault(t)
	for _, args := range [][]string{
		{"serve"},
		{"serve", "--stdio", "--http", "127.0.0.1:0"},
		{"serve", "--http", "127.0.0.1:0", "--agent", "x"},
		{"serve", "--http", "127.0.0.1:0", "--maintenance"},
		{"serve", "--stdio", "--allow-unauthenticated-loopback"},
		{"serve", "--stdio", "--agent", "a<b>"},
		// An explicitly empty --agent (`--agent "$AGENT"`, AGENT unset) is never the owner.
		{"serve", "--stdio", "--agent", ""},
		{"serve", "--stdio", "--agent=", "--maintenance"},
		{"serve", "--stdio", "--agent", " bot"},
		{"serve", "--stdio", "--http", ""},
		{"serve", "--http", ""},
		{"serve", "--http", "7777"},
		{"serve", "--stdio", "extra"},
	} {
		if _, errs, code := cli(t, dir, "", args...); code != exitUsage {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errs)
		}
	}
	// Fail closed: no tokens, no server; the flag only on loopback.
	_, errs, code := cli(t, dir, "", "serve", "--http", "127.0.0.1:0")
	if code != exitError || !strings.Contains(errs, "norn token add NAME") {
		t.Fatalf("no tokens: exit %d %s", code, errs)
	}
	mustCLI(t, dir, "", "token", "add", "a")
	if _, errs, code := cli(t, dir, "", "serve", "--http", "0.0.0.0:0", "--allow-unauthenticated-loopback"); code != exitError || !strings.Contains(errs, "loopback") {
		t.Fatalf("flag off loopback: exit %d %s", code, errs)
	}
}

// TestServeHTTP_GracefulShutdown: when told to stop, serveHTTP stops accepting at
// once, lets the request in flight finish and returns nil.
func TestServeHTTP_GracefulShutdown(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	s := mcpserver.NewMCPServer("t", "0")
	s.AddTool(mcp.NewTool("slow", mcp.WithReadOnlyHintAnnotation(true), mcp.WithDestructiveHintAnnotation(false), mcp.WithOpenWorldHintAnnotation(false)),
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			close(started)
			<-release
			return mcp.NewToolResultText("finished"), nil
		})
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	h, err := server.NewHTTPHandler(s, server.HTTPOptions{Addr: addr, AllowUnauthenticatedLoopback: true, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	began := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		srv := h.NewServer()
		srv.RegisterOnShutdown(func() { close(began) })
		done <- serveHTTP(ctx, ln, srv, time.Minute, quiet)
	}()

	c, err := client.NewStreamableHttpClient("http://" + addr + server.MCPPath)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "t", Version: "0"}
	if _, err := c.Initialize(context.Background(), init); err != nil {
		t.Fatal(err)
	}
	type result struct {
		res *mcp.CallToolResult
		err error
	}
	got := make(chan result, 1)
	go func() {
		req := mcp.CallToolRequest{}
		req.Params.Name = "slow"
		r, err := c.CallTool(context.Background(), req)
		got <- result{r, err}
	}()
	<-started
	stop() // what SIGTERM does through main's signal.NotifyContext
	<-began
	if conn, err := net.Dial("tcp", addr); err == nil {
		conn.Close()
		t.Fatal("still accepting connections after shutdown began")
	}
	close(release)
	r := <-got
	if r.err != nil || len(r.res.Content) != 1 || r.res.Content[0].(mcp.TextContent).Text != "finished" {
		t.Fatalf("in-flight call: %+v %v", r.res, r.err)
	}
	if err := <-done; err != nil {
		t.Fatalf("serveHTTP: %v", err)
	}
}

// testCommit is the commit buildNorn stamps in, as make build does.
const testCommit = "0123456789abcdef0123456789abcdef01234567"

// buildNorn builds the real binary.
func buildNorn(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "norn")
	cmd := exec.Command("go", "build", "-ldflags", "-X main.commitStamp="+testCommit, "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestServe_Binary runs the real norn: MCP over its stdin/stdout with the real client,
// stdout holding nothing but protocol; and over HTTP with a token, stopped by SIGTERM.
func TestServe_Binary(t *testing.T) {
	bin := buildNorn(t)
	dir := newVault(t)
	env := append(os.Environ(), "NORN_VAULT="+dir)

	t.Run("stdio", func(t *testing.T) {
		c, err := client.NewStdioMCPClient(bin, env, "serve", "--stdio")
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		init := mcp.InitializeRequest{}
		init.Params.ClientInfo = mcp.Implementation{Name: "t", Version: "0"}
		res, err := c.Initialize(context.Background(), init)
		if err != nil {
			t.Fatal(err)
		}
		if res.ServerInfo.Name == "" {
			t.Fatalf("initialize: %+v", res)
		}
		// serverInfo.version is what norn version prints, the commit in it.
		out, err := exec.Command(bin, "version", "--json").Output()
		if err != nil {
			t.Fatal(err)
		}
		var bi buildInfo
		if err := json.Unmarshal(out, &bi); err != nil || bi.Commit != testCommit || !strings.Contains(bi.Version, testCommit[:12]) {
			t.Fatalf("norn version --json: %s (%v)", out, err)
		}
		if res.ServerInfo.Version != bi.Version {
			t.Fatalf("serverInfo.version %q, norn version %q", res.ServerInfo.Version, bi.Version)
		}
		tools, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
		if err != nil || len(tools.Tools) == 0 {
			t.Fatalf("tools/list: %+v %v", tools, err)
		}
	})

	t.Run("stdio stdout is protocol only", func(t *testing.T) {
		cmd := exec.Command(bin, "-v", "serve", "--stdio", "--agent", "bot")
		cmd.Env = env
		cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
			`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("norn serve --stdio: %v\n%s", err, stderr.String())
		}
		ids := map[float64]bool{}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			var m struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      float64         `json:"id"`
				Result  json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal([]byte(line), &m); err != nil || m.JSONRPC != "2.0" {
				t.Fatalf("stdout holds a line that is not JSON-RPC: %q", line)
			}
			if m.Result != nil {
				ids[m.ID] = true
			}
		}
		if !ids[1] || !ids[2] {
			t.Fatalf("answers missing: %v\n%s", ids, out)
		}
	})

	// A client that writes its calls and closes stdin at once (python's
	// subprocess.communicate) gets every call answered and done, then a clean exit.
	t.Run("stdio answers every call read before stdin closed", func(t *testing.T) {
		dir := newVault(t) // its own: the notes written here would be orphans below
		const runs = 5
		for i := range runs {
			cmd := exec.Command(bin, "serve", "--stdio", "--agent", "eofbot")
			cmd.Env = append(os.Environ(), "NORN_VAULT="+dir)
			cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}` + "\n" +
				`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
				fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_note","arguments":{"path":"eof/n%d.md","content":"# EOF %d\n\nWritten as stdin closed.\n"}}}`, i, i) + "\n")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("run %d: norn serve --stdio: %v\n%s", i, err, stderr.String())
			}
			answered := false
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				var m struct {
					ID     int             `json:"id"`
					Result json.RawMessage `json:"result"`
					Error  json.RawMessage `json:"error"`
				}
				if err := json.Unmarshal([]byte(line), &m); err != nil {
					t.Fatalf("run %d: stdout holds a line that is not JSON: %q", i, line)
				}
				if m.ID == 2 {
					var r struct{ IsError bool }
					json.Unmarshal(m.Result, &r)
					if m.Result == nil || r.IsError {
						t.Fatalf("run %d: write_note answered %s%s", i, m.Result, m.Error)
					}
					answered = true
				}
			}
			if !answered {
				t.Fatalf("run %d: write_note got no answer:\n%s", i, out)
			}
		}
		if n := strings.TrimSpace(git(t, dir, "rev-list", "--count", "--author=eofbot", "HEAD")); n != fmt.Sprint(runs) {
			t.Fatalf("%s commits by eofbot, want %d", n, runs)
		}
		if st := git(t, dir, "status", "--porcelain"); st != "" {
			t.Fatalf("status: %s", st)
		}
	})

	t.Run("http and SIGTERM", func(t *testing.T) {
		tok := decode(t, mustCLI(t, dir, "", "token", "add", "agent", "--json"))["token"].(string)
		cmd := exec.Command(bin, "serve", "--http", "127.0.0.1:0")
		cmd.Env = env
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Process.Kill()
		lines := make(chan string, 100)
		go func() {
			sc := bufio.NewScanner(stderr)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		var url string
		var seen []string
		for url == "" {
			line, ok := <-lines
			if !ok {
				t.Fatalf("norn serve ended before printing its URL:\n%s", strings.Join(seen, "\n"))
			}
			seen = append(seen, line)
			url = regexp.MustCompile(`http://127\.0\.0\.1:\d+/mcp`).FindString(line)
		}
		c, err := client.NewStreamableHttpClient(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + tok}))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		init := mcp.InitializeRequest{}
		init.Params.ClientInfo = mcp.Implementation{Name: "t", Version: "0"}
		if _, err := c.Initialize(context.Background(), init); err != nil {
			t.Fatal(err)
		}
		if tools, err := c.ListTools(context.Background(), mcp.ListToolsRequest{}); err != nil || len(tools.Tools) == 0 {
			t.Fatalf("tools/list: %+v %v", tools, err)
		}
		c.Close()
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		for line := range lines {
			seen = append(seen, line)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("norn serve after SIGTERM: %v\n%s", err, strings.Join(seen, "\n"))
		}
		// The vault was closed cleanly: the CLI opens it and its index again.
		mustCLI(t, dir, "", "search", "anything")
		if st := git(t, dir, "status", "--porcelain"); st != "" {
			t.Fatalf("status after serve: %s", st)
		}
	})

	// The server holds the index; one-shot commands beside it ask it (server.AskLocal)
	// instead of scanning, and get its classified failures.
	t.Run("one-shot commands ask the running server", func(t *testing.T) {
		mustCLI(t, dir, "# Bloom filters\n\nA bloom filter hashes items into bits. [[Kiwi]]\n", "write", "bloom.md")
		mustCLI(t, dir, "# Kiwi\n\nA fruit.\n", "write", "kiwi.md")
		cmd := exec.Command(bin, "serve", "--stdio")
		cmd.Env = env
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Process.Kill()
		advert := filepath.Join(dir, ".git", "norn", "serve.json")
		for i := 0; ; i++ {
			if _, err := os.Stat(advert); err == nil {
				break
			} else if i == 200 {
				t.Fatalf("no local endpoint advertised: %v", err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		r := decode(t, mustCLI(t, dir, "", "search", "bloom", "--json"))
		if r["engine"] != "bm25" || r["via"] != fmt.Sprintf("norn serve (pid %d)", cmd.Process.Pid) ||
			len(r["results"].([]any)) != 1 {
			t.Fatalf("search beside the server: %v", r)
		}
		if out := mustCLI(t, dir, "", "links", "kiwi.md"); !strings.Contains(out, "bloom.md:3") {
			t.Fatalf("links beside the server:\n%s", out)
		}
		// Every read-only command the server can answer, answered as it would be here.
		nb := decode(t, mustCLI(t, dir, "", "--json", "neighborhood", "bloom.md"))
		if nb["center"] != "bloom.md" || len(nb["nodes"].([]any)) != 2 {
			t.Fatalf("neighborhood beside the server: %v", nb)
		}
		if hubs := decode(t, mustCLI(t, dir, "", "--json", "hubs", "--limit", "1")); len(hubs["nodes"].([]any)) != 1 {
			t.Fatalf("hubs beside the server: %v", hubs)
		}
		if out := mustCLI(t, dir, "", "path", "bloom.md", "kiwi.md"); !strings.HasPrefix(out, "1 hop") {
			t.Fatalf("path beside the server:\n%s", out)
		}
		if orph := decode(t, mustCLI(t, dir, "", "--json", "orphans")); orph["total"] != float64(0) {
			t.Fatalf("orphans beside the server: %v", orph)
		}
		out, _, code := cli(t, dir, "", "links", "nope.md", "--json")
		if code != exitError || decode(t, out)["code"] != "not_found" {
			t.Fatalf("links of an unknown note beside the server: exit %d %s", code, out)
		}
		if _, _, code := cli(t, dir, "", "search", `"unclosed`); code != exitUsage {
			t.Fatalf("malformed query beside the server: exit %d", code)
		}
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Fatalf("norn serve --stdio: %v", err)
		}
		if _, err := os.Stat(advert); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("advertisement left behind: %v", err)
		}
		if r := decode(t, mustCLI(t, dir, "", "search", "bloom", "--json")); r["engine"] != "bm25" || r["via"] != nil {
			t.Fatalf("search after the server: %v", r)
		}
	})
}
