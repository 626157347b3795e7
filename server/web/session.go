package web

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/norn-vault/norn/errcode"
	"github.com/norn-vault/norn/server/auth"
)

// Session settings.
const (
	// CookieName is the session cookie.
	CookieName = "norn_session"
	// CSRFHeader carries the session's CSRF token on every request but a GET.
	CSRFHeader = "X-CSRF-Token"
	// DefaultIdle is how long a session lives without a request.
	DefaultIdle = 12 * time.Hour
	// LinkPrefix starts a one-time login link's token (bearer tokens start with
	// auth.TokenPrefix).
	LinkPrefix = "norn_link_"
	// maxSessions bounds the sessions held in memory; a login beyond it ends the
	// least recently used one.
	maxSessions = 1000
	// maxLinks bounds the one-time links not yet used.
	maxLinks = 100
	// maxLoginBody bounds a login request's body.
	maxLoginBody = 8 << 10
)

// session is one browser's login: who it is, the token it logged in with (zero
// for a one-time link), its CSRF token and when it was last used.
type session struct {
	p    auth.Principal
	key  auth.TokenKey
	csrf string
	last time.Time
}

// link is a one-time login link not yet used.
type link struct {
	p       auth.Principal
	expires time.Time
}

// sessions holds the sessions and one-time links, by the SHA-256 of their
// secrets (a secret itself is never kept).
type sessions struct {
	tokens *auth.Tokens
	idle   time.Duration
	now    func() time.Time

	mu    sync.Mutex
	byID  map[[sha256.Size]byte]*session
	links map[[sha256.Size]byte]link
}

func newSessions(tokens *auth.Tokens, idle time.Duration, now func() time.Time) *sessions {
	return &sessions{tokens: tokens, idle: idle, now: now,
		byID: map[[sha256.Size]byte]*session{}, links: map[[sha256.Size]byte]link{}}
}

// secret returns a new random secret: 32 bytes, base64url.
func secret() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// newLink makes a one-time login link's token for p, good once until ttl passes.
func (s *sessions) newLink(p auth.Principal, ttl time.Duration) (string, error) {
	tok := LinkPrefix + secret()
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, l := range s.links {
		if !now.Before(l.expires) {
			delete(s.links, k)
		}
	}
	if len(s.links) >= maxLinks {
		return "", errors.New("too many one-time links not yet used")
	}
	s.links[sha256.Sum256([]byte(tok))] = link{p: p, expires: now.Add(ttl)}
	return tok, nil
}

// exchange turns a login secret into a new session: a one-time link (used up
// here) or a bearer token holding the read scope. It returns the session's id.
func (s *sessions) exchange(secretTok string) (string, *session, error) {
	var sess *session
	now := s.now()
	if strings.HasPrefix(secretTok, LinkPrefix) {
		k := sha256.Sum256([]byte(secretTok))
		s.mu.Lock()
		l, ok := s.links[k]
		delete(s.links, k) // once, whatever happens next
		s.mu.Unlock()
		if !ok || !now.Before(l.expires) {
			return "", nil, errBadLogin
		}
		sess = &session{p: l.p}
	} else {
		if s.tokens == nil {
			return "", nil, errBadLogin
		}
		p, key, ok := s.tokens.AuthenticateKey(secretTok)
		if !ok {
			return "", nil, errBadLogin
		}
		sess = &session{p: p, key: key}
	}
	if !sess.p.Can(auth.ScopeRead) {
		return "", nil, forbidden("%s does not hold the read scope, which the explorer needs", sess.p.Name)
	}
	id := secret()
	sess.csrf, sess.last = secret(), now
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepLocked(now)
	if len(s.byID) >= maxSessions {
		var oldest [sha256.Size]byte
		first := true
		for k, o := range s.byID {
			if first || o.last.Before(s.byID[oldest].last) {
				oldest, first = k, false
			}
		}
		delete(s.byID, oldest)
	}
	s.byID[sha256.Sum256([]byte(id))] = sess
	return id, sess, nil
}

// errBadLogin is a wrong, used or expired login secret.
var errBadLogin = &apiError{status: http.StatusUnauthorized, code: errcode.Forbidden,
	msg: "the token is unknown or revoked, or the one-time link was used or expired: log in with a token (norn token add NAME)"}

// sweepLocked ends the sessions idle too long or whose token was revoked.
func (s *sessions) sweepLocked(now time.Time) {
	for k, o := range s.byID {
		if !s.aliveLocked(o, now) {
			delete(s.byID, k)
		}
	}
}

func (s *sessions) aliveLocked(o *session, now time.Time) bool {
	if now.Sub(o.last) >= s.idle {
		return false
	}
	return o.key == (auth.TokenKey{}) || s.tokens != nil && s.tokens.Holds(o.key)
}

// lookup returns the live session of id and marks it used; a session idle too
// long or whose token was revoked ends here.
func (s *sessions) lookup(id string) (*session, bool) {
	if id == "" {
		return nil, false
	}
	k := sha256.Sum256([]byte(id))
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.byID[k]
	if !ok {
		return nil, false
	}
	if !s.aliveLocked(o, now) {
		delete(s.byID, k)
		return nil, false
	}
	o.last = now
	cp := *o
	return &cp, true
}

// alive reports whether the session of id is still live, without marking it used.
func (s *sessions) alive(id string) bool {
	k := sha256.Sum256([]byte(id))
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.byID[k]
	return ok && s.aliveLocked(o, s.now())
}

// end forgets the session of id.
func (s *sessions) end(id string) {
	k := sha256.Sum256([]byte(id))
	s.mu.Lock()
	delete(s.byID, k)
	s.mu.Unlock()
}

// cookieID is the session id the request's cookie carries ("" for none).
func cookieID(r *http.Request) string {
	c, err := r.Cookie(CookieName)
	if err != nil {
		return ""
	}
	return c.Value
}

// setCookie sets (or, with id "", clears) the session cookie.
func setCookie(w http.ResponseWriter, r *http.Request, id string) {
	c := &http.Cookie{Name: CookieName, Value: id, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil}
	if id == "" {
		c.MaxAge = -1
	}
	http.SetCookie(w, c)
}

// sameOrigin reports whether the request's Origin, when it has one, names the
// request's own scheme-less host: the page's own requests. (Package server has
// already refused an Origin its checks do not allow; a session is stricter.)
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return r.Header.Get("Sec-Fetch-Site") != "cross-site"
	}
	u, err := url.Parse(o)
	return err == nil && strings.EqualFold(u.Host, r.Host)
}

// authorize returns the request's session, checking for a request other than a
// GET or HEAD that it comes from the page itself: same origin and the session's
// CSRF token in CSRFHeader.
func (h *Handler) authorize(r *http.Request) (*session, error) {
	sess, ok := h.sessions.lookup(cookieID(r))
	if !ok {
		return nil, errNoSession
	}
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return sess, nil
	}
	if !sameOrigin(r) {
		return nil, forbidden("a request from another site is refused")
	}
	got := r.Header.Get(CSRFHeader)
	if got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(sess.csrf)) != 1 {
		return nil, forbidden("this request needs the session's CSRF token in the %s header (GET /web/api/session answers it)", CSRFHeader)
	}
	return sess, nil
}

// sessionInfo is GET /web/api/session's answer (and POST /web/login's).
type sessionInfo struct {
	Principal string       `json:"principal"`
	Scopes    []auth.Scope `json:"scopes"`
	CSRF      string       `json:"csrf"`
	Vault     string       `json:"vault"`
	Owner     bool         `json:"owner"`
}

func (h *Handler) info(s *session) sessionInfo {
	sc := s.p.Scopes
	if sc == nil {
		sc = []auth.Scope{}
	}
	return sessionInfo{Principal: s.p.Name, Scopes: sc, CSRF: s.csrf, Vault: h.name, Owner: s.p.Owner}
}

// login answers POST /web/login {"token": "..."}: a session cookie and the
// session, or 401.
func (h *Handler) login(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		h.methodNotAllowed(w, http.MethodPost)
		return
	}
	if !sameOrigin(r) {
		writeErr(w, h.log, forbidden("a login from another site is refused"))
		return
	}
	var in struct {
		Token string `json:"token"`
	}
	if err := decodeBody(r, &in, maxLoginBody); err != nil {
		writeErr(w, h.log, err)
		return
	}
	id, sess, err := h.sessions.exchange(strings.TrimSpace(in.Token))
	if err != nil {
		h.log.Info("web login refused", "remote", r.RemoteAddr)
		writeErr(w, h.log, err)
		return
	}
	h.log.Info("web login", "principal", sess.p.Name, "remote", r.RemoteAddr)
	setCookie(w, r, id)
	writeJSON(w, http.StatusOK, h.info(sess))
}

// linkLogin answers GET /?token=T: the session cookie and a 303 to / (the token
// leaves the address bar and the history), or a 303 to /?login=failed.
func (h *Handler) linkLogin(w http.ResponseWriter, r *http.Request, tok string) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	if !strings.HasPrefix(tok, LinkPrefix) {
		// A bearer token in an address would stay in the history and in logs: only
		// one-time links are taken here.
		http.Redirect(w, r, "/?login=failed", http.StatusSeeOther)
		return
	}
	id, sess, err := h.sessions.exchange(tok)
	if err != nil {
		h.log.Info("web link login refused", "remote", r.RemoteAddr)
		http.Redirect(w, r, "/?login=failed", http.StatusSeeOther)
		return
	}
	h.log.Info("web login by one-time link", "principal", sess.p.Name, "remote", r.RemoteAddr)
	setCookie(w, r, id)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// logout answers POST /web/logout (CSRF): the session ends and its cookie is cleared.
func (h *Handler) logout(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		h.methodNotAllowed(w, http.MethodPost)
		return
	}
	if _, err := h.authorize(r); err != nil {
		writeErr(w, h.log, err)
		return
	}
	h.sessions.end(cookieID(r))
	setCookie(w, r, "")
	writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
}

// decodeBody decodes a JSON request body of at most limit bytes into v: sent as
// application/json, one object, no unknown fields.
func decodeBody(r *http.Request, v any, limit int64) error {
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(strings.ToLower(strings.TrimSpace(ct)), "application/json") {
		return badInput("the request body must be JSON, sent with Content-Type: application/json")
	}
	dec := json.NewDecoder(io.LimitReader(r.Body, limit+1))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badInput("the request body is not the JSON object this endpoint takes (at most %d bytes): %v", limit, err)
	}
	if dec.More() {
		return badInput("the request body holds more than one JSON value")
	}
	return nil
}
