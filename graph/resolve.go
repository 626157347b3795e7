package graph

import (
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/norn-vault/norn/note"
)

// LinkStatus is the outcome of resolving one link.
type LinkStatus string

// The link statuses.
const (
	LinkResolved  LinkStatus = "resolved"  // exactly one target (or the nearest of several)
	LinkBroken    LinkStatus = "broken"    // nothing in the vault matches
	LinkAmbiguous LinkStatus = "ambiguous" // several targets match at the same step
)

// Resolution is where a link points.
type Resolution struct {
	Status LinkStatus
	// Target is the note or attachment the link points to when Status is
	// LinkResolved, and empty otherwise.
	Target note.Path
	// Candidates holds the matching paths, sorted, when Status is LinkAmbiguous.
	Candidates []note.Path
	// HeadingFound is false when the link names a heading (#h) the resolved target
	// does not have; the status stays LinkResolved so that callers can flag it. It
	// is true for every other resolved link (no heading, a block reference, an
	// attachment named with a heading) and false when the link is not resolved.
	HeadingFound bool
}

// Resolver resolves link targets against a fixed set of notes and attachments. It
// is built once (NewResolver, then AddFiles) and is then safe for concurrent use
// by Resolve. The rules are in docs/vault-format.md, "Link resolution".
type Resolver struct {
	entries []resolveEntry
	known   map[note.Path]int // path as given → entry index
	byPath  keyIDs            // lowercased path without ".md" (attachments keep their extension)
	byName  keyIDs            // lowercased file stem (attachments: file name with extension)
	byTitle keyIDs            // lowercased note title
	byAlias keyIDs            // lowercased note alias
}

// resolveEntry is one note or attachment the resolver knows.
type resolveEntry struct {
	path     note.Path
	pathKey  string
	nameKey  string
	titleKey string
	aliases  []string         // lowercased alias keys
	headings []resolveHeading // nil for attachments
	isNote   bool
}

// resolveHeading is a heading's normalised text and its parent's index (-1 at the top).
type resolveHeading struct {
	key    string
	parent int
}

// nodeNames is what the resolver needs of a note: its path, title, aliases and
// heading tree.
type nodeNames struct {
	path     note.Path
	title    string
	aliases  []string
	headings []resolveHeading
}

// namesOf extracts a parsed note's names.
func namesOf(n *note.Note) nodeNames {
	nn := nodeNames{path: n.Path, title: n.Title, aliases: n.Aliases, headings: headingsOf(n)}
	return nn
}

// headingsOf returns n's headings as keys with parent indexes.
func headingsOf(n *note.Note) []resolveHeading {
	hs := make([]resolveHeading, len(n.Headings))
	at := make(map[*note.Heading]int, len(n.Headings))
	for i, h := range n.Headings {
		at[h] = i
	}
	for i, h := range n.Headings {
		parent := -1
		if p, ok := at[h.Parent]; ok && h.Parent != nil {
			parent = p
		}
		hs[i] = resolveHeading{key: headingKey(h.Text), parent: parent}
	}
	return hs
}

func newResolver(size int) *Resolver {
	return &Resolver{
		entries: make([]resolveEntry, 0, size),
		known:   make(map[note.Path]int, size),
		byPath:  newKeyIDs(size),
		byName:  newKeyIDs(size),
		byTitle: newKeyIDs(size),
		byAlias: newKeyIDs(0),
	}
}

// NewResolver indexes notes by path, stem, title and aliases. A path given twice
// keeps its first note. Nil notes are skipped.
func NewResolver(notes []*note.Note) *Resolver {
	r := newResolver(len(notes))
	for _, n := range notes {
		if n != nil {
			r.addNote(namesOf(n))
		}
	}
	return r
}

// addNote adds a note unless its path is known.
func (r *Resolver) addNote(nn nodeNames) {
	if _, dup := r.known[nn.path]; dup {
		return
	}
	e := noteEntry(nn)
	i := r.add(e)
	if e.titleKey != "" {
		r.byTitle.add(e.titleKey, int32(i))
	}
	for _, a := range e.aliases {
		r.byAlias.add(a, int32(i))
	}
}

// noteEntry returns the resolver entry of a note with names nn.
func noteEntry(nn nodeNames) resolveEntry {
	e := resolveEntry{path: nn.path, pathKey: noteKey(string(nn.path)), headings: nn.headings, isNote: true}
	e.nameKey = stemKey(nn.path, e.pathKey)
	if e.headings == nil {
		e.headings = []resolveHeading{}
	}
	// A title is often its file's stem: the one string then serves both.
	if e.titleKey = strings.ToLower(strings.TrimSpace(nn.title)); e.titleKey == e.nameKey {
		e.titleKey = e.nameKey
	}
	for _, a := range nn.aliases {
		if a := strings.ToLower(strings.TrimSpace(a)); a != "" && !slices.Contains(e.aliases, a) {
			e.aliases = append(e.aliases, a)
		}
	}
	return e
}

// AddFiles adds the vault's attachments (images, PDFs, any non-note file) so that
// embeds and links naming them resolve. Paths ending in ".md" and paths already
// known are ignored: notes come only from NewResolver. Call it before the
// resolver is shared between goroutines.
func (r *Resolver) AddFiles(paths []note.Path) {
	for _, p := range paths {
		r.addFile(p)
	}
}

func (r *Resolver) addFile(p note.Path) {
	if _, dup := r.known[p]; dup || p == "" || note.IsNote(p) {
		return
	}
	r.add(fileEntry(p))
}

// stemKey is the lowercased file stem of the note at p, whose lookup key is
// pathKey: for an ASCII path, the end of pathKey (no second string).
func stemKey(p note.Path, pathKey string) string {
	for i := range len(p) {
		if p[i] >= utf8.RuneSelf {
			return strings.ToLower(note.Stem(p))
		}
	}
	return pathKey[strings.LastIndexByte(pathKey, '/')+1:]
}

// fileEntry returns the resolver entry of the attachment at p.
func fileEntry(p note.Path) resolveEntry {
	lp := strings.ToLower(string(p))
	return resolveEntry{path: p, pathKey: lp, nameKey: lp[strings.LastIndexByte(lp, '/')+1:]}
}

// add records e under its path and name keys and returns its index.
func (r *Resolver) add(e resolveEntry) int {
	i := len(r.entries)
	r.entries = append(r.entries, e)
	r.known[e.path] = i
	r.byPath.add(e.pathKey, int32(i))
	r.byName.add(e.nameKey, int32(i))
	return i
}

// remove forgets the note or attachment at p. Its entry stays as a tombstone so
// that other indexes keep their meaning.
func (r *Resolver) remove(p note.Path) {
	i, ok := r.known[p]
	if !ok {
		return
	}
	e := &r.entries[i]
	r.byPath.remove(e.pathKey, int32(i))
	r.byName.remove(e.nameKey, int32(i))
	if e.titleKey != "" {
		r.byTitle.remove(e.titleKey, int32(i))
	}
	for _, a := range e.aliases {
		r.byAlias.remove(a, int32(i))
	}
	delete(r.known, p)
	*e = resolveEntry{}
}

// keysOf returns the lookup keys under which entry p can be found: a link whose
// lookup keys share one of them may resolve differently once p changes.
func (r *Resolver) keysOf(p note.Path) []string {
	i, ok := r.known[p]
	if !ok {
		return nil
	}
	return r.entries[i].keys()
}

// keysOfNames returns the lookup keys a note with names nn has once added (see
// keysOf).
func keysOfNames(nn nodeNames) []string {
	e := noteEntry(nn)
	return e.keys()
}

// keys returns the lookup keys under which e can be found.
func (e *resolveEntry) keys() []string {
	ks := []string{e.pathKey, e.nameKey}
	if e.titleKey != "" {
		ks = append(ks, e.titleKey)
	}
	return append(ks, e.aliases...)
}

// appendLookupKeys appends to ks the keys Resolve consults for l written in from
// (see keysOf).
func appendLookupKeys(ks []string, from note.Path, l note.Link) []string {
	target := strings.TrimSpace(l.Target)
	if target == "" {
		return ks
	}
	if l.Kind == note.LinkMarkdown || strings.HasPrefix(target, "./") || strings.HasPrefix(target, "../") {
		return append(ks, noteKey(path.Join(from.Folder(), target)))
	}
	key := noteKey(strings.TrimLeft(target, "/"))
	ks = append(ks, key, strings.ToLower(target))
	if slash := strings.LastIndexByte(key, '/'); slash >= 0 {
		ks = append(ks, key[slash+1:])
	}
	return ks
}

// Resolve resolves the link l written in the note at from.
//
// A same-note link (empty Target) resolves to from. A Markdown link, and a
// wikilink or embed whose target starts with "./" or "../", resolves only by its
// path relative to from's folder. Any other wikilink or embed is tried, in order,
// by exact path from the vault root, by path suffix ("b/c" matches "a/b/c.md"), by
// file stem (or an attachment's file name), by title and by alias, each
// case-insensitively; the first step with a match decides. Several matches at that
// step are ambiguous unless exactly one of them is in from's own folder, which then
// wins. A ".md" on the target is ignored.
func (r *Resolver) Resolve(from note.Path, l note.Link) Resolution {
	return r.ResolveHiding(from, l, nil)
}

// ResolveHiding is Resolve in the vault as seen by someone from whom hidden
// (nil: nothing) hides some notes: a hidden note matches at no step, so a name
// resolves exactly as it would if the hidden notes did not exist.
func (r *Resolver) ResolveHiding(from note.Path, l note.Link, hidden Hidden) Resolution {
	var one [1]int32 // room for a single match (keyIDs.get)
	if l.Target == "" {
		i, ok := r.known[from]
		return r.found(i, from, l, ok)
	}
	target := strings.TrimSpace(l.Target)
	if l.Kind == note.LinkMarkdown || strings.HasPrefix(target, "./") || strings.HasPrefix(target, "../") {
		rel := path.Join(from.Folder(), target)
		if rel == ".." || strings.HasPrefix(rel, "../") || rel == "." {
			return Resolution{Status: LinkBroken}
		}
		return r.decide(from, l, r.unhidden(r.byPath.get(noteKey(rel), &one), hidden))
	}
	key := noteKey(strings.TrimLeft(target, "/"))
	if key == "" {
		return Resolution{Status: LinkBroken}
	}
	if m := r.unhidden(r.byPath.get(key, &one), hidden); len(m) > 0 {
		return r.decide(from, l, m)
	}
	if slash := strings.LastIndexByte(key, '/'); slash >= 0 {
		var m []int32
		for _, i := range r.byName.get(key[slash+1:], &one) {
			pk := r.entries[i].pathKey
			if len(pk) > len(key) && strings.HasSuffix(pk, key) && pk[len(pk)-len(key)-1] == '/' && (hidden == nil || !hidden(r.entries[i].path)) {
				m = append(m, i)
			}
		}
		if len(m) > 0 {
			return r.decide(from, l, m)
		}
	} else if m := r.unhidden(r.byName.get(key, &one), hidden); len(m) > 0 {
		return r.decide(from, l, m)
	}
	name := strings.ToLower(target)
	if m := r.unhidden(r.byTitle.get(name, &one), hidden); len(m) > 0 {
		return r.decide(from, l, m)
	}
	return r.decide(from, l, r.unhidden(r.byAlias.get(name, &one), hidden))
}

// unhidden returns the entries of m that hidden does not hide (m itself when
// it hides none).
func (r *Resolver) unhidden(m []int32, hidden Hidden) []int32 {
	if hidden == nil {
		return m
	}
	for k, i := range m {
		if hidden(r.entries[i].path) {
			out := slices.Clone(m[:k])
			for _, j := range m[k+1:] {
				if !hidden(r.entries[j].path) {
					out = append(out, j)
				}
			}
			return out
		}
	}
	return m
}

// decide turns the matches of one step into a Resolution.
func (r *Resolver) decide(from note.Path, l note.Link, m []int32) Resolution {
	switch len(m) {
	case 0:
		return Resolution{Status: LinkBroken}
	case 1:
		return r.found(int(m[0]), r.entries[m[0]].path, l, true)
	}
	folder, near := from.Folder(), -1
	for _, i := range m {
		if r.entries[i].path.Folder() == folder {
			if near >= 0 {
				near = -2 // several in the source's folder: no preference
				break
			}
			near = int(i)
		}
	}
	if near >= 0 {
		return r.found(near, r.entries[near].path, l, true)
	}
	c := make([]note.Path, len(m))
	for k, i := range m {
		c[k] = r.entries[i].path
	}
	slices.Sort(c)
	return Resolution{Status: LinkAmbiguous, Candidates: c}
}

// found is the Resolution of l resolved to p, entry i (ok false when p is not a
// known note, as for a same-note link from an unknown path).
func (r *Resolver) found(i int, p note.Path, l note.Link, ok bool) Resolution {
	res := Resolution{Status: LinkResolved, Target: p, HeadingFound: true}
	if l.Heading == "" {
		return res
	}
	if !ok {
		res.HeadingFound = false
		return res
	}
	if e := &r.entries[i]; e.isNote {
		res.HeadingFound = hasHeading(e.headings, l.Heading)
	}
	return res
}

// hasHeading reports whether hs has the heading named by frag, "A" or the nested
// "A#B#C": a heading matching the last segment whose ancestors match the earlier
// segments in order (not necessarily as direct parents). Empty segments are skipped.
func hasHeading(hs []resolveHeading, frag string) bool {
	var segs []string
	for s := range strings.SplitSeq(frag, "#") {
		if k := headingKey(s); k != "" {
			segs = append(segs, k)
		}
	}
	if len(segs) == 0 {
		return true // "[[Note#]]"-like: names no heading
	}
	last := segs[len(segs)-1]
	for i, h := range hs {
		if h.key != last {
			continue
		}
		want := len(segs) - 2
		for p := hs[i].parent; p >= 0 && want >= 0; p = hs[p].parent {
			if hs[p].key == segs[want] {
				want--
			}
		}
		if want < 0 {
			return true
		}
	}
	return false
}

// headingKey normalises heading text for comparison: lowercased, the characters
// Obsidian drops from heading links (# | ^ : % [ ] \) read as spaces, runs of
// white space collapsed to one space, trimmed.
func headingKey(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, c := range strings.ToLower(s) {
		switch c {
		case ' ', '\t', '\n', '\r', '\u00a0', '#', '|', '^', ':', '%', '[', ']', '\\':
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(c)
	}
	return b.String()
}

// noteKey is the lookup key of a path: lowercased, without a final ".md".
func noteKey(p string) string {
	p = strings.ToLower(p)
	if note.IsNote(note.Path(p)) {
		p = p[:len(p)-3]
	}
	return p
}
