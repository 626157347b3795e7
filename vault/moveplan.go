package vault

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// planMoveIn works out a move's plan from the links lv reads (planMove retries it
// when a write lands meanwhile).
func planMoveIn(ctx context.Context, lv *linkView, r MoveRequest) (*movePlan, error) {
	m := &movePlanner{lv: lv, r: r}
	from, fromRev, err := m.checkEnds(ctx)
	if err != nil {
		return nil, err
	}
	inbound, err := lv.src.Inbound(r.From)
	if err != nil {
		return nil, GraphErr("move", err)
	}
	if m.before, _, err = lv.src.Resolver(); err != nil {
		return nil, GraphErr("move", err)
	}

	// Names after the move: the moved note at its new path (its title may come
	// from the file name), everything else as it is.
	moved0 := parseAt(r.To, from.Raw)
	r1 := m.before.With([]note.Path{r.From}, []*note.Note{moved0})

	// Rewrite the notes linking to From, and From itself.
	sources := map[note.Path]bool{r.From: true}
	order := []note.Path{r.From}
	for _, in := range inbound {
		if !sources[in.From] {
			sources[in.From] = true
			order = append(order, in.From)
		}
	}
	newBytes, err := m.rewrite(ctx, r1, order)
	if err != nil {
		return nil, err
	}

	// The notes as the move leaves them (by path before the move), and a resolver
	// over the vault after it.
	final, names, rf := m.afterMove(ctx, from, moved0, newBytes)

	// Check every link that can resolve differently after the move: those of the
	// rewritten notes and of every note whose links meet a name that changes
	// (From's, its new one's, a rewritten note's changed title, aliases or
	// headings). Each that resolved still resolves to the same note (the moved
	// one at its new path).
	check, err := m.checkLinks(ctx, names, order, sources, final, rf)
	if err != nil {
		return nil, err
	}
	return m.plan(ctx, fromRev, names, check, newBytes)
}

// movePlanner is one planning of a move: the request, the links it reads, and
// the resolver over the vault before the move.
type movePlanner struct {
	lv     *linkView
	r      MoveRequest
	before *graph.Resolver
}

func (m *movePlanner) hidden(p note.Path) bool { return m.r.Hidden != nil && m.r.Hidden(p) }

// name is how a message names p: not at all when it is hidden.
func (m *movePlanner) name(p note.Path) string {
	if m.hidden(p) {
		return "a note you cannot see"
	}
	return string(p)
}

// after is where the note at p is after the move.
func (m *movePlanner) after(p note.Path) note.Path {
	if p == m.r.From {
		return m.r.To
	}
	return p
}

// checkEnds reads the note to move and checks the move's ends: From exists and
// is visible (and at ExpectedRevision, when given), To is free.
func (m *movePlanner) checkEnds(ctx context.Context) (*note.Note, repo.Revision, error) {
	from, fromRev, err := m.lv.note(ctx, m.r.From)
	if errors.Is(err, repo.ErrNotFound) || err == nil && m.hidden(m.r.From) {
		return nil, "", errNoNote(m.r.From)
	}
	if err != nil {
		return nil, "", err
	}
	if rev, err := m.lv.revision(ctx, m.r.To); err != nil {
		return nil, "", err
	} else if rev != "" && m.hidden(m.r.To) {
		// Not a conflict: retrying cannot help, and the revision is not the caller's.
		return nil, "", fmt.Errorf("%w: %s is taken by a note you cannot see, and a move never overwrites: choose another path", repo.ErrInvalid, m.r.To)
	} else if rev != "" {
		// Not a conflict either: no revision makes a move overwrite.
		return nil, "", fmt.Errorf("%w: %s exists (revision %s), and a move never overwrites: choose another path, or archive that note first", repo.ErrInvalid, m.r.To, rev)
	}
	if m.r.ExpectedRevision != "" && m.r.ExpectedRevision != fromRev {
		return nil, "", &repo.ConflictError{Path: m.r.From, Expected: m.r.ExpectedRevision, Current: fromRev, Reason: "the note changed since you read it; re-read and retry"}
	}
	return from, fromRev, nil
}

// rewrite works out the new bytes of the notes in order (From and the notes
// linking to it), by path before the move; a note whose links need no change is
// left out. r1 resolves names after the move.
func (m *movePlanner) rewrite(ctx context.Context, r1 *graph.Resolver, order []note.Path) (map[note.Path][]byte, error) {
	newBytes := map[note.Path][]byte{} // by path before the move
	for _, p := range order {
		n, _, err := m.lv.note(ctx, p)
		if err != nil {
			return nil, err
		}
		src := m.after(p)
		var decide []string // per site: the new target, or "\x00" to keep
		for _, l := range sitesOf(n) {
			keep := "\x00"
			b := m.before.Resolve(p, l)
			switch {
			case b.Status == graph.LinkResolved && (p == m.r.From || b.Target == m.r.From):
				// Links to the note move with it; the moved note's own links keep
				// their targets. Other links are only checked (below).
				want := m.after(b.Target)
				a := r1.Resolve(src, l)
				if a.Status == graph.LinkResolved && a.Target == want && (a.HeadingFound || !b.HeadingFound) &&
					(b.Target != m.r.From || !namesFile(l, m.r.From)) {
					break // still right, by a title or an alias, or from the new folder
				}
				t, ok := linkTextFor(r1, src, l, want, b.Target, b.HeadingFound, false)
				if !ok {
					if m.hidden(p) {
						return nil, fmt.Errorf("%w: moving %s would rewrite links in notes you cannot see: ask the vault's owner, or someone with the private scope, to move it", ErrForbidden, m.r.From)
					}
					return nil, fmt.Errorf("%w: %s:%d: no link from %s can name %s unambiguously (%s)", repo.ErrInvalid, p, l.Line, src, m.name(want), linkText(n, l))
				}
				keep = t
			case p == m.r.From && isRelative(l):
				// A broken relative link keeps naming the same vault path.
				abs := path.Join(m.r.From.Folder(), strings.TrimSpace(l.Target))
				if abs == "." || abs == ".." || strings.HasPrefix(abs, "../") {
					break
				}
				t := note.RelativeTarget(src, note.Path(abs), strings.TrimSpace(l.Target))
				if l.Kind != note.LinkMarkdown && !strings.HasPrefix(t, "./") && !strings.HasPrefix(t, "../") {
					t = "./" + t
				}
				keep = t
			}
			decide = append(decide, keep)
		}
		i := 0
		out, err := note.RewriteLinks(n, func(l note.Link) (string, bool) {
			t := decide[i]
			i++
			return t, t != "\x00"
		})
		if err != nil {
			return nil, fmt.Errorf("%w: rewrite the links of %s: %w", repo.ErrInvalid, p, err)
		}
		if !bytes.Equal(out, n.Raw) {
			if m.hidden(p) {
				// Its links cannot be left behind (they would break) nor rewritten by
				// someone who may not see it; nor may the refusal name it.
				return nil, fmt.Errorf("%w: moving %s would rewrite links in notes you cannot see: ask the vault's owner, or someone with the private scope, to move it", ErrForbidden, m.r.From)
			}
			newBytes[p] = out
		}
	}

	return newBytes, nil
}

// afterMove returns the notes as the move leaves them (by path before the move),
// the notes whose names change (before and after), and a resolver over the vault
// after the move.
func (m *movePlanner) afterMove(ctx context.Context, from, moved0 *note.Note, newBytes map[note.Path][]byte) (map[note.Path]*note.Note, []*note.Note, *graph.Resolver) {
	final := map[note.Path]*note.Note{m.r.From: moved0}
	for p, b := range newBytes {
		final[p] = parseAt(m.after(p), b)
	}
	gone := make([]note.Path, 0, len(final))
	added := make([]*note.Note, 0, len(final))
	names := []*note.Note{from, moved0, final[m.r.From]}
	for p, f := range final {
		gone = append(gone, p)
		added = append(added, f)
		if p != m.r.From {
			if n, _, _ := m.lv.note(ctx, p); namesChanged(n, f) {
				names = append(names, n, f)
			}
		}
	}
	return final, names, m.before.With(gone, added)

}

// checkLinks checks every link of the notes in order and of the notes referring
// to names: each that resolved before the move must resolve to the same note
// after it (by rf). It returns the notes checked.
func (m *movePlanner) checkLinks(ctx context.Context, names []*note.Note, order []note.Path, sources map[note.Path]bool,
	final map[note.Path]*note.Note, rf *graph.Resolver) ([]note.Path, error) {
	referrers, err := m.lv.src.Referrers(names)
	if err != nil {
		return nil, GraphErr("move", err)
	}
	check := append(slices.Clone(order), referrers...)
	slices.Sort(check)
	check = slices.Compact(check)
	var problems []string
	captured, hiddenProblem := 0, false
	for _, p := range check {
		n, _, err := m.lv.note(ctx, p)
		if err != nil {
			return nil, err
		}
		f := n // the note after the move
		if fn, ok := final[p]; ok {
			f = fn
		}
		was, now := sitesOf(n), sitesOf(f)
		if len(was) != len(now) {
			return nil, fmt.Errorf("%w: rewriting %s changed its number of links", repo.ErrInvalid, n.Path)
		}
		for k, l := range was {
			b := m.before.Resolve(n.Path, l)
			if b.Status != graph.LinkResolved {
				continue
			}
			want := m.after(b.Target)
			a := rf.Resolve(f.Path, now[k])
			if a.Status == graph.LinkResolved && a.Target == want && (a.HeadingFound || !b.HeadingFound) {
				continue
			}
			if !sources[n.Path] {
				captured++
			}
			switch {
			case m.hidden(n.Path):
				hiddenProblem = true
			case len(problems) < 10:
				where := describe(a, want)
				if a.Status == graph.LinkResolved && m.hidden(a.Target) || a.Status == graph.LinkAmbiguous && slices.ContainsFunc(a.Candidates, m.hidden) {
					where = "resolve elsewhere"
				}
				problems = append(problems, fmt.Sprintf("%s:%d %s resolved to %s, would %s", f.Path, l.Line, linkText(f, now[k]), m.name(b.Target), where))
			}
		}
	}
	if hiddenProblem && len(problems) == 0 {
		return nil, fmt.Errorf("%w: moving %s to %s would change where links in notes you cannot see resolve; choose another name", repo.ErrInvalid, m.r.From, m.r.To)
	}
	if hiddenProblem {
		problems = append(problems, "and links in notes you cannot see")
	}
	if len(problems) > 0 {
		hint := "choose another name, or first make those links name their target by its path"
		if captured == 0 {
			hint = "rewrite those links by hand first"
		}
		return nil, fmt.Errorf("%w: moving %s to %s would change where existing links resolve: %s; %s", repo.ErrInvalid, m.r.From, m.r.To, strings.Join(problems, "; "), hint)
	}

	return check, nil
}

// plan is the move's plan: the notes it touches, the names it changes, and its
// changes (the move of From, then the rewritten notes by path).
func (m *movePlanner) plan(ctx context.Context, fromRev repo.Revision, names []*note.Note, check []note.Path, newBytes map[note.Path][]byte) (*movePlan, error) {
	plan := &movePlan{touches: map[note.Path]bool{m.r.From: true, m.r.To: true}}
	for _, p := range check {
		plan.touches[p] = true
	}
	for _, n := range names {
		if n == nil {
			continue
		}
		ws := append([]string{note.Stem(n.Path), strings.TrimSuffix(string(n.Path), ".md"), n.Title}, n.Aliases...)
		for _, w := range ws {
			if w = strings.ToLower(strings.TrimSpace(w)); w != "" && !slices.Contains(plan.words, w) {
				plan.words = append(plan.words, w)
			}
		}
	}
	plan.changes = append(plan.changes, repo.Change{Kind: repo.Move, From: m.r.From, Path: m.r.To, Content: newBytes[m.r.From], ExpectedRevision: fromRev})
	var paths []note.Path
	for p := range newBytes {
		if p != m.r.From {
			paths = append(paths, p)
		}
	}
	sort.Slice(paths, func(i, j int) bool { return paths[i] < paths[j] })
	for _, p := range paths {
		_, rev, err := m.lv.note(ctx, p)
		if err != nil {
			return nil, err
		}
		plan.changes = append(plan.changes, repo.Change{Kind: repo.Put, Path: p, Content: newBytes[p], ExpectedRevision: rev})
	}
	for p := range newBytes {
		plan.rewritten = append(plan.rewritten, m.after(p))
	}
	sort.Slice(plan.rewritten, func(i, j int) bool { return plan.rewritten[i] < plan.rewritten[j] })
	return plan, nil
}
