package vault

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

const indexName = "_INDEX.md"

// FileRequest asks to write the note at Path (create it, or with ExpectedRevision
// replace it) and list it in its folder's _INDEX.md, in one commit.
type FileRequest struct {
	Path             note.Path
	Content          []byte
	ExpectedRevision repo.Revision
	// Title is the index entry's text (empty: the note's title, else its stem).
	Title   string
	Author  repo.Author
	Roles   []string
	Message string
	DryRun  bool
	// Now dates a new index's frontmatter (zero: time.Now).
	Now time.Time
	// Hidden hides notes the requester may not see (nil: none): a hidden index
	// cannot be written to (an *InputError naming it).
	Hidden graph.Hidden
}

// Filed is the commit of a filing: the note's, and the index's revision after it
// (IndexChanged false: the index already linked to the note and was left as it is).
type Filed struct {
	NoteWrite
	Index         note.Path
	IndexRevision repo.Revision
	IndexChanged  bool
}

// FileIndex is the _INDEX.md of the folder p is in.
func FileIndex(p note.Path) note.Path {
	if folder := p.Folder(); folder != "" {
		return note.Path(folder + "/" + indexName)
	}
	return indexName
}

// FileNote writes r's note and, in the same commit (Norn-Op: write), adds a line
// "- [[name|Title]]" to its folder's _INDEX.md (created when missing) unless the
// index already links to the note. Filings through this Vault go one at a time;
// one that races another process's filing into the same folder (a conflict on the
// index) reads the index again, up to four times.
func (v *Vault) FileNote(ctx context.Context, r FileRequest) (*Filed, error) {
	p, idx := r.Path, FileIndex(r.Path)
	if strings.EqualFold(string(p), string(idx)) {
		return nil, invalidf("%s is the folder's index itself: write it with write_note", p)
	}
	if err := v.refuseHidden("file", r.Hidden, p, r.ExpectedRevision); err != nil {
		return nil, err
	}
	if v.hiddenAt(r.Hidden, idx) {
		return nil, TakenBy(idx)
	}
	stem := note.Stem(p)
	title := strings.Join(strings.Fields(r.Title), " ")
	if title == "" {
		title = stem
		if n, err := note.Parse(p, r.Content); err == nil {
			title = n.Title
		}
	}
	link := "[[" + stem + "]]"
	if title != stem {
		link = "[[" + stem + "|" + title + "]]"
	}
	v.fileMu.Lock()
	defer v.fileMu.Unlock()
	for attempt := 1; ; attempt++ {
		out, err := v.fileOnce(ctx, r, idx, link, title)
		var ce *repo.ConflictError
		switch {
		case !errors.As(err, &ce) || ce.Path != idx:
			return out, err
		case attempt == 4:
			// Its revision is of no use to the caller, who did not name the index.
			return nil, fmt.Errorf("file %s: %w", p, &repo.ConflictError{Reason: "the folder's index kept changing (other notes filed into it at the same moment)"})
		}
	}
}

// TakenBy is the refusal to create a note at a path a hidden note occupies: it
// must not be overwritten. It is not a conflict (a retry cannot help, and there is
// no revision the requester may see) and says no more than that the path is taken.
func TakenBy(p note.Path) *InputError {
	e := invalidf("%s is taken by a note you cannot see, and Norn never writes over a note it was not given the revision of: choose another path (nothing was written)", p)
	e.Path = p
	return e
}

// fileOnce is one attempt of FileNote against the index as it is now.
func (v *Vault) fileOnce(ctx context.Context, r FileRequest, idx note.Path, link, title string) (*Filed, error) {
	p, folder := r.Path, r.Path.Folder()
	changes := []repo.Change{{Kind: repo.Put, Path: p, Content: r.Content, ExpectedRevision: r.ExpectedRevision}}
	idxRev := v.Revision(idx)
	var idxNew []byte
	if idxRev == "" {
		now := r.Now
		if now.IsZero() {
			now = time.Now()
		}
		day := now.UTC().Format("2006-01-02")
		name := folder
		if name == "" {
			name = "Vault"
		}
		idxNew = fmt.Appendf(nil, "---\ntitle: %s index\ntype: index\nstatus: active\ntags: [index, map-of-content]\nupdated: %s\n---\n# %s index\n\n- %s\n",
			yamlScalar(name), day, name, link)
	} else {
		old, err := v.ReadRevision(ctx, idxRev)
		if err != nil {
			return nil, fmt.Errorf("file %s: %w", p, err)
		}
		if !indexLinks(idx, old, p, title) {
			idxNew = append([]byte(nil), old...)
			if len(idxNew) > 0 && idxNew[len(idxNew)-1] != '\n' {
				idxNew = append(idxNew, '\n')
			}
			idxNew = append(idxNew, "- "+link+"\n"...)
		}
	}
	if idxNew != nil {
		changes = append(changes, repo.Change{Kind: repo.Put, Path: idx, Content: idxNew, ExpectedRevision: idxRev})
	}
	msg := r.Message
	if strings.TrimSpace(msg) == "" {
		msg = repo.Subject(fmt.Sprintf("file %s in %s", p, idx))
	}
	rl := v.Relinks(ctx, changes, r.Hidden)
	res, err := v.Apply(ctx, repo.Tx{Author: r.Author, Roles: r.Roles, Op: repo.OpWrite, Message: strings.TrimSpace(msg), DryRun: r.DryRun, Changes: changes})
	if err != nil {
		return nil, fmt.Errorf("file %s: %w", p, err)
	}
	out := &Filed{NoteWrite: NoteWrite{Result: res, Relinks: rl}, Index: idx, IndexRevision: idxRev, IndexChanged: idxNew != nil}
	for _, ch := range res.Changes {
		switch ch.Path {
		case p:
			out.Revision = ch.Revision
		case idx:
			out.IndexRevision = ch.Revision
		}
	}
	return out, nil
}

// indexLinks reports whether the index already has a wikilink naming the note at p
// (by path, file name or title).
func indexLinks(idx note.Path, raw []byte, p note.Path, title string) bool {
	n, err := note.Parse(idx, raw)
	if err != nil {
		return false
	}
	names := []string{string(p), strings.TrimSuffix(string(p), ".md"), note.Stem(p), title}
	if rel, ok := strings.CutPrefix(string(p), idx.Folder()+"/"); ok {
		names = append(names, rel, strings.TrimSuffix(rel, ".md"))
	}
	for _, l := range n.Links {
		for _, name := range names {
			if strings.EqualFold(strings.TrimSpace(l.Target), name) {
				return true
			}
		}
	}
	return false
}

// yamlScalar quotes s for YAML when it is not a safe plain scalar.
func yamlScalar(s string) string {
	plain := s != "" && !strings.ContainsAny(s, ":#[]{},&*!|>'\"%@`") && strings.TrimSpace(s) == s
	if plain {
		return s
	}
	return "\"" + strings.NewReplacer("\\", "\\\\", "\"", "\\\"").Replace(s) + "\""
}
