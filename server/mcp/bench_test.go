package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/server/mcp"
	"github.com/norn-vault/norn/vault"
)

// BenchmarkMCP measures what MCP costs on top of the library: the search and
// read_note tools on the cpp-docs corpus (9,751 notes), one op one call, cycling
// through the 300 known-item queries (search: literal, limit 10) and the 300 notes
// they are about (read_note: by path, default 16 KiB budget; 5.8 KB on average, 21
// of them over the budget and answered with their outline; read_note_name: those
// of them outside the root whose file name is their own, by "[[file name]]"). Each
// is measured four ways, all as the same principal (a token with `norn token
// add`'s default scopes, read and write):
//
//   - direct: the library calls the tool's handler makes (search: Indexer.Search
//     with the request the handler sends for a caller without the private scope;
//     read_note: Vault.Read and note.Parse, after graph.Index.Resolve by name), no
//     MCP at all;
//   - inprocess: the tool through mcp-go's in-process client (JSON-RPC encoding,
//     dispatch, the handler; no network), the server built as norn serve builds
//     it, without output-schema validation;
//   - http: the tool through the real streamable HTTP client against an
//     http.Server on 127.0.0.1 with bearer-token auth from a real tokens file, in
//     the protocol the client negotiates by default (2026-07-28, stateless);
//   - http-session: the same with the initialize handshake (2025-11-25), so every
//     call carries the Mcp-Session-Id the server binds to the principal.
//
// Besides ns/op each reports the p50 and p95 of the per-call latency, each MCP path
// its p50 overhead over direct and over inprocess (when those ran in the same run),
// and each HTTP path the bytes the server wrote and the TCP connections it accepted
// per call (mcp-go's client stops reading at the end of the JSON value; with a
// Content-Length the transport still sees the body end and reuses the connection).
// The vault (copy, git import, index rebuild: 15–25 s)
// is built once per run of BenchmarkMCP and shared by its sub-benchmarks, -count
// included; go test without -bench never builds it.
func BenchmarkMCP(b *testing.B) {
	e := newMCPBench(b)
	p50 := map[string]time.Duration{}
	for _, tool := range []struct {
		name   string
		args   func(i int) map[string]any
		direct func(ctx context.Context, i int) error
	}{
		{"search", e.searchArgs, e.searchDirect},
		{"read_note", e.readArgs, e.readDirect},
		{"read_note_name", e.readNameArgs, e.readNameDirect},
	} {
		name := strings.TrimSuffix(tool.name, "_name") // the tool called
		b.Run(tool.name+"/direct", func(b *testing.B) {
			p50[tool.name+"/direct"] = measure(b, func(i int) error { return tool.direct(e.ctx, i) })
		})
		for _, c := range e.clients {
			b.Run(tool.name+"/"+c.name, func(b *testing.B) {
				conns, sent := e.conns.Load(), e.sent.Load()
				p := measure(b, func(i int) error { return c.call(name, tool.args(i)) })
				p50[tool.name+"/"+c.name] = p
				if c.http {
					b.ReportMetric(float64(e.conns.Load()-conns)/float64(b.N), "conns/op")
					b.ReportMetric(float64(e.sent.Load()-sent)/float64(b.N), "resp-B/op")
				}
				for _, base := range []string{"direct", "inprocess"} {
					if q, ok := p50[tool.name+"/"+base]; ok && base != c.name {
						b.ReportMetric(ms(p-q), "p50-over-"+base+"-ms")
					}
				}
			})
		}
	}
}

// measure runs call once per op (with the op's index) and reports the p50 and p95
// of the calls' latencies, returning the p50.
func measure(b *testing.B, call func(i int) error) time.Duration {
	b.ReportAllocs()
	var lat []time.Duration
	i := 0
	for b.Loop() {
		t0 := time.Now()
		err := call(i)
		lat = append(lat, time.Since(t0))
		if err != nil {
			b.Fatalf("call %d: %v", i, err)
		}
		i++
	}
	slices.Sort(lat)
	p50, p95 := lat[len(lat)/2], lat[len(lat)*95/100]
	b.ReportMetric(ms(p50), "p50-ms")
	b.ReportMetric(ms(p95), "p95-ms")
	return p50
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// mcpBench is the cpp-docs vault with its MCP clients (in-process, HTTP), the
// known-item queries and the notes they are about.
type mcpBench struct {
	ctx     context.Context
	v       *vault.Vault
	queries []string
	paths   []note.Path
	named   []note.Path // the notes of paths not at the root whose file name no other note has
	clients []*mcpBenchClient
	conns   atomic.Int64 // TCP connections the HTTP server accepted
	sent    atomic.Int64 // bytes the HTTP server wrote (headers and bodies)
}

// countingListener counts the connections it accepts and the bytes written to them.
type countingListener struct {
	net.Listener
	conns, sent *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.conns.Add(1)
		c = countingConn{c, l.sent}
	}
	return c, err
}

type countingConn struct {
	net.Conn
	sent *atomic.Int64
}

func (c countingConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.sent.Add(int64(n))
	return n, err
}

// mcpBenchClient calls tools through one MCP client.
type mcpBenchClient struct {
	name string
	c    *client.Client
	ctx  context.Context
	http bool // through the HTTP server
}

// call calls a tool and fails on a protocol error or a tool error.
func (c *mcpBenchClient) call(tool string, args map[string]any) error {
	res, err := c.c.CallTool(c.ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: tool, Arguments: args}})
	if err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("%s %v: tool error %v", tool, args, res.StructuredContent)
	}
	return nil
}

func newMCPBench(b *testing.B) *mcpBench {
	b.Helper()
	root := filepath.Join("..", "..", "..", "shared", "corpora", "md-cpp-docs", "notes")
	queries := filepath.Join("..", "..", "..", "shared", "bench", "queries", "cpp-docs.queries.jsonl")
	qrels := filepath.Join("..", "..", "..", "shared", "bench", "queries", "cpp-docs.qrels.tsv")
	for _, p := range []string{root, queries, qrels} {
		if _, err := os.Stat(p); err != nil {
			b.Skipf("cpp-docs corpus or its query set not found at %s (see ../shared/corpora/README.md, relative to the repository): %v", p, err)
		}
	}
	start := time.Now()
	e := &mcpBench{ctx: context.Background(), queries: readBenchQueries(b, queries), paths: readBenchTargets(b, qrels)}
	ctx := e.ctx
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))

	// Import with the git CLI (Norn adopts the repository as it is); vault.Open
	// rebuilds the index from HEAD.
	dir := b.TempDir()
	benchRun(b, "", "cp", "-R", root+string(filepath.Separator)+".", dir)
	benchRun(b, dir, "git", "init", "-q", "-b", "main")
	benchRun(b, dir, "git", "add", "-A")
	benchRun(b, dir, "git", "-c", "user.name=o", "-c", "user.email=o@x", "commit", "-q", "-m", "import")
	v, err := vault.Open(ctx, dir, vault.Options{Repo: repo.Options{Owner: repo.Author{Name: "o", Email: "o@x"}, Logger: quiet}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { v.Close() })
	if commit, problem := v.Index.Status(); commit != string(v.Head()) || problem != "" {
		b.Fatalf("index at %q (%s), HEAD at %s", commit, problem, v.Head())
	}
	e.v = v
	for _, p := range e.paths {
		if v.Revision(p) == "" {
			b.Fatalf("qrels name %s, which is not in the vault", p)
		}
	}
	e.named = uniqueNames(b, ctx, v, e.paths)
	imported := time.Since(start)

	// One token in the vault's real tokens file; the in-process client calls as the
	// principal it authenticates to.
	tokens := auth.OpenTokens(auth.TokensPath(v.GitDir()), quiet)
	secret, err := tokens.Add("bench-agent", []auth.Scope{auth.ScopeRead, auth.ScopeWrite}) // norn token add's default
	if err != nil {
		b.Fatal(err)
	}
	principal, ok := tokens.Authenticate(secret)
	if !ok {
		b.Fatal("the new token does not authenticate")
	}
	// As norn serve runs it: without output-schema validation (the tests validate).
	mcpSrv := mcp.NewMCPServer(v, mcp.MCPOptions{Version: "bench", Logger: quiet, SkipOutputValidation: true})

	in, err := client.NewInProcessClient(mcpSrv)
	if err != nil {
		b.Fatal(err)
	}
	inCtx := auth.WithPrincipal(ctx, principal)
	if err := in.Start(inCtx); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { in.Close() })
	benchInitialize(b, inCtx, in)
	e.clients = append(e.clients, &mcpBenchClient{name: "inprocess", c: in, ctx: inCtx})

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	h, err := server.NewHTTPHandler(mcpSrv, server.HTTPOptions{Addr: ln.Addr().String(), Tokens: tokens, Logger: quiet})
	if err != nil {
		ln.Close()
		b.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	srv.RegisterOnShutdown(h.CloseSessions)
	done := make(chan struct{})
	go func() { srv.Serve(countingListener{ln, &e.conns, &e.sent}); close(done) }()
	b.Cleanup(func() { srv.Shutdown(context.Background()); <-done }) // after the clients close
	url := "http://" + ln.Addr().String() + server.MCPPath
	auth := transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + secret})
	for _, legacy := range []bool{false, true} {
		var c *client.Client
		if legacy {
			tr, err := transport.NewStreamableHTTP(url, auth)
			if err != nil {
				b.Fatal(err)
			}
			c = client.NewClient(tr, client.WithProtocolVersion(mcpgo.LATEST_LEGACY_PROTOCOL_VERSION))
		} else if c, err = client.NewStreamableHttpClient(url, auth); err != nil {
			b.Fatal(err)
		}
		if err := c.Start(ctx); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { c.Close() })
		benchInitialize(b, ctx, c)
		name := "http"
		if legacy {
			name = "http-session"
			if c.GetSessionId() == "" {
				b.Fatal("the initialize handshake gave no session id")
			}
		} else if c.GetSessionId() != "" {
			b.Fatalf("the default protocol (stateless) has a session %q", c.GetSessionId())
		}
		e.clients = append(e.clients, &mcpBenchClient{name: name, c: c, ctx: ctx, http: true})
	}

	// Warm up every path once and check the answers are what the benchmark means to
	// time: the first search of a caller without the private scope reads every note
	// once (the privacy set), the first call of a tool compiles its schemas.
	for _, c := range e.clients {
		var sr mcp.SearchResult
		benchDecode(b, c, "search", e.searchArgs(0), &sr)
		if sr.Engine != vault.EngineBM25 || sr.IndexStale || len(sr.Hits) == 0 {
			b.Fatalf("%s: search %q: engine %s, stale %v, %d hits", c.name, e.queries[0], sr.Engine, sr.IndexStale, len(sr.Hits))
		}
		var rn mcp.ReadNoteResult
		benchDecode(b, c, "read_note", e.readArgs(0), &rn)
		if rn.Path != e.paths[0] || rn.Revision != v.Revision(e.paths[0]) {
			b.Fatalf("%s: read_note %s: got %s at %s", c.name, e.paths[0], rn.Path, rn.Revision)
		}
		for i := range e.named {
			var rn mcp.ReadNoteResult
			benchDecode(b, c, "read_note", e.readNameArgs(i), &rn)
			if rn.Path != e.named[i] || rn.ResolvedFrom == "" {
				b.Fatalf("%s: read_note %v: got %s (resolved from %q)", c.name, e.readNameArgs(i), rn.Path, rn.ResolvedFrom)
			}
			if c.name != "inprocess" {
				break // one is enough over HTTP
			}
		}
	}
	b.Logf("cpp-docs vault: %d queries, %d target notes (%d by name); import and index %.1f s, setup %.1f s",
		len(e.queries), len(e.paths), len(e.named), imported.Seconds(), time.Since(start).Seconds())
	return e
}

// uniqueNames returns the notes of targets, in order and each once, that are not
// at the root and whose file name (case-insensitive) no other note at HEAD has: read
// by "[[name]]", each resolves by the link rules' file-name step.
func uniqueNames(b *testing.B, ctx context.Context, v *vault.Vault, targets []note.Path) []note.Path {
	b.Helper()
	files, _, err := v.Files(ctx, "")
	if err != nil {
		b.Fatal(err)
	}
	stems := map[string]int{}
	for _, f := range files {
		if strings.HasSuffix(string(f.Path), ".md") {
			stems[strings.ToLower(note.Stem(f.Path))]++
		}
	}
	var out []note.Path
	seen := map[note.Path]bool{}
	for _, p := range targets {
		if !seen[p] && p.Folder() != "" && stems[strings.ToLower(note.Stem(p))] == 1 {
			seen[p] = true
			out = append(out, p)
		}
	}
	if len(out) < 50 {
		b.Fatalf("only %d target notes have a file name of their own", len(out))
	}
	return out
}

func (e *mcpBench) readNameArgs(i int) map[string]any {
	return map[string]any{"path": "[[" + note.Stem(e.named[i%len(e.named)]) + "]]"}
}

// readNameDirect resolves the name with the index's resolver (brought up to HEAD),
// then reads and parses the note, as read_note by name does.
func (e *mcpBench) readNameDirect(ctx context.Context, i int) error {
	p := e.named[i%len(e.named)]
	ix, err := e.v.Index.Graph(ctx)
	if err != nil {
		return err
	}
	r, err := ix.Resolve("\x00/\x00", note.Link{Kind: note.LinkWiki, Target: note.Stem(p)})
	if err != nil {
		return err
	}
	if r.Target != p {
		return fmt.Errorf("%s resolves to %s (%s)", note.Stem(p), r.Target, r.Status)
	}
	return e.readAt(ctx, p)
}

func (e *mcpBench) searchArgs(i int) map[string]any {
	return map[string]any{"query": e.queries[i%len(e.queries)], "literal": true}
}

func (e *mcpBench) readArgs(i int) map[string]any {
	return map[string]any{"path": string(e.paths[i%len(e.paths)])}
}

// searchDirect sends the index the request the search tool sends for a caller
// without the private scope and a first page of 10: 11 hits (one more says whether
// there is a next page) of the public view.
func (e *mcpBench) searchDirect(ctx context.Context, i int) error {
	_, err := e.v.Index.Search(ctx, vault.SearchRequest{Query: e.queries[i%len(e.queries)], Limit: 11, Literal: true, HidePrivate: true})
	return err
}

// readDirect reads a note at HEAD and parses it, as read_note does.
func (e *mcpBench) readDirect(ctx context.Context, i int) error {
	return e.readAt(ctx, e.paths[i%len(e.paths)])
}

func (e *mcpBench) readAt(ctx context.Context, p note.Path) error {
	blob, err := e.v.Read(ctx, p, "")
	if err != nil {
		return err
	}
	note.Parse(p, blob.Content) // a note that does not parse is read all the same
	return nil
}

func benchInitialize(b *testing.B, ctx context.Context, c *client.Client) {
	b.Helper()
	req := mcpgo.InitializeRequest{}
	req.Params.ClientInfo = mcpgo.Implementation{Name: "norn-bench", Version: "0"}
	if _, err := c.Initialize(ctx, req); err != nil {
		b.Fatal(err)
	}
}

// benchDecode calls a tool that must succeed and decodes its structured content.
func benchDecode(b *testing.B, c *mcpBenchClient, tool string, args map[string]any, out any) {
	b.Helper()
	res, err := c.c.CallTool(c.ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: tool, Arguments: args}})
	if err != nil {
		b.Fatalf("%s: %s: %v", c.name, tool, err)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		b.Fatal(err)
	}
	if res.IsError {
		b.Fatalf("%s: %s %v: %s", c.name, tool, args, raw)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		b.Fatalf("%s: %s: decode %s: %v", c.name, tool, raw, err)
	}
}

// benchRun runs a command (cp, git) in dir.
func benchRun(b *testing.B, dir string, name string, args ...string) {
	b.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}

// readBenchQueries reads the texts of a known-item query set (JSON lines {"id", "text"}).
func readBenchQueries(b *testing.B, path string) []string {
	b.Helper()
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var q struct{ Text string }
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil || q.Text == "" {
			b.Fatalf("%s: bad line %q: %v", path, sc.Text(), err)
		}
		out = append(out, q.Text)
	}
	if err := sc.Err(); err != nil || len(out) == 0 {
		b.Fatalf("%s: %d queries: %v", path, len(out), err)
	}
	return out
}

// readBenchTargets reads the notes a qrels file names (query, path, relevance), in
// file order.
func readBenchTargets(b *testing.B, path string) []note.Path {
	b.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var out []note.Path
	for line := range strings.Lines(string(raw)) {
		f := strings.Split(strings.TrimSpace(line), "\t")
		if len(f) != 3 {
			continue
		}
		out = append(out, note.Path(f[1]))
	}
	if len(out) == 0 {
		b.Fatalf("%s: no targets", path)
	}
	return out
}
