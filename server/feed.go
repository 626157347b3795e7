package server

import (
	"context"
	"net/http"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/sync/feed"
	"github.com/norn-vault/norn/vault"
)

// MountFeed serves hub's change feed at feed.Path beside MCP, behind the same
// host and origin checks and the same bearer tokens (or, with
// AllowUnauthenticatedLoopback, none); a principal without the private scope is
// told nothing of private notes (vault.Vault.PublicAt, judged on the bytes of
// each revision an event names). A connection whose token is revoked is closed at its
// next message or ping. Call it before serving.
func (h *HTTPHandler) MountFeed(v *vault.Vault, hub *feed.Hub) {
	h.feed = feed.NewHandler(hub, feed.HandlerOptions{
		// ServeHTTP's checkHost already refused a disallowed Host or Origin.
		CheckOrigin: func(*http.Request) bool { return true },
		Authenticate: func(r *http.Request, token string) (feed.Access, bool) {
			var p auth.Principal
			var key auth.TokenKey
			holds := func() bool { return h.holds(key) }
			switch {
			case token == "" && h.web != nil && hasSession(r):
				// A browser of the web explorer: its session cookie, same origin only.
				var ok bool
				if p, holds, ok = h.web.Session(r); !ok {
					return feed.Access{}, false
				}
			case token == "" && h.allowAnon:
				p = auth.Principal{Name: LocalAgentName, Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite}}
			case token != "" && h.tokens != nil:
				var ok bool
				if p, key, ok = h.tokens.AuthenticateKey(token); !ok {
					return feed.Access{}, false
				}
			default:
				return feed.Access{}, false
			}
			if !p.Can(auth.ScopeRead) {
				return feed.Access{}, false
			}
			// A revoked token's connection is closed at its next message or ping.
			a := feed.Access{Principal: p.Name, Holds: holds}
			if !p.Can(auth.ScopePrivate) {
				a.Visible = func(p note.Path, rev repo.Revision) bool { return v.PublicAt(context.Background(), p, rev) }
			}
			return a, true
		},
	})
}
