package server

import (
	"bytes"
	"io"
	"net/http"

	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/server/web"
)

// MountWeb serves the web explorer w at / (its page and assets) and /web/...
// beside MCP, behind the same host and origin checks; the change feed then takes
// its session cookie too (same origin only). Call it before serving.
// Its API requests count against each principal's bound on requests at once
// together with MCP's (DefaultMaxConcurrent).
func (h *HTTPHandler) MountWeb(w *web.Handler) {
	w.SetAdmit(func(p auth.Principal) (func(), bool) {
		if !h.slots.acquire(p.Name, slotCall) {
			h.log.Info("web request refused: too many at once", "principal", p.Name, "max", h.slots.max)
			return nil, false
		}
		return func() { h.slots.release(p.Name, slotCall) }, true
	})
	h.web = w
}

// serveWeb serves a request of the web explorer; a body is read first under the
// bounds MCP's have (size 413, pace 408: readBody).
func (h *HTTPHandler) serveWeb(w http.ResponseWriter, r *http.Request) {
	if r.Body != nil && r.Method != http.MethodGet && r.Method != http.MethodHead {
		b, ok := h.readBody(w, r)
		if !ok {
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
	}
	h.web.ServeHTTP(w, r)
}

// hasSession reports whether r carries the web explorer's session cookie.
func hasSession(r *http.Request) bool {
	_, err := r.Cookie(web.CookieName)
	return err == nil
}
