package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/norn-vault/norn/repo"
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

// HTTPOptions configure NewHTTPHandler.
type HTTPOptions struct {
	// Addr is the address the server listens on (host:port). It decides whether the
	// server is on loopback, which the Host check and AllowUnauthenticatedLoopback
	// depend on.
	Addr string
	// Tokens are the bearer tokens accepted. Nil holds none.
	Tokens *Tokens
	// AllowUnauthenticatedLoopback serves requests that carry no Authorization header
	// as the LocalAgentName principal (scopes read, write). Only on a loopback Addr:
	// NewHTTPHandler refuses it anywhere else. A request that does carry a token is
	// still checked against Tokens.
	AllowUnauthenticatedLoopback bool
	// MaxBodyBytes caps a request body (default DefaultMaxBodyBytes).
	MaxBodyBytes int64
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
//  2. the path — 404 for anything but MCPPath;
//  3. the bearer token — 401 with WWW-Authenticate: Bearer realm="norn";
//  4. the body size — 413;
//  5. the session: an Mcp-Session-Id belongs to the principal whose initialize
//     created it; another principal using it gets 403 session_forbidden, an id the
//     server did not hand out 404 unknown_session (a client re-initializes on 404).
//
// Tool handlers find the caller with PrincipalFrom(ctx).
type HTTPHandler struct {
	mcp       *mcpserver.StreamableHTTPServer
	tokens    *Tokens
	log       *slog.Logger
	loopback  bool
	host      string // bound host, lowercased, without brackets
	allowAnon bool
	maxBody   int64

	mu       sync.Mutex
	sessions map[string]string // session id → principal name
}

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
			" (or, on a loopback address only, pass --allow-unauthenticated-loopback)", ErrNoTokens, path)
	}
	maxBody := opts.MaxBodyBytes
	if maxBody <= 0 {
		maxBody = DefaultMaxBodyBytes
	}
	h := &HTTPHandler{tokens: opts.Tokens, log: log, loopback: loopback, host: host,
		allowAnon: opts.AllowUnauthenticatedLoopback, maxBody: maxBody, sessions: map[string]string{}}
	h.mcp = mcpserver.NewStreamableHTTPServer(mcp,
		mcpserver.WithEndpointPath(MCPPath),
		mcpserver.WithStateful(true),
		mcpserver.WithStreamableHTTPLogger(log),
		mcpserver.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
			if p, ok := PrincipalFrom(r.Context()); ok {
				return WithPrincipal(ctx, p)
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
	if r.URL.Path != MCPPath {
		writeError(w, http.StatusNotFound, "not_found", "MCP is served at "+MCPPath)
		return
	}
	p, ok := h.authenticate(w, r)
	if !ok {
		return
	}
	if r.Body != nil && r.Method == http.MethodPost {
		if r.ContentLength > h.maxBody {
			h.tooLarge(w)
			return
		}
		b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.maxBody))
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			h.tooLarge(w)
			return
		}
		if err != nil {
			writeError(w, http.StatusBadRequest, "bad_request", "reading the request body: "+err.Error())
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
	}
	sid := r.Header.Get(sessionHeader)
	if sid != "" {
		h.mu.Lock()
		owner, known := h.sessions[sid]
		h.mu.Unlock()
		if !known {
			writeError(w, http.StatusNotFound, "unknown_session", "this server did not create that session (or it ended): initialize a new one")
			return
		}
		if owner != p.Name {
			h.log.Warn("session used with another principal's token", "principal", p.Name, "remote", r.RemoteAddr)
			writeError(w, http.StatusForbidden, "session_forbidden", "this session belongs to another principal: initialize your own")
			return
		}
	}
	r = r.WithContext(WithPrincipal(r.Context(), p))
	var lw *lengthWriter
	if r.Method == http.MethodPost {
		lw = &lengthWriter{ResponseWriter: w}
		defer lw.finish()
		w = lw
	}
	bw := &bindingWriter{ResponseWriter: w}
	if sid == "" {
		bw.onHeader = func(hd http.Header, status int) {
			if id := hd.Get(sessionHeader); id != "" && status < 300 {
				h.mu.Lock()
				if _, taken := h.sessions[id]; !taken {
					h.sessions[id] = p.Name
				}
				h.mu.Unlock()
			}
		}
	}
	h.mcp.ServeHTTP(bw, r)
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

// authenticate finds the request's principal or answers 401.
func (h *HTTPHandler) authenticate(w http.ResponseWriter, r *http.Request) (Principal, bool) {
	auth := r.Header.Get("Authorization")
	if auth == "" && h.allowAnon {
		return Principal{Name: LocalAgentName, Scopes: []Scope{ScopeRead, ScopeWrite}}, true
	}
	const hint = "run `norn token add NAME` on the vault's machine and send the token it prints as `Authorization: Bearer <token>`"
	if auth == "" {
		unauthorized(w, "", "missing_token", "this server needs a bearer token: "+hint)
		return Principal{}, false
	}
	scheme, token, found := strings.Cut(auth, " ")
	token = strings.TrimSpace(token)
	if !found || !strings.EqualFold(scheme, "Bearer") || token == "" {
		unauthorized(w, "invalid_request", "bad_authorization", "the Authorization header must be `Bearer <token>`: "+hint)
		return Principal{}, false
	}
	if h.tokens != nil {
		if p, ok := h.tokens.Authenticate(token); ok {
			return p, true
		}
	}
	h.log.Info("request refused: unknown token", "remote", r.RemoteAddr)
	unauthorized(w, "invalid_token", "invalid_token", "the token is unknown or revoked: "+hint)
	return Principal{}, false
}

func unauthorized(w http.ResponseWriter, bearerErr, code, msg string) {
	v := `Bearer realm="norn"`
	if bearerErr != "" {
		v += `, error="` + bearerErr + `"`
	}
	w.Header().Set("WWW-Authenticate", v)
	writeError(w, http.StatusUnauthorized, code, msg)
}

// writeError answers status with {"error": code, "message": msg}.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": code, "message": msg})
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

// ServeStdio serves mcp over in/out (newline-delimited JSON-RPC) for one client whose
// principal is p, until in ends or ctx is done; both are a clean stop (nil). Nothing
// but protocol is written to out; the transport's errors go to log (nil:
// slog.Default()).
func ServeStdio(ctx context.Context, mcp *mcpserver.MCPServer, p Principal, in io.Reader, out io.Writer, log *slog.Logger) error {
	if log == nil {
		log = slog.Default()
	}
	s := mcpserver.NewStdioServer(mcp)
	mcpserver.WithErrorLogger(slogLogger(log))(s)
	mcpserver.WithStdioContextFunc(func(ctx context.Context) context.Context { return WithPrincipal(ctx, p) })(s)
	err := s.Listen(ctx, in, out)
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("serve stdio: %w", err)
	}
	return nil
}

// slogLogger adapts log to the *log.Logger mcp-go's stdio server wants.
func slogLogger(l *slog.Logger) *log.Logger {
	return slog.NewLogLogger(l.Handler(), slog.LevelError)
}
