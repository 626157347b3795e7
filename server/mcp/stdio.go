package mcp

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/norn-vault/norn/server/auth"
)

// DefaultStdioGrace bounds how long ServeStdio lets the requests it has read finish
// once it stops reading, unless StdioOptions say otherwise.
const DefaultStdioGrace = 10 * time.Second

// stdioWorkers is how many requests ServeStdio serves at once; a client sending more
// waits (its lines stay unread). subscriptions/listen, which holds its request open,
// does not count.
const stdioWorkers = 16

// StdioOptions configure ServeStdio.
type StdioOptions struct {
	// Logger is for the transport's own events (default slog.Default()). Nothing is
	// ever logged to the protocol stream.
	Logger *slog.Logger
	// Grace bounds how long the requests already read may run once ServeStdio stops
	// reading (at the end of the input, or when its context is done); those still
	// running then are cancelled and answered with their error (default
	// DefaultStdioGrace).
	Grace time.Duration
}

// ServeStdio serves mcp over in/out (newline-delimited JSON-RPC) for one client whose
// principal is p, until in ends or ctx is done. Either way it stops reading, ends
// the subscriptions/listen streams, and answers every request it has read: they run
// to completion (for up to opts.Grace, then they are cancelled and answer with
// their error) with their answers written to out; then it returns nil. Nothing but
// protocol is written to out.
//
// Requests run concurrently (at most stdioWorkers at once, besides
// subscriptions/listen); notifications from the client are handled in order as they
// are read. When ServeStdio returns because ctx is done, a read of in that was under
// way may still be blocked: it ends when in does (for os.Stdin, at exit).
func ServeStdio(ctx context.Context, srv *mcpserver.MCPServer, p auth.Principal, in io.Reader, out io.Writer, opts StdioOptions) error {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	grace := opts.Grace
	if grace <= 0 {
		grace = DefaultStdioGrace
	}
	sess, err := newStdioSession()
	if err != nil {
		return fmt.Errorf("serve stdio: %w", err)
	}
	// Requests run on a context of their own: a stop (ctx) does not cancel them, the
	// grace period's end does. subscriptions/listen runs on one that ends as soon as
	// reading stops.
	base := auth.WithPrincipal(context.WithoutCancel(ctx), p)
	if err := srv.RegisterSession(base, sess); err != nil {
		return fmt.Errorf("serve stdio: %w", err)
	}
	defer srv.UnregisterSession(base, sess.SessionID())
	base = srv.WithContext(base, sess)
	reqCtx, cancelRequests := context.WithCancel(base)
	defer cancelRequests()
	listenCtx, cancelListens := context.WithCancel(reqCtx)
	defer cancelListens()

	s := &stdioServer{mcp: srv, out: out, log: log, slots: make(chan struct{}, stdioWorkers), stopped: ctx.Done()}
	pumpDone := make(chan struct{})
	stopPump := make(chan struct{})
	go func() { defer close(pumpDone); s.pump(sess, stopPump) }()

	lines, stopReading, readDone := readLines(in)
	var readErr error
	stopped := false
loop:
	for {
		select {
		case <-ctx.Done():
			log.Info("stdio: stopping: finishing the requests read", "grace", grace)
			stopped = true
			break loop
		case l := <-lines:
			if l.err != nil {
				if !errors.Is(l.err, io.EOF) {
					readErr = l.err
				}
				break loop
			}
			s.handle(reqCtx, listenCtx, l.line)
		}
	}
	close(stopReading)
	if !stopped {
		<-readDone // it has sent its last value and returns
	}

	// Drain: listen streams end now, the other requests get the grace period.
	cancelListens()
	finished := make(chan struct{})
	go func() { s.requests.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(grace):
		log.Warn("stdio: requests cut off", "after", grace)
		cancelRequests()
		<-finished
	}
	close(stopPump)
	<-pumpDone
	if readErr != nil {
		return fmt.Errorf("serve stdio: read: %w", readErr)
	}
	return nil
}

// stdioServer is one ServeStdio run.
type stdioServer struct {
	mcp     *mcpserver.MCPServer
	log     *slog.Logger
	slots   chan struct{}   // one per request running, besides listens
	stopped <-chan struct{} // ServeStdio's ctx is done: a request read runs without waiting for a slot

	writeMu  sync.Mutex
	out      io.Writer
	writeErr bool // a write to out failed (logged once)

	requests sync.WaitGroup
}

// stdioMessage is what ServeStdio looks at in a message to route it.
type stdioMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// handle routes one line: a message whose envelope is not one JSON-RPC message is
// answered Invalid Request (InvalidRequest); a request runs on its own goroutine, a
// notification is handled here, in order; a response from the client is dropped
// (this server sends no requests to its client).
func (s *stdioServer) handle(reqCtx, listenCtx context.Context, line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if !json.Valid(line) {
		s.write(mcpgo.NewJSONRPCError(mcpgo.NewRequestId(nil), mcpgo.PARSE_ERROR, "Parse error", nil))
		return
	}
	if e := InvalidRequest(line); e != nil {
		s.write(e)
		return
	}
	var m stdioMessage
	isObject := json.Unmarshal(line, &m) == nil
	hasID := len(m.ID) > 0 && !bytes.Equal(m.ID, []byte("null"))
	msg := json.RawMessage(line)
	switch {
	case isObject && m.Method == "" && hasID:
		s.log.Debug("stdio: dropped a response from the client", "id", string(m.ID))
	case isObject && hasID:
		ctx, slot := reqCtx, false
		if m.Method == string(mcpgo.MethodSubscriptionsListen) {
			ctx = listenCtx
		} else {
			select {
			case s.slots <- struct{}{}:
				slot = true
			case <-s.stopped:
			}
		}
		s.requests.Go(func() {
			if slot {
				defer func() { <-s.slots }()
			}
			s.serve(ctx, m.ID, msg)
		})
	default:
		s.serve(reqCtx, m.ID, msg)
	}
}

// serve handles one message and writes its answer, if it has one. A panicking
// handler answers an internal error instead of ending the process.
func (s *stdioServer) serve(ctx context.Context, id json.RawMessage, msg json.RawMessage) {
	var res mcpgo.JSONRPCMessage
	func() {
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("stdio: handler panicked", "panic", r)
				if len(id) > 0 {
					var v any
					json.Unmarshal(id, &v)
					res = mcpgo.NewJSONRPCError(mcpgo.NewRequestId(v), mcpgo.INTERNAL_ERROR, fmt.Sprintf("internal panic: %v", r), nil)
				}
			}
		}()
		res = s.mcp.HandleMessage(ctx, msg)
	}()
	if res != nil {
		s.write(res)
	}
}

// write sends one message as a line. After a failed write (the client is gone) the
// rest are dropped quietly: requests still run to completion.
func (s *stdioServer) write(msg any) {
	b, err := json.Marshal(msg)
	if err != nil {
		s.log.Error("stdio: answer does not encode", "err", err)
		return
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if s.writeErr {
		return
	}
	if _, err := s.out.Write(append(b, '\n')); err != nil {
		s.writeErr = true
		s.log.Warn("stdio: cannot write to the client; answers are dropped from now on", "err", err)
	}
}

// pump writes the session's notifications until stop, then those still queued.
func (s *stdioServer) pump(sess *stdioSession, stop <-chan struct{}) {
	for {
		select {
		case n := <-sess.notifications:
			s.write(n)
		case <-stop:
			for {
				select {
				case n := <-sess.notifications:
					s.write(n)
				default:
					return
				}
			}
		}
	}
}

// line is one line read, or the error that ended reading.
type line struct {
	line []byte
	err  error
}

// readLines reads in line by line on a goroutine until in ends (the last value then
// carries the error, io.EOF at the end) or stop is closed. A final line without a
// newline is a line too. done is closed when the goroutine returns; after stop, that
// is when a read under way returns.
func readLines(in io.Reader) (lines <-chan line, stop chan struct{}, done <-chan struct{}) {
	ch := make(chan line)
	stop = make(chan struct{})
	d := make(chan struct{})
	go func() {
		defer close(d)
		r := bufio.NewReader(in)
		for {
			b, err := r.ReadBytes('\n')
			if len(b) > 0 {
				select {
				case ch <- line{line: b}:
				case <-stop:
					return
				}
			}
			if err != nil {
				select {
				case ch <- line{err: err}:
				case <-stop:
				}
				return
			}
		}
	}()
	return ch, stop, d
}

// stdioSession is the one client session of a ServeStdio run.
type stdioSession struct {
	id            string
	notifications chan mcpgo.JSONRPCNotification
	initialized   atomic.Bool
	logLevel      atomic.Value // mcpgo.LoggingLevel
	clientInfo    atomic.Value // mcpgo.Implementation
	clientCaps    atomic.Value // mcpgo.ClientCapabilities
	version       atomic.Value // string
}

func newStdioSession() (*stdioSession, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	return &stdioSession{id: "stdio-" + hex.EncodeToString(b[:]), notifications: make(chan mcpgo.JSONRPCNotification, 100)}, nil
}

var (
	_ mcpserver.SessionWithLogging         = (*stdioSession)(nil)
	_ mcpserver.SessionWithClientInfo      = (*stdioSession)(nil)
	_ mcpserver.SessionWithProtocolVersion = (*stdioSession)(nil)
)

func (s *stdioSession) SessionID() string { return s.id }

func (s *stdioSession) NotificationChannel() chan<- mcpgo.JSONRPCNotification {
	return s.notifications
}

func (s *stdioSession) Initialize()       { s.initialized.Store(true) }
func (s *stdioSession) Initialized() bool { return s.initialized.Load() }

func (s *stdioSession) SetLogLevel(l mcpgo.LoggingLevel) { s.logLevel.Store(l) }

func (s *stdioSession) GetLogLevel() mcpgo.LoggingLevel {
	if l, ok := s.logLevel.Load().(mcpgo.LoggingLevel); ok {
		return l
	}
	return mcpgo.LoggingLevelError
}

func (s *stdioSession) SetClientInfo(i mcpgo.Implementation) { s.clientInfo.Store(i) }

func (s *stdioSession) GetClientInfo() mcpgo.Implementation {
	i, _ := s.clientInfo.Load().(mcpgo.Implementation)
	return i
}

func (s *stdioSession) SetClientCapabilities(c mcpgo.ClientCapabilities) { s.clientCaps.Store(c) }

func (s *stdioSession) GetClientCapabilities() mcpgo.ClientCapabilities {
	c, _ := s.clientCaps.Load().(mcpgo.ClientCapabilities)
	return c
}

func (s *stdioSession) SetProtocolVersion(v string) { s.version.Store(v) }

func (s *stdioSession) ProtocolVersion() string {
	v, _ := s.version.Load().(string)
	return v
}
