package server_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/server"
)

// safety bounds how long a test waits for the server to close a connection: far
// above the timeouts under test, only there so a broken server fails instead of
// hanging.
const safety = 20 * time.Second

// closedByServer reads conn until the server closes it and returns what it sent;
// it fails if the server keeps it open for the whole safety bound.
func closedByServer(t *testing.T, conn net.Conn) string {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(safety))
	b, err := io.ReadAll(conn)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the server kept a slow connection open for %s (sent %q)", safety, b)
	}
	return string(b)
}

func dialTCP(t *testing.T, url string) net.Conn {
	t.Helper()
	host := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), server.MCPPath)
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// TestHTTPHandler_SlowHeaders: a client that sends half its headers and stops is
// disconnected once HeaderTimeout has passed; nothing runs.
func TestHTTPHandler_SlowHeaders(t *testing.T) {
	var n atomic.Int64
	tok, _ := withTokens(t, "a")
	url, _ := testmcp.ServeMCPHTTP(t, countMCP(&n), server.HTTPOptions{Tokens: tok, HeaderTimeout: 100 * time.Millisecond})
	conn := dialTCP(t, url)
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n", server.MCPPath)
	closedByServer(t, conn)
	if n.Load() != 0 {
		t.Fatalf("the tool ran %d times", n.Load())
	}
}

// TestHTTPHandler_SlowBody: a token holder that sends its headers and part of its
// body, then stops, is answered 408 body_timeout once BodyTimeout has passed and
// disconnected; nothing runs.
func TestHTTPHandler_SlowBody(t *testing.T) {
	var n atomic.Int64
	tok, secret := withTokens(t, "a")
	url, _ := testmcp.ServeMCPHTTP(t, countMCP(&n), server.HTTPOptions{Tokens: tok, BodyTimeout: 100 * time.Millisecond})
	conn := dialTCP(t, url)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{}}}`
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
		"Authorization: Bearer %s\r\nMcp-Protocol-Version: 2025-11-25\r\nContent-Length: %d\r\n\r\n%s", server.MCPPath, secret["a"], len(body), body[:20])
	got := closedByServer(t, conn)
	if !strings.HasPrefix(got, "HTTP/1.1 408 ") || !strings.Contains(got, `"body_timeout"`) {
		t.Fatalf("want a 408 body_timeout, got %q", got)
	}
	if n.Load() != 0 {
		t.Fatalf("the tool ran %d times", n.Load())
	}
}

// TestHTTPHandler_PerPrincipalBound: with MaxConcurrent N, a principal with N
// calls running gets 429 too_many_requests with Retry-After for one more, while
// another principal's call still runs, and the first principal may still open a
// listening stream (streams are counted apart). Once its calls end, it may call
// again.
func TestHTTPHandler_PerPrincipalBound(t *testing.T) {
	const max = 2
	gate, started := make(chan struct{}), make(chan struct{}, 2*max)
	tok, secret := withTokens(t, "a", "b")
	url, _ := testmcp.ServeMCPHTTP(t, testmcp.GateMCP(gate, started), server.HTTPOptions{Tokens: tok, MaxConcurrent: max})
	session := func(who string) map[string]string {
		resp, body := testmcp.RawPost(t, url, testmcp.Bearer(secret[who]), testmcp.InitializeBody)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("initialize %s: %d %s", who, resp.StatusCode, body)
		}
		h := testmcp.Bearer(secret[who])
		h["Mcp-Session-Id"] = resp.Header.Get("Mcp-Session-Id")
		h["Mcp-Protocol-Version"] = "2025-11-25"
		return h
	}
	a, b := session("a"), session("b")
	call := func(hdr map[string]string, id int) (*http.Response, error) {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(strings.TrimSpace(testmcp.GateCall(id))))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		return http.DefaultClient.Do(req)
	}
	var wg sync.WaitGroup
	statuses := make(chan int, 2*max+1)
	run := func(hdr map[string]string, id int) {
		wg.Go(func() {
			resp, err := call(hdr, id)
			if err != nil {
				statuses <- -1
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			statuses <- resp.StatusCode
		})
	}
	for i := range max {
		run(a, 10+i)
	}
	for range max {
		<-started
	}
	over := make(chan *http.Response, 1)
	go func() { // a server without the bound would hold this call at the gate
		resp, err := call(a, 20)
		if err != nil {
			t.Error(err)
		}
		over <- resp
	}()
	var resp *http.Response
	select {
	case resp = <-over:
	case <-time.After(safety):
		close(gate)
		t.Fatalf("a's call over the bound was not refused")
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || testmcp.ErrorCode(t, string(body)) != "too_many_requests" || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("a's call over the bound: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	// b is not held back by a's bound.
	run(b, 30)
	<-started
	// a may still listen: streams have their own bound.
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range a {
		req.Header.Set(k, v)
	}
	listen, err := http.DefaultClient.Do(req)
	if err != nil || listen.StatusCode != http.StatusOK {
		t.Fatalf("a's listening stream: %v %v", listen, err)
	}
	listen.Body.Close()
	close(gate)
	wg.Wait()
	close(statuses)
	for s := range statuses {
		if s != http.StatusOK {
			t.Fatalf("a call within the bounds answered %d", s)
		}
	}
	if r, err := call(a, 40); err != nil || r.StatusCode != http.StatusOK {
		t.Fatalf("a's call once the others ended: %v %v", r, err)
	} else {
		bufio.NewReader(r.Body).WriteTo(io.Discard)
		r.Body.Close()
	}
}
