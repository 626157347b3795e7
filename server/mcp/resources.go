package mcp

import (
	"context"
	"encoding/base64"
	"errors"
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
	"github.com/norn-vault/norn/sync/feed"
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
// (resources/subscribe, or subscriptions/listen under protocol 2026-07-28) and,
// for each update of the change feed's hub, sends notifications/resources/updated
// {uri} to those whose note it changed and which may see the change. It follows
// the hub (feed.Hub.Follow) only while it has subscribers.
//
// The hub is the one source of change events: the websocket, wait_for_changes
// and these notifications hear the same commits in the same order, and each
// subscriber is told what feed.Render shows a feed client with its rights (the
// one privacy rule, vault.Vault.PublicAt, on both sides of each change). A
// rewind (the branch moved back by hand) notifies the subscribers of the notes
// it changed. A notification carries no cursor and is never replayed: a client
// too slow to take one misses it and reads the note again.
type subscriptions struct {
	t      *mcpTools
	mu     sync.Mutex
	byPath map[note.Path]map[subKey]*subscriber
	stop   func() // stops following the hub and waits; nil when not following
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
	if s.stop == nil && s.t.feed != nil {
		s.stop = s.follow()
	}
}

// follow starts following the hub: registered at once (a commit that lands
// after the subscription is answered is told), served on a goroutine of its
// own. The returned function stops it and waits for it (Hub.Close ends it too,
// and waits).
func (s *subscriptions) follow() (stop func()) {
	f, err := s.t.feed.Follower()
	if err != nil {
		s.t.log.Debug("resource notifications: no change feed", "err", err) // the server is shutting down
		return func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := f.Run(ctx, s.onUpdate); err != nil && !errors.Is(err, feed.ErrClosed) {
			s.t.log.Warn("resource notifications stopped", "err", err)
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// remove drops the subscriptions whose key matches, and stops following the hub
// when none is left.
func (s *subscriptions) remove(match func(subKey) bool) {
	s.mu.Lock()
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
	var stop func()
	if len(s.byPath) == 0 {
		stop, s.stop = s.stop, nil
	}
	s.mu.Unlock()
	if stop != nil {
		stop() // outside mu: onUpdate may be waiting for it
	}
}

// onUpdate runs on the following goroutine for each update of the hub: a commit,
// or a rewind, told as the changes between the old tip and the new one.
func (s *subscriptions) onUpdate(u feed.Update) {
	if u.Event != nil {
		s.onEvent(u.Event)
		return
	}
	changes, err := s.t.v.Diff(context.Background(), string(u.Rewind.From), string(u.Rewind.To))
	if err != nil {
		s.t.log.Warn("resource notifications: changes of a rewind", "err", err)
		return
	}
	ev := &repo.Event{Commit: repo.Commit{ID: u.Rewind.To}}
	for _, c := range changes {
		k := repo.EventModified
		switch {
		case c.Revision == "":
			k = repo.EventArchived
		case c.OldRevision == "":
			k = repo.EventAdded
		}
		ev.Changes = append(ev.Changes, repo.EventChange{Kind: k, Path: c.Path, Revision: c.Revision, OldRevision: c.OldRevision})
	}
	s.onEvent(ev)
}

// onEvent notifies, without blocking, each subscriber to a note ev changed that
// may see the change: the changes a feed client with the subscriber's rights is
// shown (feed.Render; a move's old path too), rendered once for those with the
// private scope and once for those without.
func (s *subscriptions) onEvent(ev *repo.Event) {
	s.mu.Lock()
	var all, public []*subscriber // subscribers to a path ev changed
	for _, ch := range ev.Changes {
		for _, p := range []note.Path{ch.Path, ch.From} {
			for _, sub := range s.byPath[p] {
				if sub.p.Can(auth.ScopePrivate) {
					all = append(all, sub)
				} else {
					public = append(public, sub)
				}
			}
		}
	}
	s.mu.Unlock()
	if len(all) > 0 {
		s.notifyChanged(feed.Render(ev, nil), all)
	}
	if len(public) > 0 {
		// The feed's rule (fail closed: settings that do not parse, or bytes
		// that cannot be read, count as private).
		visible := func(p note.Path, rev repo.Revision) bool { return s.t.v.PublicAt(context.Background(), p, rev) }
		s.notifyChanged(feed.Render(ev, visible), public)
	}
}

// notifyChanged notifies each of subs whose note m (a rendered event) changes,
// once per subscription.
func (s *subscriptions) notifyChanged(m feed.Message, subs []*subscriber) {
	changed := map[note.Path]bool{}
	for _, ch := range m.Changes {
		changed[ch.Path] = true
		if ch.From != "" {
			changed[ch.From] = true
		}
	}
	told := map[*subscriber]bool{}
	for _, sub := range subs {
		p, err := notePathOf(sub.uri)
		if err != nil || !changed[p] || told[sub] {
			continue
		}
		told[sub] = true
		s.notify(sub)
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
