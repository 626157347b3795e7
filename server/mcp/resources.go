package mcp

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/vault"
)

// NoteURIPrefix starts every note's resource URI: norn://note/{path}, with each
// path segment percent-escaped.
const NoteURIPrefix = "norn://note/"

// resourcesPerPage is how many notes one resources/list page holds.
const resourcesPerPage = 100

// NoteURI is the resource URI of the note at p.
func NoteURI(p note.Path) string {
	parts := strings.Split(string(p), "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return NoteURIPrefix + strings.Join(parts, "/")
}

// notePathOf returns the note path of a norn://note/ URI.
func notePathOf(uri string) (note.Path, error) {
	rest, ok := strings.CutPrefix(uri, NoteURIPrefix)
	if !ok {
		return "", errInput("%q is not a note URI: notes are %s{path}", uri, NoteURIPrefix)
	}
	p, err := url.PathUnescape(rest)
	if err != nil {
		return "", errInput("%q: bad escape in the path: %v", uri, err)
	}
	if err := repo.ValidPath(p); err != nil {
		return "", errInput("%q: %v", uri, err)
	}
	return note.Path(p), nil
}

func (t *mcpTools) addResources() {
	t.srv.AddResourceTemplate(mcpgo.NewResourceTemplate(NoteURIPrefix+"{+path}", "note",
		mcpgo.WithTemplateDescription("A note of the vault at HEAD, as Markdown (frontmatter included). Subscribe to be told when a commit changes it."),
		mcpgo.WithTemplateMIMEType("text/markdown")), t.readResource)
}

// readResource answers resources/read for a note URI.
func (t *mcpTools) readResource(ctx context.Context, req mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
	c, te := t.caller(ctx, auth.ScopeRead)
	if te != nil {
		return nil, te
	}
	p, err := notePathOf(req.Params.URI)
	if err != nil {
		return nil, err
	}
	if !c.Visible(ctx, p) {
		return nil, errInvisible(p)
	}
	blob, err := t.v.Read(ctx, p, "")
	if err != nil || !c.VisibleContent(p, blob.Content) {
		return nil, errInvisible(p)
	}
	return []mcpgo.ResourceContents{mcpgo.TextResourceContents{
		URI: req.Params.URI, MIMEType: "text/markdown", Text: string(blob.Content),
		Meta: map[string]any{"revision": string(blob.Revision), "commit": string(blob.Commit)},
	}}, nil
}

// listResources fills a resources/list page with the notes the caller may see,
// sorted by path, resourcesPerPage at a time. (mcp-go lists only resources
// registered up front; the notes change with every commit, so they are listed
// here, after its own empty answer.)
func (t *mcpTools) listResources(ctx context.Context, _ any, req *mcpgo.ListResourcesRequest, res *mcpgo.ListResourcesResult) {
	if res == nil {
		return
	}
	res.Resources, res.NextCursor = []mcpgo.Resource{}, ""
	c, te := t.caller(ctx, auth.ScopeRead)
	if te != nil {
		return
	}
	after := ""
	if req.Params.Cursor != "" {
		b, err := base64.StdEncoding.DecodeString(string(req.Params.Cursor))
		if err != nil {
			return
		}
		after = string(b)
	}
	files, _, err := t.v.Files(ctx, "")
	if err != nil {
		t.log.Warn("list resources", "err", err)
		return
	}
	notes := vault.NotesOnly(files)
	sort.Slice(notes, func(i, j int) bool { return notes[i].Path < notes[j].Path })
	i := sort.Search(len(notes), func(i int) bool { return string(notes[i].Path) > after })
	for ; i < len(notes); i++ {
		f := notes[i]
		if isNornPath(f.Path) || !c.Visible(ctx, f.Path) {
			continue
		}
		if len(res.Resources) == resourcesPerPage {
			last := res.Resources[len(res.Resources)-1].Name
			res.NextCursor = mcpgo.Cursor(base64.StdEncoding.EncodeToString([]byte(last)))
			return
		}
		res.Resources = append(res.Resources, mcpgo.NewResource(NoteURI(f.Path), string(f.Path),
			mcpgo.WithMIMEType("text/markdown")))
	}
}

// subscriptions tracks which sessions subscribed to which notes
// (resources/subscribe, or subscriptions/listen under protocol 2026-07-28) and, on
// each commit event, sends notifications/resources/updated {uri} to those whose note the
// commit changed and which may see it. It observes commit events only while it
// has subscribers.
type subscriptions struct {
	t      *mcpTools
	mu     sync.Mutex
	byPath map[note.Path]map[subKey]*subscriber
	cancel func() // stops observing commits; nil when not observing
}

// subKey identifies one subscription: a session, and for subscriptions/listen the
// request that holds the stream.
type subKey struct {
	session string
	listen  string
	uri     string
}

type subscriber struct {
	session mcpserver.ClientSession
	listen  any // the subscriptions/listen request id; nil for resources/subscribe
	uri     string
	p       auth.Principal
}

func newSubscriptions(t *mcpTools) *subscriptions {
	return &subscriptions{t: t, byPath: map[note.Path]map[subKey]*subscriber{}}
}

// register installs the hooks that track subscriptions and list the notes.
func (s *subscriptions) register(h *mcpserver.Hooks) {
	h.AddAfterListResources(s.t.listResources)
	h.AddAfterSubscribe(func(ctx context.Context, _ any, req *mcpgo.SubscribeRequest, _ *mcpgo.EmptyResult) {
		s.add(ctx, req.Params.URI, nil)
	})
	h.AddAfterUnsubscribe(func(ctx context.Context, _ any, req *mcpgo.UnsubscribeRequest, _ *mcpgo.EmptyResult) {
		if sess := mcpserver.ClientSessionFromContext(ctx); sess != nil {
			s.remove(func(k subKey) bool { return k.session == sess.SessionID() && k.listen == "" && k.uri == req.Params.URI })
		}
	})
	h.AddOnUnregisterSession(func(_ context.Context, sess mcpserver.ClientSession) {
		s.remove(func(k subKey) bool { return k.session == sess.SessionID() })
	})
	h.AddBeforeSubscriptionsListen(func(ctx context.Context, id any, req *mcpgo.SubscriptionsListenRequest) {
		if id == nil {
			return
		}
		for _, uri := range req.Params.Notifications.ResourceSubscriptions {
			s.add(ctx, uri, id)
		}
	})
	endListen := func(ctx context.Context, id any) {
		if sess := mcpserver.ClientSessionFromContext(ctx); sess != nil && id != nil {
			key := fmt.Sprint(id)
			s.remove(func(k subKey) bool { return k.session == sess.SessionID() && k.listen == key })
		}
	}
	h.AddAfterSubscriptionsListen(func(ctx context.Context, id any, _ *mcpgo.SubscriptionsListenRequest, _ *mcpgo.SubscriptionsListenResult) {
		endListen(ctx, id)
	})
	h.AddOnError(func(ctx context.Context, id any, method mcpgo.MCPMethod, _ any, _ error) {
		if method == mcpgo.MethodSubscriptionsListen {
			endListen(ctx, id)
		}
	})
}

// add records a subscription of the request's session to uri. A caller without
// the read scope, or a URI that is not a note's, is not recorded (and so never
// notified); whether the caller may see the note is decided at each commit.
func (s *subscriptions) add(ctx context.Context, uri string, listen any) {
	sess := mcpserver.ClientSessionFromContext(ctx)
	p, ok := auth.PrincipalFrom(ctx)
	if sess == nil || !ok || !p.Can(auth.ScopeRead) {
		return
	}
	path, err := notePathOf(uri)
	if err != nil {
		return
	}
	k := subKey{session: sess.SessionID(), uri: uri}
	if listen != nil {
		k.listen = fmt.Sprint(listen)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.byPath[path]
	if m == nil {
		m = map[subKey]*subscriber{}
		s.byPath[path] = m
	}
	m[k] = &subscriber{session: sess, listen: listen, uri: uri, p: p}
	if s.cancel == nil {
		s.cancel = s.t.v.Subscribe(s.onEvent)
	}
}

// remove drops the subscriptions whose key matches.
func (s *subscriptions) remove(match func(subKey) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for p, m := range s.byPath {
		for k := range m {
			if match(k) {
				delete(m, k)
			}
		}
		if len(m) == 0 {
			delete(s.byPath, p)
		}
	}
	if len(s.byPath) == 0 && s.cancel != nil {
		s.cancel()
		s.cancel = nil
	}
}

// onEvent runs on the vault's event goroutine: for each path the commit changed
// (a move's old path too) that someone subscribed to, it reads the note's bytes
// to decide privacy and sends, without blocking, one notification to each
// subscriber that may see it.
func (s *subscriptions) onEvent(ev repo.Event) {
	s.mu.Lock()
	subs := map[note.Path][]*subscriber{}
	for _, ch := range ev.Changes {
		for _, p := range []note.Path{ch.Path, ch.From} {
			for _, sub := range s.byPath[p] {
				subs[p] = append(subs[p], sub)
			}
		}
	}
	s.mu.Unlock()
	if len(subs) == 0 {
		return
	}
	ctx := context.Background()
	v := s.t.v
	cfg, _, cfgErr := v.Settings.Current(ctx)
	for _, ch := range ev.Changes {
		for _, p := range []note.Path{ch.Path, ch.From} {
			list := subs[p]
			if len(list) == 0 {
				continue
			}
			// The bytes the subscriber's path had: the new ones, or for an
			// archive or a move's old path, the ones it left.
			rev := ch.Revision
			if rev == "" || p == ch.From {
				rev = ch.OldRevision
			}
			b, err := v.ReadRevision(ctx, rev)
			// Settings that do not parse leave privacy unknown: every note counts as private.
			private := cfgErr != nil || err != nil || vault.NotePrivate(cfg, p, b)
			for _, sub := range list {
				if private && !sub.p.Can(auth.ScopePrivate) {
					continue
				}
				s.notify(sub)
			}
		}
	}
}

// notify sends notifications/resources/updated to one subscriber without blocking:
// a client too slow to take it misses it (and can read the note again).
func (s *subscriptions) notify(sub *subscriber) {
	params := map[string]any{"uri": sub.uri}
	if sub.listen == nil {
		if err := s.t.srv.SendNotificationToSpecificClient(sub.session.SessionID(), mcpgo.MethodNotificationResourceUpdated, params); err != nil {
			s.t.log.Debug("resource notification not sent", "session", sub.session.SessionID(), "err", err)
		}
		return
	}
	n := mcpgo.JSONRPCNotification{JSONRPC: mcpgo.JSONRPC_VERSION, Notification: mcpgo.Notification{
		Method: mcpgo.MethodNotificationResourceUpdated,
		Params: mcpgo.NotificationParams{Meta: map[string]any{mcpgo.MetaKeySubscriptionID: sub.listen}, AdditionalFields: params},
	}}
	select {
	case sub.session.NotificationChannel() <- n:
	default:
		s.t.log.Debug("resource notification not sent: client too slow", "session", sub.session.SessionID())
	}
}
