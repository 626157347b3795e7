package vault

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// EditOp is what EditNote does to a note.
type EditOp string

// The edit operations.
const (
	// EditAppend adds Content at the end of the note.
	EditAppend EditOp = "append"
	// EditPrepend adds Content at the top of the body, after the frontmatter.
	EditPrepend EditOp = "prepend"
	// EditReplaceSection replaces everything under Heading (sub-sections included)
	// with Content; the heading line stays unless Content starts with it.
	EditReplaceSection EditOp = "replace_section"
	// EditFindReplace replaces Find, which must occur exactly Count times (0: once),
	// with Replace.
	EditFindReplace EditOp = "find_replace"
)

// EditRequest asks to change part of the note at Path, which must still be at
// ExpectedRevision. Author, Roles and Message are the commit's (Message empty: a
// default subject).
type EditRequest struct {
	Path             note.Path
	Op               EditOp
	ExpectedRevision repo.Revision
	Content          string
	Heading          string
	Find, Replace    string
	Count            int
	Author           repo.Author
	Roles            []string
	Message          string
	DryRun           bool
	// Hidden hides notes the requester may not see (nil: none): a hidden Path is
	// not found, as a missing one.
	Hidden graph.Hidden
}

// NoteWrite is the commit of a write to one note (or, for a dry run, what it would
// be): Revision is the note's revision after it (its current one when the write
// changed nothing), Relinks the links elsewhere it makes resolve differently.
type NoteWrite struct {
	*repo.Result
	Revision repo.Revision
	Relinks  []Relink
}

// EditNote applies r in one commit (Norn-Op: edit). A bad op or arguments is an
// *InputError; a note changed since ExpectedRevision a *repo.ConflictError; in
// either case nothing is written.
func (v *Vault) EditNote(ctx context.Context, r EditRequest) (*NoteWrite, error) {
	p := r.Path
	switch r.Op {
	case EditAppend, EditPrepend, EditReplaceSection, EditFindReplace:
	case "":
		return nil, invalidf("op is required: append, prepend, replace_section or find_replace")
	default:
		return nil, invalidf("unknown op %q: use append, prepend, replace_section or find_replace", r.Op)
	}
	if r.ExpectedRevision == "" {
		return nil, invalidf("expected_revision is required: read the note first (read_note) and pass its revision")
	}
	if v.hiddenAt(r.Hidden, p) {
		return nil, fmt.Errorf("edit %s: %w", p, errNoNote(p))
	}
	blob, err := v.Read(ctx, p, "")
	if err != nil {
		return nil, fmt.Errorf("edit %s: %w", p, err)
	}
	if blob.Revision != r.ExpectedRevision {
		return nil, fmt.Errorf("edit %s: %w", p, &repo.ConflictError{Path: p, Expected: r.ExpectedRevision, Current: blob.Revision,
			Reason: "the note changed since you read it"})
	}
	next, err := applyEdit(p, blob.Content, r)
	if err != nil {
		return nil, err
	}
	ch := repo.Change{Kind: repo.Put, Path: p, Content: next, ExpectedRevision: blob.Revision}
	rl := v.Relinks(ctx, []repo.Change{ch}, r.Hidden)
	res, err := v.Apply(ctx, repo.Tx{Author: r.Author, Roles: r.Roles, Op: repo.OpEdit, Message: strings.TrimSpace(r.Message), DryRun: r.DryRun, Changes: []repo.Change{ch}})
	if err != nil {
		return nil, fmt.Errorf("edit %s: %w", p, err)
	}
	return noteWrite(p, res, blob.Revision, rl), nil
}

// noteWrite is the NoteWrite of res for the note at p, whose revision was prev.
func noteWrite(p note.Path, res *repo.Result, prev repo.Revision, rl []Relink) *NoteWrite {
	out := &NoteWrite{Result: res, Relinks: rl}
	for _, ch := range res.Changes {
		if ch.Path == p {
			out.Revision = ch.Revision
		}
	}
	if res.Unchanged {
		out.Revision = prev
	}
	return out
}

// WriteRequest is a whole-note write (write_note): a new note, or the whole of an
// existing one.
type WriteRequest struct {
	Path    note.Path
	Content []byte
	// ExpectedRevision is the revision the writer read ("": create a new note).
	ExpectedRevision repo.Revision
	Author           repo.Author
	Roles            []string
	Message          string
	DryRun           bool
	// Hidden are the notes the writer may not see (nil: none).
	Hidden graph.Hidden
}

// WriteNote writes r.Content at r.Path in one commit (Norn-Op: write). A note
// hidden from the writer at the path answers as a path with no note would,
// except that it is never written over (refuseHidden). Relinks lists the links
// elsewhere the write makes resolve differently.
func (v *Vault) WriteNote(ctx context.Context, r WriteRequest) (*NoteWrite, error) {
	p := r.Path
	if v.hiddenAt(r.Hidden, p) {
		if err := repo.ValidSubject(strings.TrimSpace(r.Message)); err != nil {
			return nil, err
		}
		return nil, v.refuseHidden("write", r.Hidden, p, r.ExpectedRevision)
	}
	ch := repo.Change{Kind: repo.Put, Path: p, Content: r.Content, ExpectedRevision: r.ExpectedRevision}
	rl := v.Relinks(ctx, []repo.Change{ch}, r.Hidden)
	res, err := v.Apply(ctx, repo.Tx{Author: r.Author, Roles: r.Roles, Op: repo.OpWrite, Message: strings.TrimSpace(r.Message), DryRun: r.DryRun, Changes: []repo.Change{ch}})
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", p, err)
	}
	return noteWrite(p, res, r.ExpectedRevision, rl), nil
}

// refuseHidden is a write's answer (op: its verb) for a note hidden by h at p,
// nil when there is none: what it would answer for a path with no note, except
// where that would mean writing over it. Creating a note there (exp "") is
// TakenBy; replacing it is a conflict that names no current revision.
func (v *Vault) refuseHidden(op string, h graph.Hidden, p note.Path, exp repo.Revision) error {
	if !v.hiddenAt(h, p) {
		return nil
	}
	if exp == "" {
		return TakenBy(p)
	}
	return fmt.Errorf("%s %s: %w", op, p, &repo.ConflictError{Path: p, Expected: exp, Reason: repo.ConflictHint(exp, "")})
}

// hiddenAt reports whether a note hidden by h is at p at HEAD. Writes answer for
// it what they answer for a path with no note, except where that would mean
// writing over it.
func (v *Vault) hiddenAt(h graph.Hidden, p note.Path) bool {
	return h != nil && v.Revision(p) != "" && h(p)
}

// withNewline returns s ending in exactly the newline it has, or one added.
func withNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// applyEdit computes the bytes of an edit.
func applyEdit(p note.Path, raw []byte, in EditRequest) ([]byte, error) {
	switch in.Op {
	case EditAppend, EditPrepend, EditReplaceSection:
		if in.Find != "" || in.Replace != "" || in.Count != 0 {
			return nil, invalidf("find, replace and count belong to op=find_replace, not op=%s", in.Op)
		}
	}
	switch in.Op {
	case EditAppend:
		if in.Content == "" {
			return nil, invalidf("op=append needs content")
		}
		out := append([]byte(nil), raw...)
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		return append(out, withNewline(in.Content)...), nil
	case EditPrepend:
		if in.Content == "" {
			return nil, invalidf("op=prepend needs content")
		}
		at := 0
		if n, err := note.Parse(p, raw); err == nil {
			at = n.BodyStart
		} else if body := bodyAfterFrontmatter(raw); body != nil {
			at = len(raw) - len(body)
		}
		return concat(raw[:at], []byte(withNewline(in.Content)), raw[at:]), nil
	case EditReplaceSection:
		return replaceSection(p, raw, in)
	case EditFindReplace:
		if in.Content != "" || in.Heading != "" {
			return nil, invalidf("content and heading belong to the other ops, not op=find_replace")
		}
		if in.Find == "" {
			return nil, invalidf("op=find_replace needs find")
		}
		want := in.Count
		if want < 0 {
			return nil, invalidf("count must be 1 or more, not %d", want)
		}
		if want == 0 {
			want = 1
		}
		got := bytes.Count(raw, []byte(in.Find))
		if got != want {
			return nil, invalidf("find occurs %d times in %s, not %d: make find longer so that it is unique, or pass count=%d to replace them all (nothing was written)",
				got, p, want, got)
		}
		return bytes.ReplaceAll(raw, []byte(in.Find), []byte(in.Replace)), nil
	case "":
		return nil, invalidf("op is required: append, prepend, replace_section or find_replace")
	}
	return nil, invalidf("unknown op %q: use append, prepend, replace_section or find_replace", in.Op)
}

// replaceSection computes the bytes of an EditReplaceSection.
func replaceSection(p note.Path, raw []byte, in EditRequest) ([]byte, error) {
	if strings.TrimSpace(in.Heading) == "" {
		return nil, invalidf("op=replace_section needs heading")
	}
	n, err := note.Parse(p, raw)
	if err != nil {
		return nil, invalidf("%s does not parse (%v), so its sections cannot be found: fix it with write_note", p, err)
	}
	s, e, ok := note.Section(n, in.Heading)
	if !ok {
		return nil, missingf(p, "%s has no heading %q; its headings: %s", p, in.Heading, HeadingList(n, 40))
	}
	var h *note.Heading
	for _, x := range n.Headings {
		if x.Start == s {
			h = x
			break
		}
	}
	lineEnd := bytes.IndexByte(raw[s:e], '\n')
	keep := e // the heading line, kept
	if lineEnd >= 0 {
		keep = s + lineEnd + 1
	}
	content := withNewline(in.Content)
	if h != nil && startsWithHeading(content, h) {
		keep = s // content brings its own heading line
	}
	if keep == e && e == len(raw) && len(raw) > 0 && raw[len(raw)-1] != '\n' {
		return concat(raw, []byte("\n"), []byte(content)), nil
	}
	return concat(raw[:keep], []byte(content), raw[e:]), nil
}

// startsWithHeading reports whether content's first line is heading h itself.
func startsWithHeading(content string, h *note.Heading) bool {
	first, _, _ := strings.Cut(content, "\n")
	first = strings.TrimSpace(first)
	level := 0
	for level < len(first) && first[level] == '#' {
		level++
	}
	return level == h.Level && strings.EqualFold(strings.TrimSpace(first[level:]), strings.TrimSpace(h.Text))
}

func concat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// HeadingList lists a note's headings for an error message, at most n.
func HeadingList(n *note.Note, limit int) string {
	if len(n.Headings) == 0 {
		return "(none)"
	}
	var b strings.Builder
	for i, h := range n.Headings {
		if i == limit {
			fmt.Fprintf(&b, ", … (%d more)", len(n.Headings)-limit)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", strings.Repeat("#", h.Level)+" "+h.Text)
	}
	return b.String()
}
