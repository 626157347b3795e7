package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/norn-vault/norn/server/auth"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/norn-vault/norn/server"
)

// eofReader reads r and closes eof when r has ended.
type eofReader struct {
	r    io.Reader
	eof  chan struct{}
	once sync.Once
}

func (e *eofReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		e.once.Do(func() { close(e.eof) })
	}
	return n, err
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// gateMCP is an MCP server with one tool, gate, that answers "done" once gate is
// closed, or fails with its context's error if its request is cancelled first (or
// was by then).
// started gets a value as each call begins.
func gateMCP(gate <-chan struct{}, started chan<- struct{}) *mcpserver.MCPServer {
	s := mcpserver.NewMCPServer("norn-test", "0")
	s.AddTool(mcp.NewTool("gate", mcp.WithDescription("answers when the test says so")),
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if started != nil {
				started <- struct{}{}
			}
			select {
			case <-gate:
			case <-ctx.Done():
			}
			if err := ctx.Err(); err != nil {
				return mcp.NewToolResultError("cancelled: " + err.Error()), nil
			}
			return mcp.NewToolResultText("done"), nil
		})
	return s
}

const stdioInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}` + "\n" +
	`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"

func gateCall(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"gate","arguments":{}}}`+"\n", id)
}

// stdioAnswers parses the lines ServeStdio wrote: the text of each answer by id
// ("error: …" for a JSON-RPC error or a tool error).
func stdioAnswers(t *testing.T, out string) map[int]string {
	t.Helper()
	got := map[int]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var m struct {
			ID     *int `json:"id"`
			Result *struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
				ServerInfo json.RawMessage `json:"serverInfo"`
			} `json:"result"`
			Error *struct{ Message string } `json:"error"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("stdout holds a line that is not JSON: %q", l)
		}
		if m.ID == nil {
			continue // a notification
		}
		if _, dup := got[*m.ID]; dup {
			t.Fatalf("two answers to %d", *m.ID)
		}
		switch {
		case m.Error != nil:
			got[*m.ID] = "error: " + m.Error.Message
		case m.Result != nil && m.Result.IsError:
			got[*m.ID] = "error: " + m.Result.Content[0].Text
		case m.Result != nil && len(m.Result.Content) > 0:
			got[*m.ID] = m.Result.Content[0].Text
		case m.Result != nil && m.Result.ServerInfo != nil:
			got[*m.ID] = "initialized"
		}
	}
	return got
}

// TestServeStdio_EOFAnswersEveryRequest: the client writes its calls and closes
// stdin; every call read before the end of the input runs to completion on a live
// context and is answered, and ServeStdio then returns nil. (The calls finish only
// after stdin has ended.)
func TestServeStdio_EOFAnswersEveryRequest(t *testing.T) {
	const calls = 12
	in := stdioInit
	for i := range calls {
		in += gateCall(2 + i)
	}
	r := &eofReader{r: strings.NewReader(in), eof: make(chan struct{})}
	var out syncBuffer
	p := auth.Principal{Name: "bot", Scopes: []auth.Scope{auth.ScopeRead}}
	if err := server.ServeStdio(context.Background(), gateMCP(r.eof, nil), p, r, &out, server.StdioOptions{Grace: time.Hour}); err != nil {
		t.Fatalf("ServeStdio: %v", err)
	}
	got := stdioAnswers(t, out.String())
	if got[1] != "initialized" {
		t.Fatalf("initialize: %q", got[1])
	}
	for i := range calls {
		if a := got[2+i]; a != "done" {
			t.Errorf("call %d: %q", 2+i, a)
		}
	}
}

// TestServeStdio_StopFinishesRequests: when its context ends (SIGINT/SIGTERM in
// norn serve), ServeStdio stops reading but lets the calls it read finish on a live
// context and answers them; calls still running after the grace period are cancelled
// and answered with their error.
func TestServeStdio_StopFinishesRequests(t *testing.T) {
	for _, cutOff := range []bool{false, true} {
		gate, started := make(chan struct{}), make(chan struct{}, 1)
		inR, inW := io.Pipe()
		defer inW.Close()
		var out syncBuffer
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan error, 1)
		opts := server.StdioOptions{Grace: time.Hour}
		srv := gateMCP(gate, started)
		if cutOff {
			opts.Grace = time.Millisecond // and the gate never opens
		}
		go func() {
			done <- server.ServeStdio(ctx, srv, auth.Principal{Name: "bot"}, inR, &out, opts)
		}()
		if _, err := io.WriteString(inW, stdioInit+gateCall(2)); err != nil {
			t.Fatal(err)
		}
		<-started
		stop() // stdin stays open: the stop alone ends the server
		if !cutOff {
			close(gate)
		}
		if err := <-done; err != nil {
			t.Fatalf("ServeStdio: %v", err)
		}
		got := stdioAnswers(t, out.String())
		want := "done"
		if cutOff {
			want = "error: cancelled: context canceled"
		}
		if got[1] != "initialized" || got[2] != want {
			t.Fatalf("cut off %v: answers %v, want %q for the call", cutOff, got, want)
		}
	}
}
