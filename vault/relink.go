package vault

import (
	"context"
	"errors"
	"slices"
	"sort"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// Relink is a link in another note that a write makes resolve differently. It
// resolved to Was; afterwards it resolves to To, is ambiguous between Candidates,
// or is broken (Status), or it still resolves to Was but no longer finds the
// heading it names (HeadingMissing). A new note whose file name is another note's
// title takes that title's links; a second note named like a first makes links to
// the first ambiguous; a retitled note loses the links that named it by its title.
type Relink struct {
	From           note.Path        `json:"from"`
	Line           int              `json:"line"`
	Link           string           `json:"link"`
	Was            note.Path        `json:"was"`
	Status         graph.LinkStatus `json:"status"`
	To             note.Path        `json:"to,omitempty"`
	Candidates     []note.Path      `json:"candidates,omitempty"`
	HeadingMissing bool             `json:"heading_missing,omitempty"`
}

// MaxRelinks bounds the links a write result lists (the total is reported).
const MaxRelinks = 50

// Relinks returns the links in notes other than those changes writes that
// resolved before the changes and resolve differently after them, sorted by note
// and line, as seen by a caller who may not see the hidden notes: in the vault
// without them (links in them are left out, and every link resolves as if they
// did not exist, before and after). It reports;
// it never fails a write: without the index (locked, being rebuilt) or on any
// error it returns nil. Only notes created, or whose names (title, aliases,
// headings) change, can relink: an unchanged name costs one parse of the old note.
func (v *Vault) Relinks(ctx context.Context, changes []repo.Change, hidden graph.Hidden) []Relink {
	nc, ok := v.nameChanges(ctx, changes)
	if !ok || len(nc.added) == 0 {
		return nil // no name changes: nothing to ask the index
	}
	// The index at HEAD, without waiting: a report must not make the write wait
	// behind a large catch-up or a rebuild.
	ix := v.Index.graphNow()
	if ix == nil {
		return nil
	}
	check, ok := nc.referrers(ix, hidden)
	if !ok || len(check) == 0 {
		return nil
	}
	before, _, err := ix.Resolver()
	if err != nil {
		return nil
	}
	after := before.With(nc.gone, nc.added)
	lv := &linkView{src: ix, commit: ix.Commit(), vault: v.repo, notes: map[note.Path]viewNote{}}
	var out []Relink
	for p := range check {
		n, _, err := lv.note(ctx, p)
		if err != nil {
			return nil
		}
		for _, l := range sitesOf(n) {
			// Both sides as the caller sees the vault: without its hidden notes.
			b := before.ResolveHiding(p, l, hidden)
			if b.Status != graph.LinkResolved {
				continue
			}
			a := after.ResolveHiding(p, l, hidden)
			if a.Status == graph.LinkResolved && a.Target == b.Target && (a.HeadingFound || !b.HeadingFound) {
				continue
			}
			r := Relink{From: p, Line: l.Line, Link: linkText(n, l), Was: b.Target, Status: a.Status, Candidates: a.Candidates}
			if a.Status == graph.LinkResolved {
				r.To = a.Target
				r.HeadingMissing = l.Heading != "" && !a.HeadingFound
			}
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].From != out[j].From {
			return out[i].From < out[j].From
		}
		return out[i].Line < out[j].Line
	})
	return out
}

// nameChanges is what a batch of changes does to the names links resolve by
// (Relinks): the notes whose names go (gone) and come (added), those whose
// title or aliases change (names, old and new), the paths written, and the
// existing notes that only lost or moved headings.
type nameChanges struct {
	gone         []note.Path
	added, names []*note.Note
	written      map[note.Path]bool
	headingsOnly []note.Path
}

// nameChanges reads each changed note's version at HEAD to tell what changes;
// false when HEAD cannot be read.
func (v *Vault) nameChanges(ctx context.Context, changes []repo.Change) (nameChanges, bool) {
	nc := nameChanges{written: map[note.Path]bool{}}
	for _, c := range changes {
		if c.Kind != repo.Put || c.Content == nil || !note.IsNote(c.Path) {
			continue
		}
		nc.written[c.Path] = true
		nn := parseAt(c.Path, c.Content)
		var old *note.Note
		b, err := v.repo.Read(ctx, c.Path, "")
		if err == nil {
			old = parseAt(c.Path, b.Content)
		}
		switch {
		case errors.Is(err, repo.ErrNotFound):
		case err != nil:
			return nameChanges{}, false
		case !namesChanged(old, nn) || headingsAppended(old, nn):
			continue
		case old.Title == nn.Title && slices.Equal(old.Aliases, nn.Aliases):
			nc.headingsOnly = append(nc.headingsOnly, c.Path)
			nc.gone, nc.added = append(nc.gone, c.Path), append(nc.added, nn)
			continue
		default:
			nc.gone, nc.names = append(nc.gone, c.Path), append(nc.names, old)
		}
		nc.added, nc.names = append(nc.added, nn), append(nc.names, nn)
	}
	return nc, true
}

// referrers are the notes whose links may resolve differently after the
// changes: only links that meet a changed name can (Referrers); a note whose
// title and aliases stay can only lose headings its backlinks name. Notes the
// batch writes and notes hidden from the caller are left out. False when the
// index cannot answer.
func (nc nameChanges) referrers(ix *graph.Index, hidden graph.Hidden) (map[note.Path]bool, bool) {
	check := map[note.Path]bool{}
	if len(nc.names) > 0 {
		refs, err := ix.Referrers(nc.names)
		if err != nil {
			return nil, false
		}
		for _, p := range refs {
			check[p] = true
		}
	}
	for _, p := range nc.headingsOnly {
		in, err := ix.Inbound(p)
		if err != nil {
			return nil, false
		}
		for _, d := range in {
			if d.Heading != "" && !d.HeadingMissing {
				check[d.From] = true
			}
		}
	}
	for p := range check {
		if nc.written[p] || hidden != nil && hidden(p) {
			delete(check, p)
		}
	}
	return check, true
}

// headingsAppended reports whether b names itself as a does plus headings after
// all of a's (an appended section): no link to a's names or headings can resolve
// differently.
func headingsAppended(a, b *note.Note) bool {
	if a.Title != b.Title || !slices.Equal(a.Aliases, b.Aliases) || len(b.Headings) < len(a.Headings) {
		return false
	}
	for i, h := range a.Headings {
		if h.Text != b.Headings[i].Text || h.Level != b.Headings[i].Level {
			return false
		}
	}
	return true
}
