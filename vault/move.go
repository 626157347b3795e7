package vault

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// MoveRequest asks to move (or rename) the note From to To and rewrite every link
// to it. ExpectedRevision, when set, must be From's current revision; Author,
// Roles and Message are the commit's (Message empty: a default subject).
type MoveRequest struct {
	From, To         note.Path
	ExpectedRevision repo.Revision
	Author           repo.Author
	Roles            []string
	Message          string
	DryRun           bool
	// Hidden hides notes the requester may not see (nil: none). A hidden From is
	// not found, as a missing one; a hidden To cannot be moved onto (ErrInvalid,
	// never a retryable conflict); a move that would rewrite a hidden note's links
	// is ErrForbidden; no error names a hidden note.
	Hidden graph.Hidden
}

// MoveResult is the commit of a move (or, for a dry run, what it would be) and the
// notes whose links were rewritten, by their path after the move (the moved note
// itself as To when its own links changed), sorted.
type MoveResult struct {
	*repo.Result
	Rewritten []note.Path
}

// ArchiveRequest asks to archive the note (or file) at Path with Reason.
type ArchiveRequest struct {
	Path             note.Path
	Reason           repo.Reason
	ExpectedRevision repo.Revision
	Author           repo.Author
	Roles            []string
	Message          string
	DryRun           bool
	// Hidden hides notes the requester may not see (nil: none): a hidden Path is
	// not found, as a missing one, and the default subject counts only the
	// dangling links of visible notes.
	Hidden graph.Hidden
}

// ArchiveResult is the commit of an archive (or what it would be) and the links in
// other notes that pointed at the archived note, each with where it points once
// the note is gone: status broken for most; resolved (with To) or ambiguous when
// another note answers the same name. Sorted by note and line.
type ArchiveResult struct {
	*repo.Result
	Dangling []LinkRef
}

// MoveNote moves the note r.From to r.To and, in the same commit, rewrites every
// link and typed edge in the vault that resolves to it (graph.Resolver rules,
// docs/vault-format.md) so that it resolves to r.To:
//   - a link keeps its style: a name link [[Old]] becomes [[New]] when that name
//     resolves to the new path from the linking note, else the shortest path form
//     that does ([[folder/New]]); a path link stays a path link; a Markdown link
//     gets the new relative path; aliases, headings, block ids and embeds are kept;
//   - a link that names the note by its title or an alias, and still resolves to
//     it after the move, is left as it is (a rename keeps titles and aliases);
//   - the moved note's own links that would point elsewhere from its new folder
//     (relative Markdown links, a name that the new folder makes ambiguous) are
//     rewritten to keep their targets; its broken relative links keep pointing at
//     the same vault path.
//
// The move is refused (repo.ErrInvalid, changing nothing) when it would change
// where any other existing link resolves, for instance when the new name captures
// links that resolved to another note by title: the error lists them. Links that
// were broken or ambiguous may resolve to the moved note afterwards.
//
// It is one repo transaction (Norn-Op: move): the move, with the moved note's new
// bytes, and a Put of each note whose links changed, each guarded by the revision
// read at the start, so a concurrent edit of any of them is a *repo.ConflictError
// and nothing is written. The write gates see every change (a link inside a
// protected block or in a private note needs the roles those rules ask for).
//
// The plan is committed only on the commit it was worked out at (repo.Tx.Base): a
// note linking to r.From written meanwhile would keep a link the move breaks (or
// be a private note a caller without the private scope may not rewrite). So a
// commit landing in between, or a concurrent edit of a note the move rewrites
// (which the caller did not name), makes the move plan again, up to moveAttempts
// times; then it is a conflict to retry as is.
func (v *Vault) MoveNote(ctx context.Context, r MoveRequest) (*MoveResult, error) {
	// A first plan while writes land: usually it still holds at the commit. Only
	// a note gone from under its view (the index moved on while it read) can be
	// the writes' doing; any other refusal stands.
	plan, planErr := v.planMove(ctx, r)
	if planErr != nil && !errors.Is(planErr, repo.ErrNotFound) {
		return nil, fmt.Errorf("move %s: %w", r.From, planErr)
	}
	for attempt := 1; ; attempt++ {
		// From the last check of the plan to its commit, writes of this process
		// wait. Commits that landed since the plan are mostly about other notes:
		// when none can touch it, it holds at the new HEAD. Otherwise (or when the
		// first plan failed, its view overtaken by the index) it is worked out
		// again with those writes held off, so neither a busy vault nor a stream
		// of new links to the note starves the move.
		v.writeMu.Lock()
		head := string(v.Head())
		switch {
		case planErr != nil || head != plan.base && !plan.stillHolds(ctx, v, repo.CommitID(head)):
			if plan, planErr = v.planMove(ctx, r); planErr != nil {
				v.writeMu.Unlock()
				return nil, fmt.Errorf("move %s: %w", r.From, planErr)
			}
		default:
			plan.base = head
		}
		res, err := v.applyMove(ctx, r, plan)
		v.writeMu.Unlock()
		var stale *repo.StaleBaseError
		var ce *repo.ConflictError
		switch {
		case errors.As(err, &stale):
			// Another process committed meanwhile: check the plan again.
		case errors.As(err, &ce) && ce.Path != "" && ce.Path != r.From && ce.Current != ce.Expected:
			// Another process changed a note the move rewrites (not the caller's
			// conflict: it named r.From; nor a person's uncommitted edit, whose
			// revision is the expected one): plan again.
			planErr = err
		default:
			return res, err
		}
		if attempt == moveAttempts {
			return nil, fmt.Errorf("move %s: %w (the last: %v)", r.From, &repo.ConflictError{Reason: fmt.Sprintf("other processes kept changing the vault where the move reads (%d attempts)", attempt)}, err)
		}
	}
}

// moveAttempts bounds how often MoveNote plans a move again.
const moveAttempts = 5

// stillHolds reports whether no commit between the plan's base and head can change
// what the plan would be: none touched a note it writes, and none wrote a note
// whose path or bytes mention a name of the moved note (its file name, path,
// title or aliases, before or after): only such a note can link to it, or take
// a name its links resolve by. A mention that is no link only costs a new plan.
func (p *movePlan) stillHolds(ctx context.Context, v *Vault, head repo.CommitID) bool {
	changes, err := v.Diff(ctx, p.base, string(head))
	if err != nil {
		return false
	}
	for _, c := range changes {
		for _, q := range []note.Path{c.Path, c.From} {
			if q != "" && p.touches[q] {
				return false
			}
		}
		text := strings.ToLower(string(c.Path) + "\n" + string(c.From))
		if c.Revision != "" {
			b, err := v.ReadRevision(ctx, c.Revision)
			if err != nil {
				return false
			}
			text += "\n" + strings.ToLower(string(b))
		}
		for _, w := range p.words {
			if strings.Contains(text, w) {
				return false
			}
		}
	}
	return true
}

// movePlan is what a move will write.
type movePlan struct {
	changes   []repo.Change
	rewritten []note.Path
	// base is the commit the plan holds at (see stillHolds).
	base string
	// touches holds the paths the plan writes or moves; words the moved note's
	// names, lowercased (stillHolds).
	touches map[note.Path]bool
	words   []string
}

// applyMove commits a planned move.
func (v *Vault) applyMove(ctx context.Context, r MoveRequest, plan *movePlan) (*MoveResult, error) {
	msg := r.Message
	if strings.TrimSpace(msg) == "" {
		msg = fmt.Sprintf("move %s -> %s", r.From, r.To)
		if k := len(plan.rewritten); k > 0 {
			msg += fmt.Sprintf(" (links rewritten in %d notes)", k)
		}
		msg = repo.Subject(msg)
	}
	// Not v.Apply: MoveNote holds writeMu.
	res, err := v.repo.Apply(ctx, repo.Tx{Author: r.Author, Roles: r.Roles, Op: repo.OpMove, Message: msg, Changes: plan.changes, DryRun: r.DryRun,
		Base: repo.CommitID(plan.base)})
	if err != nil {
		err = fmt.Errorf("move %s: %w", r.From, err)
	}
	if res == nil {
		return nil, err
	}
	return &MoveResult{Result: res, Rewritten: plan.rewritten}, err
}

// planMove reads HEAD and works out the changes of a move. It reads only the
// notes involved: From, the notes linking to it, and the notes whose links could
// resolve differently after the move (graph.Index.Referrers), from the index, or
// from every note at HEAD when the index is unavailable.
func (v *Vault) planMove(ctx context.Context, r MoveRequest) (*movePlan, error) {
	for _, p := range []note.Path{r.From, r.To} {
		if err := repo.ValidPath(string(p)); err != nil {
			if p == r.To && v.Settings != nil {
				// The new path is written: its refusal names the gate rule, as a
				// write's does (From names a note, which either exists or not).
				prop := &repo.Proposal{Author: r.Author, Roles: r.Roles, Op: repo.OpMove,
					Changes: []repo.ProposedChange{{Kind: repo.Move, Path: r.To, From: r.From}}}
				if gerr := v.Settings.PathGate(ctx, prop); gerr != nil {
					return nil, gerr
				}
			}
			return nil, err
		}
		if !note.IsNote(p) {
			return nil, fmt.Errorf("%w: %s is not a note: a move takes notes (*.md), whose links it rewrites", repo.ErrInvalid, p)
		}
	}
	if r.From == r.To {
		return nil, fmt.Errorf("%w: move %s onto itself", repo.ErrInvalid, r.From)
	}
	for attempt := 1; ; attempt++ {
		lv, err := v.linkView(ctx)
		if err != nil {
			return nil, err
		}
		plan, err := planMoveIn(ctx, lv, r)
		if plan != nil {
			plan.base = lv.commit
		}
		if lv.current() || attempt == 3 {
			return plan, err
		}
		// A write landed while the plan was read: plan again at the new HEAD.
	}
}

// errNoNote is the error for a note that is not at HEAD (or is hidden from the
// requester, who gets the very same answer).
func errNoNote(p note.Path) error {
	return fmt.Errorf("%w: %s does not exist at HEAD", repo.ErrNotFound, p)
}

// namesChanged reports whether b names itself otherwise than a does, to the
// resolver: title, aliases or headings.
func namesChanged(a, b *note.Note) bool {
	if a == nil || b == nil || a.Title != b.Title || !slices.Equal(a.Aliases, b.Aliases) || len(a.Headings) != len(b.Headings) {
		return true
	}
	for i, h := range a.Headings {
		if h.Text != b.Headings[i].Text || h.Level != b.Headings[i].Level {
			return true
		}
	}
	return false
}

// ArchiveNote archives the note (or file) at r.Path with r.Reason and returns the
// links other notes have to it, which the archive leaves dangling, each with its
// line and context (from the index, or from every note at HEAD when the index is
// unavailable). A dry run reports them and writes nothing. The archive is
// guarded by the revision read (r.ExpectedRevision when set), so the list is the
// one for the note archived; a note changed meanwhile is a *repo.ConflictError.
func (v *Vault) ArchiveNote(ctx context.Context, r ArchiveRequest) (*ArchiveResult, error) {
	if err := repo.ValidPath(string(r.Path)); err != nil {
		return nil, fmt.Errorf("archive %s: %w", r.Path, err)
	}
	if !r.Reason.Valid() {
		return nil, fmt.Errorf("archive %s: %w: reason %q: give archived, superseded or retracted", r.Path, repo.ErrInvalid, r.Reason)
	}
	var rev repo.Revision
	var dangling []LinkRef
	for attempt := 1; ; attempt++ {
		lv, err := v.linkView(ctx)
		if err != nil {
			return nil, fmt.Errorf("archive %s: %w", r.Path, err)
		}
		if r.Hidden != nil && r.Hidden(r.Path) {
			return nil, fmt.Errorf("archive %s: %w", r.Path, errNoNote(r.Path))
		}
		rev, dangling, err = danglingLinks(ctx, lv, r.Path, r.Hidden)
		if err != nil {
			return nil, fmt.Errorf("archive %s: %w", r.Path, err)
		}
		if lv.current() || attempt == 3 {
			break
		}
	}
	if r.ExpectedRevision != "" && r.ExpectedRevision != rev {
		return nil, fmt.Errorf("archive %s: %w", r.Path, &repo.ConflictError{Path: r.Path, Expected: r.ExpectedRevision, Current: rev, Reason: "the note changed since you read it; re-read and retry"})
	}
	msg := r.Message
	if strings.TrimSpace(msg) == "" && len(dangling) > 0 {
		msg = repo.Subject(fmt.Sprintf("archive %s (%s; leaves %d links dangling)", r.Path, r.Reason, len(dangling)))
	}
	res, err := v.Apply(ctx, repo.Tx{Author: r.Author, Roles: r.Roles, Op: repo.OpArchive, Reason: r.Reason, Message: msg, DryRun: r.DryRun,
		Changes: []repo.Change{{Kind: repo.Archive, Path: r.Path, ExpectedRevision: rev}}})
	if err != nil {
		err = fmt.Errorf("archive %s: %w", r.Path, err)
	}
	if res == nil {
		return nil, err
	}
	return &ArchiveResult{Result: res, Dangling: dangling}, err
}

// danglingLinks returns the revision of the file at p and the links of other
// notes to it, each resolved as it will be once p is gone, sorted by note and
// line, as seen by a requester from whom hidden hides some notes: in the vault
// without them. The note's links to itself are not listed.
func danglingLinks(ctx context.Context, lv *linkView, p note.Path, hidden graph.Hidden) (repo.Revision, []LinkRef, error) {
	rev, err := lv.revision(ctx, p)
	if err != nil {
		return "", nil, err
	}
	if rev == "" {
		return "", nil, errNoNote(p)
	}
	in, err := lv.src.InboundHiding(p, hidden)
	if err != nil {
		return "", nil, GraphErr("inbound links", err)
	}
	dangling := make([]LinkRef, 0, len(in))
	if len(in) == 0 {
		return rev, dangling, nil
	}
	r, _, err := lv.src.Resolver()
	if err != nil {
		return "", nil, GraphErr("inbound links", err)
	}
	r1 := r.With([]note.Path{p}, nil)
	for _, d := range in {
		l := note.Link{Kind: note.LinkKind(d.Kind), Target: d.Target, Heading: d.Heading}
		if d.Kind == graph.EdgeKindTyped {
			// A typed edge's context is its `to:` line, as a body link's is its line.
			l.Kind = note.LinkWiki
			n, _, err := lv.note(ctx, d.From)
			if err != nil {
				return "", nil, err
			}
			d.Context = ""
			if site, ok := edgeSite(n, d); ok {
				d.Line, d.Context = site.Line, note.LineAt(n.Raw, site.Start)
			}
		}
		a := r1.ResolveHiding(d.From, l, hidden)
		d.Status, d.To, d.Candidates, d.HeadingMissing = a.Status, "", a.Candidates, false
		if a.Status == graph.LinkResolved {
			d.To = a.Target
			d.HeadingMissing = l.Heading != "" && !a.HeadingFound
		}
		dangling = append(dangling, d)
	}
	sort.SliceStable(dangling, func(i, j int) bool {
		if dangling[i].From != dangling[j].From {
			return dangling[i].From < dangling[j].From
		}
		return dangling[i].Line < dangling[j].Line
	})
	return rev, dangling, nil
}

// edgeSite finds the typed edge d of n (by line, type and target) as
// note.EdgeLinks gives it, with where its `to` is written.
func edgeSite(n *note.Note, d LinkRef) (note.Link, bool) {
	sites := note.EdgeLinks(n)
	for i, e := range n.Edges {
		if i < len(sites) && e.Line == d.Line && e.Type == d.Type && sites[i].End > 0 {
			return sites[i], true
		}
	}
	return note.Link{}, false
}

// resolver resolves links: a *graph.Resolver, or a linkView.
type resolver interface {
	Resolve(from note.Path, l note.Link) graph.Resolution
}

// sitesOf lists a note's typed edges (their `to`) then its links, the order
// note.RewriteLinks visits them in.
func sitesOf(n *note.Note) []note.Link {
	return append(note.EdgeLinks(n), n.Links...)
}

// isRelative reports whether l resolves by its path relative to its note.
func isRelative(l note.Link) bool {
	t := strings.TrimSpace(l.Target)
	return l.Kind == note.LinkMarkdown || strings.HasPrefix(t, "./") || strings.HasPrefix(t, "../")
}

// namesFile reports whether l names the file p by its path: relative links, and
// wikilinks matching p's path, a path suffix or its file name (as opposed to its
// title or an alias, which a rename keeps, and which Obsidian does not resolve).
func namesFile(l note.Link, p note.Path) bool {
	if isRelative(l) {
		return true
	}
	key := strings.TrimSuffix(strings.ToLower(strings.TrimLeft(strings.TrimSpace(l.Target), "/")), ".md")
	pk := strings.TrimSuffix(strings.ToLower(string(p)), ".md")
	return key != "" && (key == pk || strings.HasSuffix(pk, "/"+key))
}

// linkTextFor returns a target for l, written in src, that resolves to want with r,
// in l's style: a relative path for a relative link; for a name link the file
// name, else the shortest path that works; for a path link the shortest path (the
// whole path when l named its old target, was, by its whole path). ".md" and a
// leading "/" are kept when l had them. When heading is true the link's heading
// must be found in want too; a heading that was already missing stays as written
// and need not be found (the link still names the note). whole writes a name
// link as want's whole path (link_notes for a requester from whom notes are
// hidden: the shortest name would depend on them, as a hidden note sharing a
// file name makes it longer, while the whole path resolves to want whatever
// notes exist).
func linkTextFor(r resolver, src note.Path, l note.Link, want, was note.Path, heading, whole bool) (string, bool) {
	resolves := func(t string) bool {
		c := l
		c.Target = t
		res := r.Resolve(src, c)
		return res.Status == graph.LinkResolved && res.Target == want && (res.HeadingFound || !heading || l.Heading == "")
	}
	old := strings.TrimSpace(l.Target)
	if isRelative(l) {
		t := note.RelativeTarget(src, want, old)
		if l.Kind != note.LinkMarkdown && !strings.HasPrefix(t, "./") && !strings.HasPrefix(t, "../") {
			t = "./" + t
		}
		return t, resolves(t)
	}
	lead := strings.HasPrefix(old, "/")
	bare := strings.TrimLeft(old, "/")
	pathStyle := strings.Contains(bare, "/")
	withMD := note.IsNote(note.Path(bare))
	name := string(want) // attachments keep their extension
	ext := ""
	if note.IsNote(want) {
		name, ext = name[:len(name)-3], name[len(name)-3:]
	}
	key := func(s string) string { return strings.TrimSuffix(strings.ToLower(s), ".md") }
	wholePath := key(bare) == key(string(was))
	parts := strings.Split(name, "/")
	var cands []string
	if !pathStyle {
		cands = append(cands, parts[len(parts)-1])
	}
	if !wholePath {
		for k := len(parts) - 2; k >= 1; k-- {
			cands = append(cands, strings.Join(parts[k:], "/"))
		}
	}
	if whole {
		cands = nil
	}
	cands = append(cands, name)
	for _, c := range cands {
		if withMD {
			c += ext
		}
		if lead && strings.Contains(c, "/") {
			c = "/" + c
		}
		if resolves(c) {
			return c, true
		}
	}
	return "", false
}

// linkText is the link as written in n, for messages.
func linkText(n *note.Note, l note.Link) string {
	if l.End > l.Start && l.End <= len(n.Raw) {
		s := string(n.Raw[l.Start:l.End])
		if len(s) > 120 {
			s = s[:120] + "…"
		}
		return s
	}
	return fmt.Sprintf("%q", l.Target)
}

// describe says where a link resolves instead of want.
func describe(a graph.Resolution, want note.Path) string {
	switch a.Status {
	case graph.LinkResolved:
		if a.Target == want {
			return "lose its heading"
		}
		return "resolve to " + string(a.Target)
	case graph.LinkAmbiguous:
		parts := make([]string, len(a.Candidates))
		for i, c := range a.Candidates {
			parts[i] = string(c)
		}
		return "be ambiguous between " + strings.Join(parts, ", ")
	}
	return "be broken"
}

// parseAt parses raw as the note at p the way loadNotes does: a note whose
// frontmatter breaks the codec's rules keeps the links of its body.
func parseAt(p note.Path, raw []byte) *note.Note {
	if n, err := note.Parse(p, raw); err == nil {
		return n
	}
	n := &note.Note{Path: p, Raw: raw, Title: note.Stem(p), TitleSource: note.TitleFromPath}
	if body := bodyAfterFrontmatter(raw); body != nil {
		if bn, err := note.Parse(p, body); err == nil {
			off := len(raw) - len(body)
			lines := bytes.Count(raw[:off], []byte("\n"))
			for _, l := range bn.Links {
				l.Line, l.Start, l.End = l.Line+lines, l.Start+off, l.End+off
				n.Links = append(n.Links, l)
			}
		}
	}
	return n
}
