package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/server/mcp"
)

// Defaults of the HTTP server's bounds (HTTPOptions).
const (
	// DefaultHeaderTimeout bounds how long a client may take to send a request's
	// headers.
	DefaultHeaderTimeout = 10 * time.Second
	// DefaultBodyTimeout bounds how long a client may take to send a request's body,
	// from the end of its headers.
	DefaultBodyTimeout = 30 * time.Second
	// DefaultIdleTimeout bounds how long a kept-alive connection may wait for its
	// next request.
	DefaultIdleTimeout = 2 * time.Minute
	// DefaultMaxHeaderBytes caps a request's headers.
	DefaultMaxHeaderBytes = 64 << 10
	// DefaultMaxConcurrent is how many requests one principal may have running at
	// once (and, separately, how many listening streams it may hold open).
	DefaultMaxConcurrent = 16
)

// retryAfterSeconds is the Retry-After of a 429.
const retryAfterSeconds = 1

// NewServer returns the http.Server for h with h's bounds: the header timeout,
// the idle timeout and the header size (the body timeout is h's own, per request,
// so that long-lived SSE streams are never cut by a write or read timeout). It
// ends h's listening streams on Shutdown (CloseSessions).
func (h *HTTPHandler) NewServer() *http.Server {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: h.limits.header,
		IdleTimeout:       h.limits.idle,
		MaxHeaderBytes:    h.limits.maxHeader,
		ErrorLog:          slog.NewLogLogger(h.log.Handler(), slog.LevelDebug),
	}
	srv.RegisterOnShutdown(h.CloseSessions)
	return srv
}

// httpLimits are an HTTPHandler's bounds, defaults applied.
type httpLimits struct {
	header, body, idle time.Duration
	maxHeader          int
	maxConcurrent      int
}

func limitsOf(opts HTTPOptions) httpLimits {
	or := func(d, def time.Duration) time.Duration {
		if d <= 0 {
			return def
		}
		return d
	}
	l := httpLimits{header: or(opts.HeaderTimeout, DefaultHeaderTimeout), body: or(opts.BodyTimeout, DefaultBodyTimeout),
		idle: or(opts.IdleTimeout, DefaultIdleTimeout), maxHeader: opts.MaxHeaderBytes, maxConcurrent: opts.MaxConcurrent}
	if l.maxHeader <= 0 {
		l.maxHeader = DefaultMaxHeaderBytes
	}
	if l.maxConcurrent <= 0 {
		l.maxConcurrent = DefaultMaxConcurrent
	}
	return l
}

// admit takes a slot of p's bound for r (429 when none is free) and, for a POST,
// reads its body (readBody) and checks its JSON-RPC envelope (mcp.InvalidRequest),
// putting the body back in r for mcp-go. It answers a refusal itself and returns
// false then; otherwise release gives the slot back once the request is done.
func (h *HTTPHandler) admit(w http.ResponseWriter, r *http.Request, p auth.Principal) (release func(), ok bool) {
	kind := slotCall
	if r.Method == http.MethodGet {
		kind = slotStream
	}
	if !h.slots.acquire(p.Name, kind) {
		h.tooMany(w, p, kind)
		return nil, false
	}
	release = func() { h.slots.release(p.Name, kind) } // the kind held when it is called
	if r.Body == nil || r.Method != http.MethodPost {
		return release, true
	}
	b, ok := h.readBody(w, r)
	if !ok {
		release()
		return nil, false
	}
	if json.Valid(b) { // mcp-go answers a body that is not JSON
		if e := mcp.InvalidRequest(b); e != nil {
			writeJSONRPCError(w, e)
			release()
			return nil, false
		}
		if isListen(b) { // a stream, not a call: it trades its call slot for a stream slot
			h.slots.release(p.Name, kind)
			if kind = slotNone; !h.slots.acquire(p.Name, slotStream) {
				h.tooMany(w, p, slotStream)
				return nil, false
			}
			kind = slotStream
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	return release, true
}

// readBody reads r's body, up to h.maxBody bytes, within h's body timeout (a read
// deadline on the connection, lifted once the body is in; left in place after a
// failure, so that the server does not wait for the rest of the body either). It answers the refusal
// itself — 413 body_too_large, 408 body_timeout (the connection is then closed),
// 400 bad_request — and returns false then.
func (h *HTTPHandler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if r.ContentLength > h.maxBody {
		h.tooLarge(w)
		return nil, false
	}
	rc := http.NewResponseController(w)
	deadline := rc.SetReadDeadline(time.Now().Add(h.limits.body)) == nil
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.maxBody))
	var mbe *http.MaxBytesError
	switch {
	case err == nil:
		if deadline {
			rc.SetReadDeadline(time.Time{}) // the answer may take as long as it takes
		}
		return b, true
	case errors.As(err, &mbe):
		h.tooLarge(w)
	case errors.Is(err, os.ErrDeadlineExceeded):
		h.log.Info("request refused: body too slow", "remote", r.RemoteAddr, "after", h.limits.body)
		w.Header().Set("Connection", "close")
		writeError(w, http.StatusRequestTimeout, "body_timeout", fmt.Sprintf("the request body did not arrive within %s", h.limits.body))
	default:
		writeError(w, http.StatusBadRequest, "bad_request", "reading the request body: "+err.Error())
	}
	return nil, false
}

// slotKind is what a request holds a slot of: a call (a POST or DELETE answered when
// it is done) or a stream (a listening GET, subscriptions/listen), which may stay
// open for hours and so is bounded apart, never taking a call's slot.
type slotKind int

const (
	slotNone slotKind = iota // holds no slot
	slotCall
	slotStream
)

// principalSlots bounds the requests each principal has running at once, calls
// and streams apart.
type principalSlots struct {
	max  int
	mu   sync.Mutex
	used map[slotKey]int
}

type slotKey struct {
	name string
	kind slotKind
}

// acquire takes a slot of kind for name, or reports false when all max are taken.
func (s *principalSlots) acquire(name string, kind slotKind) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := slotKey{name, kind}
	if s.used[k] >= s.max {
		return false
	}
	s.used[k]++
	return true
}

// release gives back a slot acquire took; of slotNone, nothing.
func (s *principalSlots) release(name string, kind slotKind) {
	if kind == slotNone {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := slotKey{name, kind}
	if s.used[k]--; s.used[k] <= 0 {
		delete(s.used, k)
	}
}

// tooMany answers 429 with Retry-After: the principal has max requests of kind
// running.
func (h *HTTPHandler) tooMany(w http.ResponseWriter, p auth.Principal, kind slotKind) {
	what := "requests"
	if kind == slotStream {
		what = "listening streams"
	}
	h.log.Info("request refused: too many at once", "principal", p.Name, "kind", what, "max", h.slots.max)
	w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds))
	writeError(w, http.StatusTooManyRequests, "too_many_requests",
		fmt.Sprintf("%s already has %d %s running, the most this server allows at once: retry when one has finished", p.Name, h.slots.max, what))
}

// isListen reports whether msg (valid JSON) is a subscriptions/listen request,
// which holds its POST open as a listening stream.
func isListen(msg []byte) bool {
	var m struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(msg, &m) == nil && m.Method == string(mcpgo.MethodSubscriptionsListen)
}
