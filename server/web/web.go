package web

import (
	"embed"
	"io/fs"
	"log/slog"
	"net/http"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/norn-vault/norn/errcode"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/vault"
)

// dist holds the page's built files: index.html and assets/.
//
//go:embed dist/*
var dist embed.FS

// APIPrefix is where the JSON API answers.
const APIPrefix = "/web/api/"

// ContentSecurityPolicy is sent with the page and its assets: only the server's
// own scripts, styles and images, and the feed's websocket.
const ContentSecurityPolicy = "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; " +
	"object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"

// Options configure New.
type Options struct {
	// Tokens are the bearer tokens a login may use (nil: only one-time links).
	Tokens *auth.Tokens
	// Name is the vault's name the page shows (default: its folder's name).
	Name string
	// Idle is how long a session lives without a request (default DefaultIdle).
	Idle time.Duration
	// Now is the clock sessions are timed by (default time.Now).
	Now func() time.Time
	// Logger is for the handler's own events (default slog.Default()). Tokens and
	// session ids are never logged.
	Logger *slog.Logger
}

// Handler serves the explorer's page and API for one vault.
type Handler struct {
	v        *vault.Vault
	name     string
	log      *slog.Logger
	sessions *sessions
	static   *assets
	// admit bounds the API requests a principal has running at once (SetAdmit);
	// nil: unbounded.
	admit func(auth.Principal) (release func(), ok bool)
}

// SetAdmit makes every API request take one of its principal's slots from
// admit before it runs (released when it is done), and answer 429
// too_many_requests with Retry-After when admit has none: the same bound MCP's
// requests are under, shared with them. Call it before serving.
func (h *Handler) SetAdmit(admit func(auth.Principal) (release func(), ok bool)) { h.admit = admit }

// New returns the explorer of v.
func New(v *vault.Vault, o Options) *Handler {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Idle <= 0 {
		o.Idle = DefaultIdle
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Name == "" {
		o.Name = filepath.Base(v.Dir())
	}
	sub, _ := fs.Sub(dist, "dist") // dist is always there: embedded
	return &Handler{v: v, name: o.Name, log: o.Logger, sessions: newSessions(o.Tokens, o.Idle, o.Now),
		static: newAssets(sub)}
}

// Owns reports whether the explorer answers path: the page (/), its assets
// (/assets/...), and /web/....
func Owns(p string) bool {
	return p == "/" || p == "/index.html" || strings.HasPrefix(p, "/assets/") || strings.HasPrefix(p, "/web/")
}

// LoginLink returns a one-time login link's token for p: GET /?token=TOKEN logs
// a browser in as p once, until ttl passes.
func (h *Handler) LoginLink(p auth.Principal, ttl time.Duration) (string, error) {
	return h.sessions.newLink(p, ttl)
}

// Session returns the principal of the request's session cookie, for another
// endpoint that takes a browser's session (the change feed), and a func that
// reports whether the session is still live (its token not revoked, not logged
// out, not idle). Only a same-origin request (or one without an Origin) is
// taken.
func (h *Handler) Session(r *http.Request) (auth.Principal, func() bool, bool) {
	id := cookieID(r)
	sess, ok := h.sessions.lookup(id)
	if !ok || !sameOrigin(r) {
		return auth.Principal{}, nil, false
	}
	return sess.p, func() bool { return h.sessions.alive(id) }, true
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch p := r.URL.Path; {
	case p == "/web/login":
		h.login(w, r)
	case p == "/web/logout":
		h.logout(w, r)
	case strings.HasPrefix(p, APIPrefix):
		h.api(w, r, strings.TrimPrefix(p, APIPrefix))
	case strings.HasPrefix(p, "/web/"):
		writeErr(w, h.log, &apiError{status: http.StatusNotFound, code: errcode.NotFound, msg: "no such endpoint: see docs/web.md"})
	default:
		h.page(w, r)
	}
}

// page serves the page shell and its assets (GET and HEAD), and takes a
// one-time link (GET /?token=...).
func (h *Handler) page(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.methodNotAllowed(w, "GET, HEAD")
		return
	}
	if tok := r.URL.Query().Get("token"); r.Method == http.MethodGet && r.URL.Path == "/" && tok != "" {
		h.linkLogin(w, r, tok)
		return
	}
	hd := w.Header()
	hd.Set("Content-Security-Policy", ContentSecurityPolicy)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "no-referrer")
	name := strings.TrimPrefix(r.URL.Path, "/")
	if r.URL.Path == "/" || r.URL.Path == "/index.html" {
		// The shell names the assets: revalidated on every load (a 304 when
		// unchanged), so a new build's assets are picked up at once.
		hd.Set("Cache-Control", "no-cache")
		name = "index.html"
	} else if strings.HasSuffix(r.URL.Path, "/") || path.Clean(r.URL.Path) != r.URL.Path || !fs.ValidPath(name) {
		name = ""
	}
	if name == "" || !h.static.serve(w, r, name) {
		writeErr(w, h.log, &apiError{status: http.StatusNotFound, code: errcode.NotFound, msg: "no such asset"})
	}
}

func (h *Handler) methodNotAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	writeErr(w, h.log, &apiError{status: http.StatusMethodNotAllowed, code: errcode.InvalidInput, msg: "this endpoint takes " + allow})
}
