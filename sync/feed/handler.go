package feed

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/gorilla/websocket"
)

// Path is where the events endpoint is mounted.
const Path = "/v1/events"

// HandlerOptions are the callbacks a Handler needs from the server that mounts it.
type HandlerOptions struct {
	// Authenticate checks a request's bearer token ("" when none was sent) and
	// says who it is and what it may see; false refuses the request (401).
	Authenticate func(r *http.Request, token string) (Access, bool)
	// CheckOrigin reports whether the request's Origin (and Host) are allowed;
	// nil allows no Origin or one naming the request's own host.
	CheckOrigin func(r *http.Request) bool
}

// Handler is the websocket endpoint of the feed (GET /v1/events). The bearer
// token comes from the Authorization header or, for browsers, which cannot set
// it, from the token query parameter, which is then accepted only with an
// allowed Origin.
type Handler struct {
	hub      *Hub
	opts     HandlerOptions
	upgrader websocket.Upgrader
}

// NewHandler serves hub's feed.
func NewHandler(hub *Hub, opts HandlerOptions) *Handler {
	if opts.CheckOrigin == nil {
		opts.CheckOrigin = sameOrigin
	}
	if opts.Authenticate == nil {
		opts.Authenticate = func(*http.Request, string) (Access, bool) { return Access{}, false }
	}
	return &Handler{hub: hub, opts: opts, upgrader: websocket.Upgrader{
		ReadBufferSize:  512,
		WriteBufferSize: 4096,
		// Write buffers go back to the pool between frames: an idle
		// subscriber holds none.
		WriteBufferPool: &sync.Pool{},
		CheckOrigin:     func(*http.Request) bool { return true }, // checked in ServeHTTP
	}}
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", "the events endpoint takes GET with a websocket upgrade")
		return
	}
	if !h.opts.CheckOrigin(r) {
		writeError(w, http.StatusForbidden, "forbidden_origin", "Origin "+quote(r.Header.Get("Origin"))+" is not allowed")
		return
	}
	q, err := ParseQuery(r.URL.Query())
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_input", err.Error())
		return
	}
	token, fromQuery, err := tokenOf(r)
	if err != nil {
		unauthorized(w, err.Error())
		return
	}
	if fromQuery && r.Header.Get("Origin") == "" {
		unauthorized(w, "the token query parameter is for browsers (a request with an Origin): send `Authorization: Bearer <token>` instead")
		return
	}
	a, ok := h.opts.Authenticate(r, token)
	if !ok {
		unauthorized(w, "a valid bearer token is required: send `Authorization: Bearer <token>` (or, from a browser, the token query parameter)")
		return
	}
	if !websocket.IsWebSocketUpgrade(r) {
		writeError(w, http.StatusBadRequest, "invalid_input", "the events endpoint is a websocket: send the Upgrade: websocket handshake")
		return
	}
	conn, err := h.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader answered the request
	}
	h.hub.serve(conn, a, q)
}

// tokenOf returns the bearer token of r and whether it came from the query.
func tokenOf(r *http.Request) (token string, fromQuery bool, err error) {
	if auth := r.Header.Get("Authorization"); auth != "" {
		scheme, tok, found := strings.Cut(auth, " ")
		if !found || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(tok) == "" {
			return "", false, errors.New("the Authorization header must be `Bearer <token>`")
		}
		return strings.TrimSpace(tok), false, nil
	}
	if tok := r.URL.Query().Get("token"); tok != "" {
		return tok, true, nil
	}
	return "", false, nil
}

// sameOrigin allows a request with no Origin or one naming the request's host.
func sameOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && strings.EqualFold(u.Host, r.Host)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func unauthorized(w http.ResponseWriter, msg string) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="norn"`)
	writeError(w, http.StatusUnauthorized, "unauthorized", msg)
}

// writeError answers status with {"error": code, "message": msg}, as the
// server's other endpoints do.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": code, "message": msg})
}
