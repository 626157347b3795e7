package vault

import (
	"context"
	"fmt"
	"strings"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// AmbiguousNameError is a name that matches more than one note. It wraps
// repo.ErrInvalid (an invalid_input on every surface); Candidates are the notes
// it matches, sorted.
type AmbiguousNameError struct {
	Name       string
	Candidates []note.Path
}

func (e *AmbiguousNameError) Error() string {
	return fmt.Sprintf("%q is ambiguous: it names %d notes (%s); give one of them by its path", e.Name, len(e.Candidates), joinPaths(e.Candidates, 20))
}

func (e *AmbiguousNameError) Unwrap() error { return repo.ErrInvalid }

// ResolveName turns the way a person or an agent names a note into the note's
// path at HEAD: a path ("tech/bloom.md", or without its ".md"), a title, an alias
// or a file name, bare or as a wikilink ("[[Bloom filters#Uses|x]]"). An existing
// path comes first, then the link resolution rules (path suffix, file name, title,
// alias), answered by the index (or, when it is unavailable, by the notes at HEAD
// read into memory). heading is the wikilink's "#heading" ("" for none).
//
// hidden hides notes from the requester (nil: none): a hidden note matches
// nothing, so that neither an ambiguity nor a miss tells that it exists.
//
// Errors: *AmbiguousNameError (repo.ErrInvalid) listing the candidates; an
// *InputError wrapping repo.ErrNotFound when nothing matches.
func (v *Vault) ResolveName(ctx context.Context, name string, hidden graph.Hidden) (p note.Path, heading string, err error) {
	if p, ok := v.existingPath(name, hidden); ok {
		return p, "", nil // a note's path as given (" lead.md"), not a name to trim
	}
	name, heading = SplitName(name)
	if name == "" {
		return "", "", invalidf("a note's path or name is required")
	}
	if p, ok := v.existingPath(name, hidden); ok {
		return p, heading, nil
	}
	lv, err := v.linkView(ctx) // the index, or the notes at HEAD read when it is unavailable
	if err != nil {
		return "", "", err
	}
	// From a source in no folder of the vault, so that no candidate is preferred.
	const nowhere = note.Path("\x00/\x00")
	r, err := lv.src.ResolveHiding(nowhere, note.Link{Kind: note.LinkWiki, Target: name}, hidden)
	if err != nil {
		return "", "", GraphErr("resolve "+name, err)
	}
	switch r.Status {
	case graph.LinkResolved:
		return r.Target, heading, nil
	case graph.LinkAmbiguous:
		return "", "", &AmbiguousNameError{Name: name, Candidates: r.Candidates}
	}
	return "", "", noNameMatch(name)
}

// noNameMatch is the error for a name no note answers to.
func noNameMatch(name string) error {
	return missingf(note.Path(name), "no note matches %q (by path, file name, title or alias); create it first or check the name", name)
}

// existingPath reports the note at path name, or at name+".md", that hidden
// does not hide.
func (v *Vault) existingPath(name string, hidden graph.Hidden) (note.Path, bool) {
	if repo.ValidPath(name) != nil {
		return "", false
	}
	p := note.Path(name)
	if v.Revision(p) != "" && (hidden == nil || !hidden(p)) {
		return p, true
	}
	if md := p + ".md"; !note.IsNote(p) && v.Revision(md) != "" && (hidden == nil || !hidden(md)) {
		return md, true
	}
	return "", false
}

// SplitName turns "[[Name#Heading|alias]]" into its name and heading; any other
// string is a name, trimmed.
func SplitName(s string) (name, heading string) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "[[") && strings.HasSuffix(s, "]]") {
		s = s[2 : len(s)-2]
		if i := strings.IndexByte(s, '|'); i >= 0 {
			s = s[:i]
		}
		if i := strings.IndexByte(s, '#'); i >= 0 {
			s, heading = s[:i], s[i+1:]
		}
	}
	return strings.TrimSpace(s), strings.TrimSpace(heading)
}

func joinPaths(ps []note.Path, limit int) string {
	var b strings.Builder
	for i, p := range ps {
		if i == limit {
			fmt.Fprintf(&b, ", … (%d more)", len(ps)-limit)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(string(p))
	}
	return b.String()
}
