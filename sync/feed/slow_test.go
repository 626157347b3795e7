package feed_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/sync/feed"
)

// smallReceiveBuffer is a dialer whose sockets have a tiny receive buffer, so
// that a client that never reads stalls the server's writes soon.
func smallReceiveBuffer() *websocket.Dialer {
	d := &net.Dialer{}
	return &websocket.Dialer{ReadBufferSize: 512, NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err == nil {
			err = c.(*net.TCPConn).SetReadBuffer(2048)
		}
		return c, err
	}}
}

// smallSendBuffers wraps a listener so that every connection it accepts has a
// tiny send buffer.
type smallSendBuffers struct{ net.Listener }

func (l smallSendBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		err = c.(*net.TCPConn).SetWriteBuffer(4096)
	}
	return c, err
}

// TestHub_NeverReadingClientCutOff: a client that never reads is cut off with
// code 1008 and a reason naming the last commit it was sent; a client beside it
// gets every commit; the cut-off one, resuming from the hint, ends with every
// commit exactly once.
func TestHub_NeverReadingClientCutOff(t *testing.T) {
	env := newEnv(t, nil, feed.Options{QueueSize: 8}, func(s *httptest.Server) { s.Listener = smallSendBuffers{s.Listener} })
	start := env.v.Head()
	stalled, err := env.tryDial(tokAll, feed.Query{}, smallReceiveBuffer())
	if err != nil {
		t.Fatal(err)
	}
	reader := env.dial(t, tokAll, feed.Query{})
	reader.expect(t, feed.TypeHello)
	readerDone := make(chan []repo.CommitID)
	go func() {
		var got []repo.CommitID
		defer func() { readerDone <- got }()
		f := &follower{cursor: start}
		if _, err := f.follow(reader, -1); err != nil {
			t.Errorf("reading client: %v", err)
		}
		got = f.got
	}()
	// Big commits fill the stalled client's socket buffers, then its queue.
	long := strings.Repeat("x", 200)
	for i := 0; env.hub.Stats().Evicted == 0; i++ {
		if i == 5000 {
			t.Fatal("the stalled client was never cut off")
		}
		var changes []repo.Change
		for j := range 8 {
			changes = append(changes, put(fmt.Sprintf("big/%s-%d-%d.md", long, i, j), "# B\n"))
		}
		write(t, env.v, changes...)
	}
	t.Logf("cut off after %d commits", len(oracle(t, env.v, start)))
	write(t, env.v, put("done.md", "# Done\n"))
	want := oracle(t, env.v, start)
	if got := <-readerDone; !slices.Equal(got, want) {
		t.Fatalf("the reading client got %d commits, git lists %d (first difference at %d)", len(got), len(want), firstDiff(got, want))
	}
	// The stalled client reads at last: what it was sent, then the close.
	var got []repo.CommitID
	cursor := start
	var ce *websocket.CloseError
	for {
		m, err := stalled.next()
		if errors.As(err, &ce) {
			break
		}
		if err != nil {
			t.Fatalf("stalled client: %v, want a close frame", err)
		}
		if m.Type == feed.TypeEvent {
			got = append(got, m.Commit)
			cursor = m.Commit
		}
	}
	if ce.Code != websocket.ClosePolicyViolation || ce.Text != feed.SlowReason+string(cursor) {
		t.Fatalf("closed with %d %q, want 1008 naming the last commit it was sent %s", ce.Code, ce.Text, cursor)
	}
	if len(got) >= len(want) {
		t.Fatalf("the stalled client got all %d commits: it was not cut off early", len(got))
	}
	// Resume from the hint.
	hint := repo.CommitID(strings.TrimPrefix(ce.Text, feed.SlowReason))
	again := env.dial(t, tokAll, feed.Query{Since: hint})
	again.expect(t, feed.TypeHello)
	f := &follower{cursor: hint}
	if _, err := f.follow(again, -1); err != nil {
		t.Fatal(err)
	}
	if all := append(got, f.got...); !slices.Equal(all, want) {
		t.Fatalf("cut off and resumed: %d commits, git lists %d (first difference at %d)", len(all), len(want), firstDiff(all, want))
	}
}
