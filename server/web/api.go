package web

import (
	"context"
	"errors"
	"html"
	"net/http"
	"sort"
	"strings"

	"github.com/norn-vault/norn/errcode"
	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/vault"
)

// request is one API request with its session and what its principal sees.
type request struct {
	h    *Handler
	sess *session
	vw   *vault.Viewer
	ps   params
	r    *http.Request
}

// endpoint is one API endpoint: its method and what it answers.
type endpoint struct {
	method string
	serve  func(rq *request, ctx context.Context) (any, error)
}

// endpointOf returns the API endpoint named name (the path after APIPrefix).
func endpointOf(name string) (endpoint, bool) {
	switch name {
	case "session":
		return endpoint{http.MethodGet, (*request).session}, true
	case "tree":
		return endpoint{http.MethodGet, (*request).tree}, true
	case "note":
		return endpoint{http.MethodGet, (*request).note}, true
	case "search":
		return endpoint{http.MethodGet, (*request).search}, true
	case "graph":
		return endpoint{http.MethodGet, (*request).graph}, true
	case "hubs":
		return endpoint{http.MethodGet, (*request).hubs}, true
	case "history":
		return endpoint{http.MethodGet, (*request).history}, true
	case "diff":
		return endpoint{http.MethodGet, (*request).diff}, true
	case "restore":
		return endpoint{http.MethodPost, (*request).restore}, true
	}
	return endpoint{}, false
}

// api answers one API request: the endpoint, its method, the session (and, but
// for a GET, its CSRF token), then the endpoint itself.
func (h *Handler) api(w http.ResponseWriter, r *http.Request, name string) {
	ep, ok := endpointOf(name)
	if !ok {
		writeErr(w, h.log, &apiError{status: http.StatusNotFound, code: errcode.NotFound, msg: "no API endpoint " + name + ": see docs/web.md"})
		return
	}
	if r.Method != ep.method && !(ep.method == http.MethodGet && r.Method == http.MethodHead) {
		h.methodNotAllowed(w, ep.method)
		return
	}
	sess, err := h.authorize(r)
	if err != nil {
		writeErr(w, h.log, err)
		return
	}
	if h.admit != nil {
		release, ok := h.admit(sess.p)
		if !ok {
			w.Header().Set("Retry-After", "1")
			writeErr(w, h.log, &apiError{status: http.StatusTooManyRequests, code: codeTooMany,
				msg: sess.p.Name + " already has as many requests running as this server allows at once: retry when one has finished"})
			return
		}
		defer release()
	}
	ctx := auth.WithPrincipal(r.Context(), sess.p)
	vw, err := h.v.Viewer(ctx, sess.p.Actor())
	if err != nil {
		writeErr(w, h.log, forbidden("the vault's settings (%s) do not parse, so which notes are private is unknown: until the vault's owner fixes them, only a token with the private scope may read the vault", vault.ConfigPath))
		return
	}
	rq := &request{h: h, sess: sess, vw: vw, ps: params{q: r.URL.Query()}, r: r}
	out, err := ep.serve(rq, ctx)
	if err == nil {
		err = rq.ps.err
	}
	if err != nil {
		writeErr(w, h.log, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (rq *request) session(context.Context) (any, error) { return rq.h.info(rq.sess), nil }

// --- tree ---

// noteRef is a note in the tree.
type noteRef struct {
	Path  note.Path `json:"path"`
	Title string    `json:"title"`
}

// folder is one folder of the tree; Count counts the notes under it, at any depth.
type folder struct {
	Path    string    `json:"path"`
	Name    string    `json:"name"`
	Count   int       `json:"count"`
	Folders []*folder `json:"folders"`
	Notes   []noteRef `json:"notes"`

	sub map[string]*folder
}

func newFolder(path, name string) *folder {
	return &folder{Path: path, Name: name, Folders: []*folder{}, Notes: []noteRef{}, sub: map[string]*folder{}}
}

func (rq *request) tree(ctx context.Context) (any, error) {
	src, err := rq.h.v.Graph(ctx)
	if err != nil {
		return nil, err
	}
	notes, err := src.NotesHiding(rq.vw.Hidden(ctx))
	if err != nil {
		return nil, vault.GraphErr("tree", err)
	}
	root := newFolder("", "")
	for _, n := range notes {
		if vault.IsNornPath(n.Path) {
			continue
		}
		f := root
		f.Count++
		parts := strings.Split(string(n.Path), "/")
		for i, part := range parts[:len(parts)-1] {
			c, ok := f.sub[part]
			if !ok {
				c = newFolder(strings.Join(parts[:i+1], "/"), part)
				f.sub[part] = c
				f.Folders = append(f.Folders, c)
			}
			f = c
			f.Count++
		}
		f.Notes = append(f.Notes, noteRef{Path: n.Path, Title: n.Title})
	}
	sortTree(root)
	return map[string]any{"folders": []*folder{root}}, nil
}

func sortTree(f *folder) {
	sort.Slice(f.Folders, func(i, j int) bool { return f.Folders[i].Name < f.Folders[j].Name })
	sort.Slice(f.Notes, func(i, j int) bool { return f.Notes[i].Path < f.Notes[j].Path })
	for _, c := range f.Folders {
		sortTree(c)
	}
}

// --- note ---

// edgeOut is one typed edge of a note.
type edgeOut struct {
	Type string `json:"type"`
	// Target is the note the edge resolves to or, when it does not, its target
	// as written.
	Target   string `json:"target"`
	Why      string `json:"why"`
	Resolved bool   `json:"resolved"`
}

// backlinkOut is a link to the note from another.
type backlinkOut struct {
	Source  note.Path `json:"source"`
	Title   string    `json:"title"`
	Line    int       `json:"line"`
	Context string    `json:"context"`
	// Kind is wikilink, embed, markdown or edge (Type then the edge's type).
	Kind string `json:"kind"`
	Type string `json:"type,omitempty"`
}

// noteOut is GET /web/api/note's answer.
type noteOut struct {
	Path        note.Path      `json:"path"`
	Title       string         `json:"title"`
	Revision    repo.Revision  `json:"revision"`
	Commit      repo.CommitID  `json:"commit"`
	HTML        string         `json:"html"`
	Frontmatter map[string]any `json:"frontmatter"`
	Tags        []string       `json:"tags"`
	Edges       []edgeOut      `json:"edges"`
	Backlinks   []backlinkOut  `json:"backlinks"`
	Archived    bool           `json:"archived"`
	// ParseError says why the note does not parse (then HTML is its text, escaped).
	ParseError string `json:"parse_error,omitempty"`
	// Claims are the live claims read from the note, each fresh or stale, and
	// Synthesis its freshness when it is a registered summary (docs/ledger.md):
	// both only for the note at HEAD, as read_note gives them.
	Claims    []vault.BoundClaim     `json:"claims,omitempty"`
	Synthesis *vault.SynthesisStatus `json:"synthesis,omitempty"`
}

// maxClaims bounds the claims a note view lists (read_note's bound).
const maxClaims = 50

// maxBacklinks bounds the backlinks a note view lists.
const maxBacklinks = 200

func (rq *request) note(ctx context.Context) (any, error) {
	p := rq.ps.path("path", true)
	at := rq.ps.rev("at")
	if rq.ps.err != nil {
		return nil, rq.ps.err
	}
	if !note.IsNote(p) {
		return nil, badInput("path %s is not a note (a .md file)", p)
	}
	blob, archived, err := rq.read(ctx, p, at)
	if err != nil {
		return nil, err
	}
	n, perr := note.Parse(p, blob.Content)
	if !rq.vw.VisibleParsed(p, n, perr, blob.Content) {
		return nil, vault.MissingAt(p, at)
	}
	out := &noteOut{Path: p, Title: note.Stem(p), Revision: blob.Revision, Commit: blob.Commit, Archived: archived,
		Frontmatter: map[string]any{}, Tags: []string{}, Edges: []edgeOut{}, Backlinks: []backlinkOut{}}
	src, err := rq.h.v.Graph(ctx)
	if err != nil {
		return nil, err
	}
	hidden := rq.vw.Hidden(ctx)
	if perr != nil {
		out.ParseError = perr.Error()
		out.HTML = "<pre>" + html.EscapeString(string(blob.Content)) + "</pre>"
	} else {
		if err := rq.fill(out, n, src, hidden); err != nil {
			return nil, err
		}
	}
	if !archived && rq.h.v.Revision(p) != "" {
		if err := rq.backlinks(ctx, out, src, hidden); err != nil {
			return nil, err
		}
		if at == "" {
			if err := rq.ledger(ctx, out); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// ledger adds the note's claims and, for a registered summary, its synthesis
// freshness, as the viewer may see them. A registration that cannot be judged
// leaves synthesis out (read_note does the same).
func (rq *request) ledger(ctx context.Context, out *noteOut) error {
	claims, _, err := rq.vw.NoteClaims(ctx, out.Path, maxClaims)
	if err != nil {
		return err
	}
	out.Claims = claims
	if st, err := rq.vw.SynthesisFreshness(ctx, out.Path, rq.vw.SynthesisBudget()); err == nil {
		out.Synthesis = st
	}
	return nil
}

// read reads p at at ("" for HEAD) as the viewer may; a note archived (not at
// HEAD, in the history) is read as it was just before, with archived true.
func (rq *request) read(ctx context.Context, p note.Path, at string) (*repo.Blob, bool, error) {
	if at != "" || rq.h.v.Revision(p) != "" {
		blob, err := rq.vw.ReadAt(ctx, p, at)
		if errors.Is(err, repo.ErrNotFound) {
			return nil, false, vault.MissingAt(p, at)
		}
		return blob, false, err
	}
	if !rq.vw.Visible(ctx, p) {
		return nil, false, vault.MissingAt(p, "")
	}
	log, _, err := rq.vw.VisibleLog(ctx, p, 0, 1)
	if err != nil {
		return nil, false, err
	}
	if len(log) == 0 || len(log[0].Parents) == 0 {
		return nil, false, vault.MissingAt(p, "")
	}
	blob, err := rq.vw.ReadAt(ctx, p, string(log[0].Parents[0]))
	if errors.Is(err, repo.ErrNotFound) {
		return nil, false, vault.MissingAt(p, "")
	}
	return blob, true, err
}

// fill sets what the parsed note n gives: title, frontmatter, tags, typed edges
// and the rendered body.
func (rq *request) fill(out *noteOut, n *note.Note, src vault.LinkSource, hidden graph.Hidden) error {
	out.Title = n.Title
	if m := vault.FrontmatterJSON(n); m != nil {
		out.Frontmatter = m
	}
	if n.Tags != nil {
		out.Tags = n.Tags
	}
	resolve := func(l note.Link) graph.Resolution {
		res, err := src.ResolveHiding(n.Path, l, hidden)
		if err != nil {
			return graph.Resolution{}
		}
		return res
	}
	for i, l := range note.EdgeLinks(n) {
		e := n.Edges[i]
		eo := edgeOut{Type: e.Type, Target: e.Target, Why: e.Why}
		if res := resolve(l); res.Status == graph.LinkResolved {
			eo.Target, eo.Resolved = string(res.Target), true
		}
		out.Edges = append(out.Edges, eo)
	}
	body, err := renderNote(n, resolve)
	if err != nil {
		return err
	}
	out.HTML = body
	return nil
}

// backlinks lists the links to the note from the notes the viewer sees.
func (rq *request) backlinks(ctx context.Context, out *noteOut, src vault.LinkSource, hidden graph.Hidden) error {
	links, err := src.LinksHiding(out.Path, maxBacklinks, hidden)
	if errors.Is(err, graph.ErrUnknownNote) {
		return nil // not in the index's commit yet
	}
	if err != nil {
		return vault.GraphErr("backlinks", err)
	}
	if len(links.Backlinks) == 0 {
		return nil
	}
	titles := map[note.Path]string{}
	notes, err := src.NotesHiding(hidden)
	if err != nil {
		return vault.GraphErr("backlinks", err)
	}
	for _, n := range notes {
		titles[n.Path] = n.Title
	}
	for _, b := range links.Backlinks {
		t, ok := titles[b.From]
		if !ok {
			continue // fail closed: a source the viewer's list does not hold
		}
		out.Backlinks = append(out.Backlinks, backlinkOut{Source: b.From, Title: t, Line: b.Line, Context: b.Context, Kind: b.Kind, Type: b.Type})
	}
	return nil
}

// --- search ---

// hitOut is one search hit.
type hitOut struct {
	Path    note.Path `json:"path"`
	Title   string    `json:"title"`
	Score   float64   `json:"score"`
	Line    int       `json:"line"`
	Snippet string    `json:"snippet"`
	Matched []string  `json:"matched"`
	Section string    `json:"section,omitempty"`
}

func (rq *request) search(ctx context.Context) (any, error) {
	q := rq.ps.str("q")
	limit := rq.ps.num("limit", 20, 1, 50)
	if rq.ps.err != nil {
		return nil, rq.ps.err
	}
	if strings.TrimSpace(q) == "" {
		return nil, badInput("q is required: the words to search for")
	}
	resp, err := rq.vw.Search(ctx, vault.SearchRequest{Query: q, Limit: limit})
	if err != nil {
		return nil, err
	}
	hits := []hitOut{}
	for _, h := range resp.Hits {
		m := h.Matched
		if m == nil {
			m = []string{}
		}
		hits = append(hits, hitOut{Path: h.Path, Title: h.Title, Score: h.Score, Line: h.Line, Snippet: h.Snippet, Matched: m, Section: h.Section})
	}
	return map[string]any{"engine": resp.Engine, "hits": hits, "total": resp.Total, "index_stale": resp.IndexStale}, nil
}
