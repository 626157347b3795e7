package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/norn-vault/norn/graph"
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
	if !isNote(target) {
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
	name, ok := linkTextFor(ed.scan.resolver, r.From, note.Link{Kind: note.LinkWiki, Target: note.Stem(target)}, target, target)
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
		Message: fmt.Sprintf("link %s -> %s (%s)", r.From, target, typ),
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
		Message: fmt.Sprintf("unlink %s -> %s (%s)", r.From, r.To, what),
		Changes: []repo.Change{{Kind: repo.Put, Path: r.From, Content: out, ExpectedRevision: ed.rev}}})
	if res == nil {
		return nil, err
	}
	return &EdgeResult{Result: res, Target: target}, err
}

// edgeRead is the source note of an edge request and where its To resolves.
type edgeRead struct {
	scan   *vaultNotes
	note   *note.Note
	rev    repo.Revision
	sites  []note.Link // the note's edges as links (note.EdgeLinks)
	link   note.Link   // To as a wikilink
	target graph.Resolution
	to     string
}

// readEdges reads HEAD, the source note and resolves To from it.
func (v *Vault) readEdges(ctx context.Context, r EdgeRequest) (*edgeRead, error) {
	if err := repo.ValidPath(string(r.From)); err != nil {
		return nil, err
	}
	if !isNote(r.From) {
		return nil, fmt.Errorf("%w: %s is not a note (*.md); typed edges live in a note's frontmatter", repo.ErrInvalid, r.From)
	}
	l, err := edgeTarget(r.To)
	if err != nil {
		return nil, err
	}
	vn, err := loadNotes(ctx, v.Vault)
	if err != nil {
		return nil, err
	}
	ed := &edgeRead{scan: vn, link: l, to: r.To}
	for _, n := range vn.notes {
		if n.Path == r.From {
			ed.note = n
		}
	}
	if ed.note == nil {
		return nil, fmt.Errorf("%w: the note %s does not exist at HEAD", repo.ErrNotFound, r.From)
	}
	if _, err := note.Parse(r.From, ed.note.Raw); err != nil {
		return nil, fmt.Errorf("%w: %s cannot be edited until its frontmatter is fixed: %w", repo.ErrInvalid, r.From, err)
	}
	b, err := v.Read(ctx, r.From, vn.commit)
	if err != nil {
		return nil, err
	}
	ed.rev = b.Revision
	if r.ExpectedRevision != "" && r.ExpectedRevision != ed.rev {
		return nil, &repo.ConflictError{Path: r.From, Expected: r.ExpectedRevision, Current: ed.rev, Reason: "the note changed since you read it; re-read and retry"}
	}
	ed.sites = note.EdgeLinks(ed.note)
	ed.target = vn.resolver.Resolve(r.From, l)
	return ed, nil
}

// resolvesTo reports whether edge i of the note resolves to p.
func (ed *edgeRead) resolvesTo(i int, p note.Path) bool {
	res := ed.scan.resolver.Resolve(ed.note.Path, ed.sites[i])
	return res.Status == graph.LinkResolved && res.Target == p
}

// unresolved is the error for a To that is broken or ambiguous.
func (ed *edgeRead) unresolved() error {
	if ed.target.Status == graph.LinkAmbiguous {
		c := make([]string, len(ed.target.Candidates))
		for i, p := range ed.target.Candidates {
			c[i] = string(p)
		}
		return fmt.Errorf("%w: %q is ambiguous: it matches %s; give the note's path", repo.ErrInvalid, ed.to, strings.Join(c, ", "))
	}
	return fmt.Errorf("%w: no note matches %q (by path, file name, title or alias); create it first or check the name", repo.ErrNotFound, ed.to)
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
