package server

import (
	"context"
	"net/http"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/sync/feed"
)

// MountFeed serves hub's change feed at feed.Path beside MCP, behind the same
// host and origin checks and the same bearer tokens (or, with
// AllowUnauthenticatedLoopback, none); a principal without the private scope is
// told nothing of private notes (notePrivate, judged on the bytes of each
// revision an event names). A connection whose token is revoked is closed at its
// next message or ping. Call it before serving.
func (h *HTTPHandler) MountFeed(v *Vault, hub *feed.Hub) {
	h.feed = feed.NewHandler(hub, feed.HandlerOptions{
		// ServeHTTP's checkHost already refused a disallowed Host or Origin.
		CheckOrigin: func(*http.Request) bool { return true },
		Authenticate: func(r *http.Request, token string) (feed.Access, bool) {
			var p Principal
			var key tokenKey
			switch {
			case token == "" && h.allowAnon:
				p = Principal{Name: LocalAgentName, Scopes: []Scope{ScopeRead, ScopeWrite}}
			case token != "" && h.tokens != nil:
				var ok bool
				if p, key, ok = h.tokens.authenticate(token); !ok {
					return feed.Access{}, false
				}
			default:
				return feed.Access{}, false
			}
			if !p.Can(ScopeRead) {
				return feed.Access{}, false
			}
			// A revoked token's connection is closed at its next message or ping.
			a := feed.Access{Principal: p.Name, Holds: func() bool { return h.holds(key) }}
			if !p.Can(ScopePrivate) {
				a.Visible = feedVisible(v)
			}
			return a, true
		},
	})
}

// feedVisible is the privacy rule for the feed: the note at p with the bytes of
// rev is visible unless notePrivate says otherwise. Settings or bytes that
// cannot be read count as private (fail closed).
func feedVisible(v *Vault) func(note.Path, repo.Revision) bool {
	return func(p note.Path, rev repo.Revision) bool {
		ctx := context.Background()
		cfg, _, err := v.Settings.Current(ctx)
		if err != nil {
			return false
		}
		var b []byte
		if rev != "" {
			if b, err = v.ReadRevision(ctx, rev); err != nil {
				return false
			}
		}
		return !notePrivate(cfg, p, b, nil, nil)
	}
}
