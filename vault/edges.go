package vault

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// EdgeRequest asks to add or remove a typed edge From → To. To is a note's path
// ("tech/bloom.md") or a wikilink name as one would write it ("Bloom filters",
// "[[Bloom filters]]", with an optional "#heading"). Type is required to link and
// optional to unlink (empty: every edge to To); Why is the link's justification.
// ExpectedRevision, when set, must be From's current revision; empty means the
// revision read at the start (the write is still a compare-and-swap).
type EdgeRequest struct {
	From             note.Path
	To               string
	Type, Why        string
	ExpectedRevision repo.Revision
	Author           repo.Author
	Roles            []string
	DryRun           bool
	// Message is the commit subject; empty: "link FROM -> TO (TYPE)" (or unlink).
	Message string
	// Hidden hides notes the requester may not see (nil: none): a hidden From is
	// not found, as a missing one; To resolves as if hidden notes were not there
	// (but a name ambiguous in the whole vault stays ambiguous: the edge is
	// written for everyone), and an error about an ambiguous To does not name them.
	Hidden graph.Hidden
}

// EdgeResult is the commit (or, for a dry run, what it would be) and the note the
// edge points at ("" when unlinking an edge whose target no longer resolves).
type EdgeResult struct {
	*repo.Result
	Target note.Path
}

// LinkNotes adds {to: "[[name]]", type, why} to the `edges:` list of From's
// frontmatter, in one commit on From (Norn-Op: link). name is the shortest
// wikilink that resolves to the target from From (its file name, else a path).
// Every other byte of the note stays as it was (note.AddEdge).
//
// Errors: repo.ErrNotFound when From does not exist or To matches no note;
// repo.ErrInvalid when To is ambiguous (the message lists the candidates), names
// From itself or an attachment, when From already has an edge of that type to that
// note, or when Type is empty; a *repo.ConflictError when From changed. The write
// gates then judge the whole note (repo.ErrRejected wrapping *hooks.Rejection): an
// unregistered type is edge-type-unknown (the message lists the registered ones),
// a short why edge-why-short, a why that only restates the type and target
// edge-why-restates.
func (v *Vault) LinkNotes(ctx context.Context, r EdgeRequest) (*EdgeResult, error) {
	res, err := v.linkNotes(ctx, r)
	if err != nil {
		err = fmt.Errorf("link %s -> %s: %w", r.From, r.To, err)
	}
	return res, err
}

func (v *Vault) linkNotes(ctx context.Context, r EdgeRequest) (*EdgeResult, error) {
	typ := strings.TrimSpace(r.Type)
	if typ == "" {
		cfg, _, _ := v.Settings.Current(ctx)
		return nil, fmt.Errorf("%w: an edge needs a type: one of %s (edges.types)", repo.ErrInvalid, strings.Join(cfg.Edges.Types, ", "))
	}
	ed, err := v.readEdges(ctx, r)
	if err != nil {
		return nil, err
	}
	if ed.target.Status != graph.LinkResolved {
		return nil, ed.unresolved()
	}
	target := ed.target.Target
	if !note.IsNote(target) {
		return nil, fmt.Errorf("%w: %s is an attachment, not a note; typed edges point at notes", repo.ErrInvalid, target)
	}
	if target == r.From {
		return nil, fmt.Errorf("%w: %q is %s itself (rule edge-self): point the edge at another note", repo.ErrInvalid, r.To, r.From)
	}
	for i, e := range ed.note.Edges {
		if e.Type == typ && ed.resolvesTo(i, target) {
			return nil, fmt.Errorf("%w: %s already has a %s edge to %s (line %d); unlink it first to change its why", repo.ErrInvalid, r.From, typ, target, e.Line)
		}
	}
	l := ed.link
	name, ok := linkTextFor(ed.view, r.From, note.Link{Kind: note.LinkWiki, Target: note.Stem(target)}, target, target, false, ed.hidden != nil)
	if !ok {
		return nil, fmt.Errorf("%w: no wikilink from %s names %s unambiguously", repo.ErrInvalid, r.From, target)
	}
	to := name
	if l.Heading != "" {
		to += "#" + l.Heading
	} else if l.Block != "" {
		to += "#^" + l.Block
	}
	if l.Alias != "" {
		to += "|" + l.Alias
	}
	out, err := note.AddEdge(ed.note.Raw, note.Edge{To: "[[" + to + "]]", Type: typ, Why: strings.TrimSpace(r.Why)})
	if err != nil {
		return nil, fmt.Errorf("%w: cannot edit the frontmatter of %s: %w", repo.ErrInvalid, r.From, err)
	}
	res, err := v.Apply(ctx, repo.Tx{Author: r.Author, Roles: r.Roles, Op: repo.OpLink, DryRun: r.DryRun,
		Message: cmp.Or(r.Message, repo.Subject(fmt.Sprintf("link %s -> %s (%s)", r.From, target, typ))),
		Changes: []repo.Change{{Kind: repo.Put, Path: r.From, Content: out, ExpectedRevision: ed.rev}}})
	if res == nil {
		return nil, err
	}
	return &EdgeResult{Result: res, Target: target}, err
}

// UnlinkNotes removes From's typed edges to To (of type Type, or of every type
// when Type is empty) in one commit on From (Norn-Op: link). An edge matches when
// its `to` resolves to the note To names, or, for a target that no longer
// resolves, when its `to` names To as written (case-insensitively). No matching
// edge is repo.ErrNotFound, with the note's edges listed.
func (v *Vault) UnlinkNotes(ctx context.Context, r EdgeRequest) (*EdgeResult, error) {
	res, err := v.unlinkNotes(ctx, r)
	if err != nil {
		err = fmt.Errorf("unlink %s -> %s: %w", r.From, r.To, err)
	}
	return res, err
}

func (v *Vault) unlinkNotes(ctx context.Context, r EdgeRequest) (*EdgeResult, error) {
	ed, err := v.readEdges(ctx, r)
	if err != nil {
		return nil, err
	}
	typ := strings.TrimSpace(r.Type)
	target := note.Path("")
	if ed.target.Status == graph.LinkResolved {
		target = ed.target.Target
	}
	written := strings.ToLower(strings.TrimSuffix(ed.link.Target, ".md"))
	match := func(i int, e note.Edge) bool {
		if typ != "" && e.Type != typ {
			return false
		}
		if target != "" && ed.resolvesTo(i, target) {
			return true
		}
		return strings.ToLower(strings.TrimSuffix(ed.sites[i].Target, ".md")) == written
	}
	out, n, err := note.RemoveEdges(ed.note.Raw, match)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot edit the frontmatter of %s: %w", repo.ErrInvalid, r.From, err)
	}
	if n == 0 {
		if target == "" && ed.target.Status == graph.LinkAmbiguous {
			return nil, ed.unresolved()
		}
		var have []string
		for _, e := range ed.note.Edges {
			have = append(have, fmt.Sprintf("%s %s (line %d)", e.Type, e.To, e.Line))
		}
		list := "it has none"
		if len(have) > 0 {
			list = "it has " + strings.Join(have, ", ")
		}
		kind := "edge"
		if typ != "" {
			kind = typ + " edge"
		}
		return nil, fmt.Errorf("%w: %s has no %s to %s; %s", repo.ErrNotFound, r.From, kind, r.To, list)
	}
	what := typ
	if what == "" {
		what = "all types"
	}
	res, err := v.Apply(ctx, repo.Tx{Author: r.Author, Roles: r.Roles, Op: repo.OpLink, DryRun: r.DryRun,
		Message: cmp.Or(r.Message, repo.Subject(fmt.Sprintf("unlink %s -> %s (%s)", r.From, r.To, what))),
		Changes: []repo.Change{{Kind: repo.Put, Path: r.From, Content: out, ExpectedRevision: ed.rev}}})
	if res == nil {
		return nil, err
	}
	return &EdgeResult{Result: res, Target: target}, err
}

// edgeRead is the source note of an edge request and where its To resolves.
type edgeRead struct {
	view   *linkView
	note   *note.Note
	rev    repo.Revision
	sites  []note.Link // the note's edges as links (note.EdgeLinks)
	link   note.Link   // To as a wikilink
	target graph.Resolution
	to     string
	hidden graph.Hidden // EdgeRequest.Hidden
}

// readEdges reads the source note at HEAD and resolves To from it, with the index
// (or, when it is unavailable, every note at HEAD in memory).
func (v *Vault) readEdges(ctx context.Context, r EdgeRequest) (*edgeRead, error) {
	if err := repo.ValidPath(string(r.From)); err != nil {
		return nil, err
	}
	if !note.IsNote(r.From) {
		return nil, fmt.Errorf("%w: %s is not a note (*.md); typed edges live in a note's frontmatter", repo.ErrInvalid, r.From)
	}
	l, err := edgeTarget(r.To)
	if err != nil {
		return nil, err
	}
	lv, err := v.linkView(ctx)
	if err != nil {
		return nil, err
	}
	n, rev, err := lv.note(ctx, r.From)
	if errors.Is(err, repo.ErrNotFound) || err == nil && r.Hidden != nil && r.Hidden(r.From) {
		return nil, fmt.Errorf("%w: the note %s does not exist at HEAD", repo.ErrNotFound, r.From)
	}
	if err != nil {
		return nil, err
	}
	if _, err := note.Parse(r.From, n.Raw); err != nil {
		return nil, fmt.Errorf("%w: %s cannot be edited until its frontmatter is fixed: %w", repo.ErrInvalid, r.From, err)
	}
	if r.ExpectedRevision != "" && r.ExpectedRevision != rev {
		return nil, &repo.ConflictError{Path: r.From, Expected: r.ExpectedRevision, Current: rev, Reason: "the note changed since you read it; re-read and retry"}
	}
	ed := &edgeRead{view: lv, note: n, rev: rev, link: l, to: r.To, hidden: r.Hidden, sites: note.EdgeLinks(n)}
	// To the requester the hidden notes are not there: a name one of them answers
	// is broken, or names the visible note it would otherwise shadow or be
	// ambiguous with.
	if ed.target, err = lv.src.ResolveHiding(r.From, l, r.Hidden); err != nil {
		return nil, GraphErr("resolve", err)
	}
	return ed, nil
}

// resolvesTo reports whether edge i of the note resolves to p.
func (ed *edgeRead) resolvesTo(i int, p note.Path) bool {
	res := ed.view.Resolve(ed.note.Path, ed.sites[i])
	return res.Status == graph.LinkResolved && res.Target == p
}

// unresolved is the error for a To that is broken or ambiguous.
func (ed *edgeRead) unresolved() error {
	if ed.target.Status == graph.LinkAmbiguous {
		var c []note.Path
		for _, p := range ed.target.Candidates {
			if ed.hidden == nil || !ed.hidden(p) {
				c = append(c, p)
			}
		}
		if len(c) == 0 {
			return fmt.Errorf("%w: %q is ambiguous; give the note's path", repo.ErrInvalid, ed.to)
		}
		return &AmbiguousNameError{Name: ed.to, Candidates: c}
	}
	return noNameMatch(ed.to)
}

// edgeTarget reads an edge request's To: a path or a name, bare or as "[[...]]".
func edgeTarget(to string) (note.Link, error) {
	s := strings.TrimSpace(to)
	if inner, ok := strings.CutPrefix(s, "[["); ok {
		s, ok = strings.CutSuffix(inner, "]]")
		if !ok {
			return note.Link{}, fmt.Errorf("%w: to %q opens [[ without closing ]]", repo.ErrInvalid, to)
		}
	}
	if s == "" || strings.ContainsAny(s, "\n\r") || strings.Contains(s, "[[") || strings.Contains(s, "]]") {
		return note.Link{}, fmt.Errorf("%w: to %q names no note: give a path (tech/bloom.md) or a name (Bloom filters)", repo.ErrInvalid, to)
	}
	n, err := note.Parse("", []byte("[["+s+"]]"))
	if err != nil || len(n.Links) != 1 || n.Links[0].Target == "" {
		return note.Link{}, fmt.Errorf("%w: to %q names no note: give a path (tech/bloom.md) or a name (Bloom filters)", repo.ErrInvalid, to)
	}
	return n.Links[0], nil
}

// edgeTargets is the gates' hooks.EdgeResolver for a proposal's changes: an edge
// resolves against the index at HEAD as the proposal would leave it (the notes it
// writes, moves and archives). Most edges name notes the proposal does not touch,
// and the index answers them directly; the others are resolved against a copy of
// the index's resolver with the proposal applied (graph.Resolver.With). It is nil,
// and the edge-target rules are skipped, when the index is missing or not at
// HEAD: a gate runs inside the commit and cannot wait for the index to catch up.
//
// hidden (nil: none) hides the notes the writer may not see, as link_notes'
// EdgeRequest.Hidden does: every edge resolves as if hidden notes did not exist
// (a name only a hidden note answers names no note, so it is refused exactly as a
// missing one is; one a hidden note makes ambiguous names the visible note).
func (x *Indexer) edgeTargets(changes []hooks.Change, hidden graph.Hidden) hooks.EdgeResolver {
	ix, _ := x.index()
	head := string(x.vault.Head())
	if ix == nil || ix.Commit() != head {
		return nil
	}
	var gone []note.Path
	var added []*note.Note
	touched := map[note.Path]bool{}
	for _, c := range changes {
		switch c.Kind {
		case hooks.KindArchive:
			gone = append(gone, c.Path)
		case hooks.KindMove:
			gone = append(gone, c.From)
		}
		touched[c.Path] = true
		if c.From != "" {
			touched[c.From] = true
		}
		if c.New != nil && note.IsNote(c.Path) {
			added = append(added, parseAt(c.Path, c.New))
		}
	}
	own := graph.NewResolver(added) // the proposal's notes alone
	var after *graph.Resolver
	// resolve resolves l from the note at from, hiding hidden (nil: nothing).
	resolve := func(from note.Path, l note.Link, hidden graph.Hidden) (graph.Resolution, bool) {
		res, err := ix.ResolveHiding(from, l, hidden)
		if err != nil {
			return graph.Resolution{}, false
		}
		if own.Resolve(from, l).Status != graph.LinkBroken || touched[res.Target] || slices.ContainsFunc(res.Candidates, func(p note.Path) bool { return touched[p] }) {
			if after == nil {
				r, commit, err := ix.Resolver()
				if err != nil || commit != head {
					return graph.Resolution{}, false
				}
				after = r.With(gone, added)
			}
			res = after.ResolveHiding(from, l, hidden)
		}
		return res, true
	}
	return func(from note.Path, e note.Edge) hooks.EdgeTarget {
		l := note.Link{Kind: note.LinkWiki, Target: e.Target}
		if i := strings.IndexByte(l.Target, '#'); i >= 0 {
			l.Target, l.Heading = l.Target[:i], l.Target[i+1:]
		}
		// As the writer sees the vault: without the notes hidden from it, so that
		// a name a hidden note answers is judged as if that note did not exist.
		res, ok := resolve(from, l, hidden)
		if !ok {
			return hooks.EdgeTarget{}
		}
		switch res.Status {
		case graph.LinkResolved:
			return hooks.EdgeTarget{Known: true, Path: res.Target}
		case graph.LinkAmbiguous:
			return hooks.EdgeTarget{Known: true, Candidates: res.Candidates}
		}
		return hooks.EdgeTarget{Known: true}
	}
}
