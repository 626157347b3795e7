package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/server/web"
	"github.com/norn-vault/norn/sync/feed"
)

// MCPPath is where the HTTP server answers MCP (streamable HTTP).
const MCPPath = "/mcp"

// DefaultMaxBodyBytes caps a request body (413 beyond it) unless HTTPOptions says
// otherwise.
const DefaultMaxBodyBytes = 4 << 20

// LocalAgentName is the principal of requests without a token when the HTTP server
// runs with AllowUnauthenticatedLoopback: an agent (not the owner) with the read and
// write scopes.
const LocalAgentName = "local-agent"

// sessionHeader is the streamable HTTP session header.
const sessionHeader = "Mcp-Session-Id"

// allowedMethods are the HTTP methods of MCPPath (the Allow header of a 405).
const allowedMethods = "GET, HEAD, POST, DELETE"

// HTTPOptions configure NewHTTPHandler.
type HTTPOptions struct {
	// Addr is the address the server listens on (host:port). It decides whether the
	// server is on loopback, which the Host check and AllowUnauthenticatedLoopback
	// depend on.
	Addr string
	// Tokens are the bearer tokens accepted. Nil holds none.
	Tokens *auth.Tokens
	// AllowUnauthenticatedLoopback serves requests that carry no Authorization header
	// as the LocalAgentName principal (scopes read, write). Only on a loopback Addr:
	// NewHTTPHandler refuses it anywhere else. A request that does carry a token is
	// still checked against Tokens.
	AllowUnauthenticatedLoopback bool
	// MaxBodyBytes caps a request body (default DefaultMaxBodyBytes).
	MaxBodyBytes int64
	// HeaderTimeout bounds how long a client may take to send a request's headers
	// (default DefaultHeaderTimeout); BodyTimeout, its body once the headers are in
	// (default DefaultBodyTimeout: 408 body_timeout, and the connection is closed);
	// IdleTimeout, how long a kept-alive connection waits for its next request
	// (default DefaultIdleTimeout). No timeout cuts a response: listening streams
	// stay open. HeaderTimeout and IdleTimeout apply through NewServer.
	HeaderTimeout, BodyTimeout, IdleTimeout time.Duration
	// MaxHeaderBytes caps a request's headers (default DefaultMaxHeaderBytes;
	// through NewServer).
	MaxHeaderBytes int
	// MaxConcurrent is how many requests one principal may have running at once
	// (default DefaultMaxConcurrent); one more is answered 429 too_many_requests
	// with Retry-After. Listening streams (a GET, subscriptions/listen) are counted
	// apart, against the same number, so they never take a call's place.
	MaxConcurrent int
	// Logger is for the transport's own events (default slog.Default()). Tokens are
	// never logged.
	Logger *slog.Logger
}

// HTTPHandler serves an MCP server over streamable HTTP at MCPPath with bearer-token
// authentication. Checks run in this order, each answered with a JSON body
// {"error", "message"}:
//
//  1. Host (only when bound to loopback: localhost, 127.0.0.1, ::1 or the bound host)
//     and Origin (when present: a loopback origin on loopback, else the request's own
//     host) — 403 forbidden_host / forbidden_origin, against DNS rebinding;
//  2. the path — 404 for anything but MCPPath; the method — 405 for anything but
//     GET, HEAD, POST and DELETE;
//  3. the bearer token — 401 with WWW-Authenticate: Bearer realm="norn";
//  4. the principal's bound on requests at once — 429 too_many_requests with
//     Retry-After (HTTPOptions.MaxConcurrent; listening streams counted apart);
//  5. the body: its size — 413; its pace — 408 body_timeout; a body that is valid
//     JSON but not one JSON-RPC message (a batch, a scalar, an id that is not a
//     string or a number, a request with id null) — 400 with a JSON-RPC Invalid
//     Request error (-32600, id null), and nothing runs (mcp.InvalidRequest);
//  6. the session: an Mcp-Session-Id belongs to the token whose initialize created
//     it; another principal using it gets 403 session_forbidden, an id the server did
//     not hand out (or whose token was revoked) 404 unknown_session (a client
//     re-initializes on 404); under the handshake protocols, a GET or DELETE
//     without one is 400 missing_session, as a POST other than initialize is.
//
// The refusals of mcp-go's handler (a missing session, a wrong Content-Type, …),
// plain text there, are sent as JSON too (refusalWriter); its JSON-RPC errors go
// through as they are.
//
// A revoked token's open streams (a listening GET, an SSE answer) are closed: each
// checks the tokens file before every message and every revokeCheckInterval, and
// every request checks them all, so nothing more reaches them.
//
// Tool handlers find the caller with PrincipalFrom(ctx).
type HTTPHandler struct {
	mcp       *mcpserver.StreamableHTTPServer
	tokens    *auth.Tokens
	log       *slog.Logger
	loopback  bool
	host      string // bound host, lowercased, without brackets
	allowAnon bool
	maxBody   int64
	limits    httpLimits
	slots     *principalSlots
	feed      http.Handler // the change feed (MountFeed), or nil
	web       *web.Handler // the web explorer (MountWeb), or nil

	mu       sync.Mutex
	sessions map[string]binding   // session id → who created it
	streams  map[*stream]struct{} // open SSE responses of token holders
	checked  uint64               // the tokens' generation sessions and streams were last checked at
}

// binding is who created a session: a principal, by the token it called with.
type binding struct {
	name string
	key  auth.TokenKey
}

// revokeCheckInterval is how often an open SSE stream checks that its token is still
// in the tokens file, so that a revoke ends a stream on which nothing is sent. (A
// stream checks before each event it sends too, and every request checks them all.)
const revokeCheckInterval = time.Second

// NewHTTPHandler wraps mcp in the streamable HTTP transport (stateful sessions) with
// authentication. It fails closed: without any token in opts.Tokens it refuses
// (ErrNoTokens) unless opts.AllowUnauthenticatedLoopback is set and opts.Addr is a
// loopback address; that flag on any other address is refused too (repo.ErrInvalid),
// and so is a tokens file that does not parse.
func NewHTTPHandler(mcp *mcpserver.MCPServer, opts HTTPOptions) (*HTTPHandler, error) {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	host, _, err := net.SplitHostPort(opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("%w: listen address %q: %v", repo.ErrInvalid, opts.Addr, err)
	}
	host = strings.ToLower(strings.Trim(host, "[]"))
	loopback := isLoopbackName(host)
	if opts.AllowUnauthenticatedLoopback && !loopback {
		return nil, fmt.Errorf("%w: unauthenticated access is only allowed on a loopback address (127.0.0.1, ::1, localhost), not %q", repo.ErrInvalid, opts.Addr)
	}
	n := 0
	if opts.Tokens != nil {
		list, err := opts.Tokens.List()
		if err != nil {
			return nil, err
		}
		n = len(list)
	}
	if n == 0 && !opts.AllowUnauthenticatedLoopback {
		path := "the tokens file"
		if opts.Tokens != nil {
			path = opts.Tokens.Path()
		}
		return nil, fmt.Errorf("%w in %s: refusing to serve HTTP without authentication; create one with `norn token add NAME`"+
			" (or, on a loopback address only, pass --allow-unauthenticated-loopback)", auth.ErrNoTokens, path)
	}
	maxBody := opts.MaxBodyBytes
	if maxBody <= 0 {
		maxBody = DefaultMaxBodyBytes
	}
	limits := limitsOf(opts)
	h := &HTTPHandler{tokens: opts.Tokens, log: log, loopback: loopback, host: host,
		allowAnon: opts.AllowUnauthenticatedLoopback, maxBody: maxBody, limits: limits,
		slots:    &principalSlots{max: limits.maxConcurrent, used: map[slotKey]int{}},
		sessions: map[string]binding{}, streams: map[*stream]struct{}{}}
	h.mcp = mcpserver.NewStreamableHTTPServer(mcp,
		mcpserver.WithEndpointPath(MCPPath),
		mcpserver.WithStateful(true),
		mcpserver.WithStreamableHTTPLogger(log),
		mcpserver.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
			if p, ok := auth.PrincipalFrom(r.Context()); ok {
				return auth.WithPrincipal(ctx, p)
			}
			return ctx
		}))
	return h, nil
}

// CloseSessions ends the long-lived listening streams (GET) so that an
// http.Server.Shutdown can finish; register it with http.Server.RegisterOnShutdown.
func (h *HTTPHandler) CloseSessions() { h.mcp.CloseSessions(context.Background()) }

// ServeHTTP implements http.Handler.
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.checkHost(w, r) {
		return
	}
	if r.URL.Path == feed.Path && h.feed != nil {
		h.feed.ServeHTTP(w, r)
		return
	}
	if h.web != nil && web.Owns(r.URL.Path) {
		h.serveWeb(w, r)
		return
	}
	if r.URL.Path != MCPPath {
		writeError(w, http.StatusNotFound, "not_found", "MCP is served at "+MCPPath)
		return
	}
	switch r.Method {
	case http.MethodPost, http.MethodGet, http.MethodDelete, http.MethodHead:
	default:
		w.Header().Set("Allow", allowedMethods)
		writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", fmt.Sprintf("%s is not a method of the MCP endpoint: use %s", r.Method, allowedMethods))
		return
	}
	p, key, ok := h.authenticate(w, r)
	h.dropRevoked() // any request, refused or not, notices a revoke
	if !ok {
		return
	}
	release, ok := h.admit(w, r, p)
	if !ok {
		return
	}
	defer release()
	sid := r.Header.Get(sessionHeader)
	if sid == "" && (r.Method == http.MethodGet || r.Method == http.MethodDelete) && handshakeProtocol(r) {
		// mcp-go would open a listening stream for nobody's session, or end none
		// and answer 200; the specification refuses them as it does a POST.
		writeError(w, http.StatusBadRequest, "missing_session", missingSessionMessage)
		return
	}
	if sid != "" {
		h.mu.Lock()
		owner, known := h.sessions[sid]
		if known && !h.holds(owner.key) {
			delete(h.sessions, sid) // its token was revoked: the session ended with it
			known = false
		}
		h.mu.Unlock()
		if !known {
			writeError(w, http.StatusNotFound, "unknown_session", "this server did not create that session (or it ended): initialize a new one")
			return
		}
		if owner.key != key || owner.name != p.Name {
			h.log.Warn("session used with another principal's token", "principal", p.Name, "remote", r.RemoteAddr)
			writeError(w, http.StatusForbidden, "session_forbidden", "this session belongs to another principal: initialize your own")
			return
		}
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	st := &stream{h: h, key: key, cancel: cancel}
	defer st.close()
	r = r.WithContext(auth.WithPrincipal(ctx, p))
	var lw *lengthWriter
	if r.Method == http.MethodPost {
		lw = &lengthWriter{ResponseWriter: w}
		defer lw.finish()
		w = lw
	}
	if r.Method == http.MethodGet {
		st.open() // a listening stream from the start
	}
	w = &streamWriter{ResponseWriter: w, st: st}
	bw := &bindingWriter{ResponseWriter: w}
	if sid == "" {
		bw.onHeader = func(hd http.Header, status int) {
			if id := hd.Get(sessionHeader); id != "" && status < 300 {
				h.mu.Lock()
				if _, taken := h.sessions[id]; !taken {
					h.sessions[id] = binding{name: p.Name, key: key}
				}
				h.mu.Unlock()
			}
		}
	}
	rw := &refusalWriter{ResponseWriter: bw, hadSession: sid != ""}
	h.mcp.ServeHTTP(rw, r)
	rw.finish()
	if sid != "" && r.Method == http.MethodDelete && bw.status >= 200 && bw.status < 300 {
		h.mu.Lock()
		delete(h.sessions, sid)
		h.mu.Unlock()
	}
}

func (h *HTTPHandler) tooLarge(w http.ResponseWriter) {
	writeError(w, http.StatusRequestEntityTooLarge, "body_too_large", fmt.Sprintf("the request body is over %d bytes", h.maxBody))
}

// checkHost rejects DNS-rebinding attempts: on loopback, a Host header that is not a
// loopback name or the bound host; anywhere, an Origin that is not loopback (on
// loopback) or not the request's own host.
func (h *HTTPHandler) checkHost(w http.ResponseWriter, r *http.Request) bool {
	reqHost := hostname(r.Host)
	if h.loopback && !isLoopbackName(reqHost) && reqHost != h.host {
		h.log.Warn("request refused: host not allowed", "host", r.Host, "remote", r.RemoteAddr)
		writeError(w, http.StatusForbidden, "forbidden_host", fmt.Sprintf("Host %q is not allowed: this server answers only on %s", r.Host, h.host))
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	ok := err == nil && u.Host != "" && (u.Scheme == "http" || u.Scheme == "https")
	if ok {
		oh := hostname(u.Host)
		if h.loopback {
			ok = isLoopbackName(oh) || oh == h.host
		} else {
			ok = oh == reqHost
		}
	}
	if !ok {
		h.log.Warn("request refused: origin not allowed", "origin", origin, "remote", r.RemoteAddr)
		writeError(w, http.StatusForbidden, "forbidden_origin", fmt.Sprintf("Origin %q is not allowed", origin))
		return false
	}
	return true
}

// authenticate finds the request's principal and the key of the token it sent (zero
// for the unauthenticated local agent), or answers 401.
func (h *HTTPHandler) authenticate(w http.ResponseWriter, r *http.Request) (auth.Principal, auth.TokenKey, bool) {
	hdr := r.Header.Get("Authorization")
	if hdr == "" && h.allowAnon {
		return auth.Principal{Name: LocalAgentName, Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite}}, auth.TokenKey{}, true
	}
	const hint = "run `norn token add NAME` on the vault's machine and send the token it prints as `Authorization: Bearer <token>`"
	if hdr == "" {
		unauthorized(w, "invalid_token", "missing_token", "this server needs a bearer token: "+hint)
		return auth.Principal{}, auth.TokenKey{}, false
	}
	scheme, token, found := strings.Cut(hdr, " ")
	token = strings.TrimSpace(token)
	if !found || !strings.EqualFold(scheme, "Bearer") || token == "" {
		unauthorized(w, "invalid_request", "bad_authorization", "the Authorization header must be `Bearer <token>`: "+hint)
		return auth.Principal{}, auth.TokenKey{}, false
	}
	if h.tokens != nil {
		if p, key, ok := h.tokens.AuthenticateKey(token); ok {
			return p, key, true
		}
	}
	h.log.Info("request refused: unknown token", "remote", r.RemoteAddr)
	unauthorized(w, "invalid_token", "invalid_token", "the token is unknown or revoked: "+hint)
	return auth.Principal{}, auth.TokenKey{}, false
}

// holds reports whether the token with key k still authenticates.
func (h *HTTPHandler) holds(k auth.TokenKey) bool {
	return k == (auth.TokenKey{}) || h.tokens != nil && h.tokens.Holds(k)
}

// dropRevoked ends the sessions and streams of tokens no longer in the tokens file,
// when the file changed since they were last checked: a revoked token's sessions are
// unknown from then on (404) and its open streams are closed.
func (h *HTTPHandler) dropRevoked() {
	if h.tokens == nil {
		return
	}
	gen := h.tokens.Generation()
	h.mu.Lock()
	if gen == h.checked {
		h.mu.Unlock()
		return
	}
	h.checked = gen
	var ended []*stream
	for st := range h.streams {
		if !h.holds(st.key) {
			ended = append(ended, st)
		}
	}
	for id, b := range h.sessions {
		if !h.holds(b.key) {
			delete(h.sessions, id)
		}
	}
	h.mu.Unlock()
	for _, st := range ended {
		st.end()
	}
}

// unauthorized answers 401 with the message in the body and, for clients that
// show only the header (the MCP Inspector), as its error_description too. A
// missing token is invalid_token as well: without an error, such clients take
// the 401 for an OAuth challenge and hide the message.
func unauthorized(w http.ResponseWriter, bearerErr, code, msg string) {
	v := `Bearer realm="norn", error="` + bearerErr + `", error_description="` + bearerDescription(msg) + `"`
	w.Header().Set("WWW-Authenticate", v)
	writeError(w, http.StatusUnauthorized, code, msg)
}

// bearerDescription makes msg an RFC 6750 error_description: printable ASCII
// without a double quote (which becomes a single one) or a backslash (which,
// as any other character outside that range, becomes a space).
func bearerDescription(msg string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '"':
			return '\''
		case r < 0x20 || r > 0x7e || r == '\\':
			return ' '
		}
		return r
	}, msg)
}

// writeError answers status with {"error": code, "message": msg}.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": code, "message": msg})
}

// writeJSONRPCError answers a JSON-RPC error as mcp-go's handler does: 400 with the
// error as the JSON body.
func writeJSONRPCError(w http.ResponseWriter, e *mcpgo.JSONRPCError) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusBadRequest)
	json.NewEncoder(w).Encode(e)
}

// hostname is the host of a host[:port], lowercased, without brackets.
func hostname(hostport string) string {
	h, _, err := net.SplitHostPort(hostport)
	if err != nil {
		h = hostport
	}
	return strings.ToLower(strings.Trim(h, "[]"))
}

// isLoopbackName reports whether host (no port, no brackets) is localhost or a
// loopback IP.
func isLoopbackName(host string) bool {
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// stream is one response of a token holder, which becomes a stream when it is a
// listening GET or its answer is SSE. An open stream belongs to its token: it
// checks that the token is still held before each event it sends and every
// revokeCheckInterval, and a revoke ends it (its request's context is cancelled, and
// nothing more is written to it).
type stream struct {
	h      *HTTPHandler
	key    auth.TokenKey
	cancel context.CancelFunc

	mu     sync.Mutex
	ended  bool
	opened bool
	stop   chan struct{} // closed by close: ends the watcher
	done   chan struct{} // closed when the watcher has returned
}

// open registers the stream and starts its watcher; only for a token holder.
func (st *stream) open() {
	if st.key == (auth.TokenKey{}) {
		return
	}
	st.mu.Lock()
	if st.opened || st.ended {
		st.mu.Unlock()
		return
	}
	st.opened = true
	st.stop, st.done = make(chan struct{}), make(chan struct{})
	st.mu.Unlock()
	st.h.mu.Lock()
	st.h.streams[st] = struct{}{}
	st.h.mu.Unlock()
	go st.watch()
}

// watch ends the stream when its token is revoked, checking every
// revokeCheckInterval until close.
func (st *stream) watch() {
	defer close(st.done)
	tick := time.NewTicker(revokeCheckInterval)
	defer tick.Stop()
	for {
		select {
		case <-st.stop:
			return
		case <-tick.C:
			if !st.h.holds(st.key) {
				st.end()
				return
			}
		}
	}
}

// live reports whether the stream may still send: it has not ended, and, once it
// is a stream, its token is still held (ending it otherwise).
func (st *stream) live() bool {
	st.mu.Lock()
	ended, opened := st.ended, st.opened
	st.mu.Unlock()
	if ended {
		return false
	}
	if opened && !st.h.holds(st.key) {
		st.end()
		return false
	}
	return true
}

// end stops the stream for good: nothing more is written to it, and its request's
// context is cancelled so that the handler returns.
func (st *stream) end() {
	st.mu.Lock()
	st.ended = true
	st.mu.Unlock()
	st.cancel()
}

// close is called when the request is done: it stops the watcher, waits for it and
// forgets the stream.
func (st *stream) close() {
	st.mu.Lock()
	opened := st.opened
	st.ended = true
	st.mu.Unlock()
	if !opened {
		return
	}
	close(st.stop)
	<-st.done
	st.h.mu.Lock()
	delete(st.h.streams, st)
	st.h.mu.Unlock()
}

// errStreamEnded is what a write to a stream ended by a revoke returns.
var errStreamEnded = errors.New("stream ended: its token was revoked")

// streamWriter writes a response through its stream: an SSE answer opens the
// stream, and once it is open each write (each event) first checks the token.
type streamWriter struct {
	http.ResponseWriter
	st *stream
}

func (w *streamWriter) WriteHeader(status int) {
	if strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
		w.st.open()
	}
	if !w.st.live() {
		return
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *streamWriter) Write(b []byte) (int, error) {
	if !w.st.live() {
		return 0, errStreamEnded
	}
	return w.ResponseWriter.Write(b)
}

// Flush implements http.Flusher.
func (w *streamWriter) Flush() {
	if !w.st.live() {
		return
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap returns the wrapped writer.
func (w *streamWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// refusalWriter turns the plain-text refusals of mcp-go's handler into norn's JSON
// ones: a status of 400 or more sent without a JSON Content-Type is held, with its
// text, and finish sends it as {"error", "message"} (see refusal). JSON answers,
// JSON-RPC errors included, go through as they are.
type refusalWriter struct {
	http.ResponseWriter
	hadSession bool // the request carried an Mcp-Session-Id
	status     int  // the held status, 0 while none is held
	text       bytes.Buffer
}

func (w *refusalWriter) WriteHeader(status int) {
	if w.status == 0 && status >= 400 && !strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
		w.status = status
		return
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *refusalWriter) Write(b []byte) (int, error) {
	if w.status != 0 {
		return w.text.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

// Flush implements http.Flusher.
func (w *refusalWriter) Flush() {
	if w.status != 0 {
		return
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap returns the wrapped writer.
func (w *refusalWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// finish sends a held refusal as JSON.
func (w *refusalWriter) finish() {
	if w.status == 0 {
		return
	}
	status, code, msg := refusal(w.status, strings.TrimSpace(w.text.String()), w.hadSession)
	w.Header().Del("Content-Length")
	writeError(w.ResponseWriter, status, code, msg)
}

// missingSessionMessage is the message of a 400 missing_session.
const missingSessionMessage = "this request needs the Mcp-Session-Id header that initialize answered with" +
	" (protocols up to 2025-11-25), or the stateless protocol 2026-07-28 (its Mcp-Protocol-Version header and params._meta, see docs/mcp.md)"

// handshakeProtocol reports whether a GET or DELETE speaks one of the handshake
// protocols, whose sessions it needs: its Mcp-Protocol-Version header is missing
// or names one of them. A stateless 2026-07-28 request (405 there) and an unknown
// version (400 unsupported_protocol_version) are left to mcp-go's refusals.
func handshakeProtocol(r *http.Request) bool {
	v := r.Header.Get(mcpgo.HeaderProtocolVersion)
	return v == "" || !mcpgo.IsModernProtocol(v) && mcpgo.IsValidProtocolVersion(v)
}

// refusal names a refusal of mcp-go's handler (its status and text): the status
// norn answers with, the error code and the message.
func refusal(status int, text string, hadSession bool) (int, string, string) {
	switch {
	case status == http.StatusNotFound && !hadSession:
		// mcp-go's answer to a request without a session id under the handshake
		// protocols: the specification asks for 400.
		return http.StatusBadRequest, "missing_session", missingSessionMessage
	case status == http.StatusNotFound:
		return status, "unknown_session", "this server did not create that session (or it ended): initialize a new one"
	case status == http.StatusMethodNotAllowed:
		return status, "method_not_allowed", text
	case status == http.StatusBadRequest && strings.HasPrefix(text, "Invalid content type"):
		return status, "bad_content_type", "the request body must be JSON, sent with Content-Type: application/json"
	case status == http.StatusBadRequest && strings.HasPrefix(text, "Unsupported protocol version"):
		return status, "unsupported_protocol_version", text
	case status == http.StatusBadRequest:
		return status, "bad_request", text
	case status >= http.StatusInternalServerError:
		return status, "internal", text
	}
	return status, "refused", text
}

// bindingWriter calls onHeader once, just before the response header goes out, and
// remembers the status. It keeps the writer's Flush (SSE) and Unwrap (for
// http.ResponseController).
type bindingWriter struct {
	http.ResponseWriter
	onHeader func(http.Header, int)
	status   int
}

func (w *bindingWriter) header(status int) {
	if w.status != 0 {
		return
	}
	w.status = status
	if w.onHeader != nil {
		w.onHeader(w.Header(), status)
	}
}

func (w *bindingWriter) WriteHeader(status int) {
	w.header(status)
	w.ResponseWriter.WriteHeader(status)
}

func (w *bindingWriter) Write(b []byte) (int, error) {
	w.header(http.StatusOK)
	return w.ResponseWriter.Write(b)
}

// Flush implements http.Flusher.
func (w *bindingWriter) Flush() {
	w.header(http.StatusOK)
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap returns the wrapped writer.
func (w *bindingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// lengthWriter holds back a JSON response until the handler returns, then sends it
// with a Content-Length instead of chunked. mcp-go's client stops reading at the
// end of the JSON value and cancels the request: a chunked body's last chunk is
// then often unread and the HTTP transport closes the connection (a new TCP
// connection for up to 0.7 of the calls), while the last read of a body with a
// length reports its end at once and the connection is reused. Anything else (an
// SSE stream, a Flush, a response with a length already) goes through as it is.
type lengthWriter struct {
	http.ResponseWriter
	status  int  // the held status, 0 while none is held
	through bool // writing through
	buf     []byte
}

func (w *lengthWriter) WriteHeader(status int) {
	if w.through || w.status != 0 {
		w.ResponseWriter.WriteHeader(status)
		return
	}
	h := w.Header()
	if status >= 200 && status != http.StatusNoContent && h.Get("Content-Length") == "" &&
		strings.HasPrefix(h.Get("Content-Type"), "application/json") {
		w.status = status
		return
	}
	w.through = true
	w.ResponseWriter.WriteHeader(status)
}

func (w *lengthWriter) Write(b []byte) (int, error) {
	if !w.through && w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.through {
		return w.ResponseWriter.Write(b)
	}
	w.buf = append(w.buf, b...)
	return len(b), nil
}

// Flush implements http.Flusher: what is held goes out, and everything after it.
func (w *lengthWriter) Flush() {
	w.release(false)
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// finish sends a held response with its length.
func (w *lengthWriter) finish() { w.release(true) }

func (w *lengthWriter) release(withLength bool) {
	if w.through {
		return
	}
	w.through = true
	if w.status == 0 {
		return
	}
	if withLength {
		w.Header().Set("Content-Length", strconv.Itoa(len(w.buf)))
	}
	w.ResponseWriter.WriteHeader(w.status)
	if len(w.buf) > 0 {
		w.ResponseWriter.Write(w.buf) // an error here is the client's going away; the server sees it too
	}
	w.buf = nil
}

// Unwrap returns the wrapped writer.
func (w *lengthWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
