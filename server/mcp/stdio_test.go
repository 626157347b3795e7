package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/server/mcp"
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
	in := testmcp.StdioInit
	for i := range calls {
		in += testmcp.GateCall(2 + i)
	}
	r := &eofReader{r: strings.NewReader(in), eof: make(chan struct{})}
	var out testmcp.SyncBuffer
	p := auth.Principal{Name: "bot", Scopes: []auth.Scope{auth.ScopeRead}}
	if err := mcp.ServeStdio(context.Background(), testmcp.GateMCP(r.eof, nil), p, r, &out, mcp.StdioOptions{Grace: time.Hour}); err != nil {
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
		var out testmcp.SyncBuffer
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan error, 1)
		opts := mcp.StdioOptions{Grace: time.Hour}
		srv := testmcp.GateMCP(gate, started)
		if cutOff {
			opts.Grace = time.Millisecond // and the gate never opens
		}
		go func() {
			done <- mcp.ServeStdio(ctx, srv, auth.Principal{Name: "bot"}, inR, &out, opts)
		}()
		if _, err := io.WriteString(inW, testmcp.StdioInit+testmcp.GateCall(2)); err != nil {
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
