package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// Conflict is a path both sides changed in ways that did not merge: ours stays
// at Path, theirs went to Sibling. Detail is the merge commit's Norn-Conflict
// trailer for it.
type Conflict struct {
	Path    note.Path `json:"path"`
	Sibling note.Path `json:"sibling"`
	Detail  string    `json:"detail"`
}

// MergePlan is a three-way merge of two commits worked out: the changes that turn
// ours' tree into the merged tree (a repo.MergeTx's), the conflicts, and the
// edits kept over an archive.
type MergePlan struct {
	Changes   []repo.Change
	Conflicts []Conflict
	// Kept says, per path, where an edit on one side won over an archive on the
	// other.
	Kept []string
	// Refused are the paths of theirs the merge did not take (RefusedPath).
	Refused []RefusedPath
}

// RefusedPath is a path the remote's side changed that the vault cannot take: a
// name the vault refuses (repo.MergeablePath), a symbolic link or a submodule,
// or a file where this side has a folder (or the other way round). The merge
// leaves it out and goes on with the rest; theirs' commit, a parent of the merge,
// keeps it in history.
type RefusedPath struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Trailer is the Norn-Refused trailer's value: the path quoted (it may hold
// any byte), then why.
func (r RefusedPath) Trailer() string { return fmt.Sprintf("%q: %s", r.Path, r.Reason) }

// similar is how alike (shared lines over the longer side's) an archived note and
// an added one must be to count as a move with edits.
const similar = 0.5

// sideDiff is what one side changed since the merge base, with its moves.
type sideDiff struct {
	ch        map[note.Path]repo.FileChange
	movedTo   map[note.Path]note.Path // from → to
	movedFrom map[note.Path]note.Path // to → from
}

// planner works out a MergePlan.
type planner struct {
	ctx                context.Context
	v                  Vault
	ours, theirs       string
	machine            string
	day                time.Time
	plan               MergePlan
	planned            map[note.Path]bool
	ourSide, theirSide *sideDiff
}

// PlanMerge merges theirs into ours (base their merge base, "" for none), path
// by path (docs/sync.md, "How a merge works"): a path changed on one side takes
// that side; changed the same on both, once; a note changed on both merges with
// note.Merge3, theirs going to a conflict sibling (note.ConflictPath, named after
// machine and day) when hunks conflict; two different creates of one path, and
// any file that is not a note, keep ours and put theirs in a sibling; an edit
// against an archive keeps the edit; a move on one side with an edit on the other
// (found by identical bytes, then by similar lines) lands the edit at the new path.
// It reads the vault and writes nothing.
func PlanMerge(ctx context.Context, v Vault, base, ours, theirs repo.CommitID, machine string, day time.Time) (*MergePlan, error) {
	p := &planner{ctx: ctx, v: v, ours: string(ours), theirs: string(theirs), machine: machine, day: day, planned: map[note.Path]bool{}}
	if _, err := note.ConflictPath("x.md", day, machine, 1); err != nil {
		return nil, fmt.Errorf("plan merge: %w: %w", ErrInvalid, err)
	}
	var err error
	if p.ourSide, err = p.diff(base, ours); err != nil {
		return nil, err
	}
	if p.theirSide, err = p.diff(base, theirs); err != nil {
		return nil, err
	}
	p.findMoves(p.ourSide, p.theirSide)
	p.findMoves(p.theirSide, p.ourSide)
	paths := make([]note.Path, 0, len(p.theirSide.ch))
	for path := range p.theirSide.ch {
		paths = append(paths, path)
	}
	slices.Sort(paths)
	for _, path := range paths {
		if err := p.path(path); err != nil {
			return nil, fmt.Errorf("plan merge of %s: %w", path, err)
		}
	}
	return &p.plan, nil
}

func (p *planner) diff(base, tip repo.CommitID) (*sideDiff, error) {
	fcs, err := p.v.Diff(p.ctx, string(base), string(tip))
	if err != nil {
		return nil, fmt.Errorf("plan merge: diff %s..%s: %w", base.Short(), tip.Short(), err)
	}
	d := &sideDiff{ch: map[note.Path]repo.FileChange{}, movedTo: map[note.Path]note.Path{}, movedFrom: map[note.Path]note.Path{}}
	for _, fc := range fcs {
		d.ch[fc.Path] = fc
	}
	return d, nil
}

// findMoves pairs side's archived paths with its added ones: identical bytes
// first; then, for a path the other side edited, the most similar added note.
func (p *planner) findMoves(side, other *sideDiff) {
	var gone, added []repo.FileChange
	for _, fc := range side.ch {
		switch {
		case fc.Kind == repo.Archive:
			gone = append(gone, fc)
		case fc.OldRevision == "":
			added = append(added, fc)
		}
	}
	slices.SortFunc(gone, func(a, b repo.FileChange) int { return cmpPath(a.Path, b.Path) })
	slices.SortFunc(added, func(a, b repo.FileChange) int { return cmpPath(a.Path, b.Path) })
	pair := func(from, to note.Path) {
		side.movedTo[from], side.movedFrom[to] = to, from
	}
	for _, g := range gone {
		for _, a := range added {
			if side.movedFrom[a.Path] == "" && a.Revision == g.OldRevision {
				pair(g.Path, a.Path)
				break
			}
		}
	}
	for _, g := range gone {
		oc, edited := other.ch[g.Path]
		if side.movedTo[g.Path] != "" || !edited || oc.Kind != repo.Put || oc.OldRevision == "" || !note.IsNote(g.Path) {
			continue
		}
		old, err := p.v.ReadRevision(p.ctx, g.OldRevision)
		if err != nil {
			continue
		}
		best, bestScore := note.Path(""), similar
		for _, a := range added {
			if side.movedFrom[a.Path] != "" || !note.IsNote(a.Path) {
				continue
			}
			b, err := p.v.ReadRevision(p.ctx, a.Revision)
			if err != nil {
				continue
			}
			if s := lineSimilarity(old, b); s > bestScore {
				best, bestScore = a.Path, s
			}
		}
		if best != "" {
			pair(g.Path, best)
		}
	}
}

// entryRefusal says why the vault cannot take change t of commit theirs
// whatever the vault holds ("" when it can): a name it refuses, a symbolic link,
// a submodule.
func entryRefusal(ctx context.Context, v Vault, t repo.FileChange, theirs string) (string, error) {
	if err := repo.MergeablePath(string(t.Path)); err != nil {
		return "a name the vault refuses: " + err.Error(), nil
	}
	if t.Kind == repo.Archive {
		return "", nil
	}
	kind, err := v.KindAt(ctx, t.Path, theirs)
	if err != nil {
		return "", err
	}
	switch kind {
	case repo.KindSymlink:
		return "a symbolic link: the vault takes only regular files from a remote (a link could lead outside it)", nil
	case repo.KindSubmodule:
		return "a submodule: the vault takes only regular files from a remote", nil
	}
	return "", nil
}

// refusal says why the vault cannot take theirs' change t ("" when it can):
// entryRefusal's reasons, and a file where ours has a folder or the other way
// round.
func (p *planner) refusal(t repo.FileChange) (string, error) {
	if reason, err := entryRefusal(p.ctx, p.v, t, p.theirs); reason != "" || err != nil || t.Kind == repo.Archive {
		return reason, err
	}
	kind, err := p.v.KindAt(p.ctx, t.Path, p.ours)
	if err != nil {
		return "", err
	}
	if kind == repo.KindDir {
		return "a file on the remote where this vault has a folder", nil
	}
	path := string(t.Path)
	for i := len(path) - 1; i > 0; i-- {
		if path[i] != '/' {
			continue
		}
		dir := note.Path(path[:i])
		if kind, err = p.v.KindAt(p.ctx, dir, p.ours); err != nil {
			return "", err
		}
		if tc, ok := p.theirSide.ch[dir]; kind != repo.KindNone && kind != repo.KindDir && !(ok && tc.Kind == repo.Archive) {
			return fmt.Sprintf("in a folder %s that is a file in this vault", dir), nil
		}
	}
	return "", nil
}

// path plans one path theirs changed.
func (p *planner) path(path note.Path) error {
	t := p.theirSide.ch[path]
	reason, err := p.refusal(t)
	if err != nil {
		return err
	}
	if reason != "" {
		p.plan.Refused = append(p.plan.Refused, RefusedPath{Path: string(path), Reason: reason})
		p.planned[path] = true
		return nil
	}
	o, oursChanged := p.ourSide.ch[path]
	oursEdited := oursChanged && o.Kind == repo.Put && o.OldRevision != ""
	switch {
	case p.theirSide.movedTo[path] != "" && oursEdited:
		// Theirs moved the note away, ours edited it: the edit follows the move
		// (merged at the destination), and the old path goes.
		return p.add(repo.Change{Kind: repo.Archive, Path: path, ExpectedRevision: o.Revision})
	case p.theirSide.movedFrom[path] != "":
		from := p.theirSide.movedFrom[path]
		if oc, ok := p.ourSide.ch[from]; ok && oc.Kind == repo.Put && oc.OldRevision != "" && !oursChanged {
			return p.mergeNote(path, oc.OldRevision, oc.Revision, t.Revision, "")
		}
	case p.ourSide.movedTo[path] != "" && t.Kind == repo.Put && t.OldRevision != "":
		// Ours moved the note, theirs edited it: the edit lands at ours' path.
		to := p.ourSide.movedTo[path]
		return p.mergeNote(to, t.OldRevision, p.ourSide.ch[to].Revision, t.Revision, p.ourSide.ch[to].Revision)
	}
	switch {
	case !oursChanged && t.Kind == repo.Archive:
		return p.add(repo.Change{Kind: repo.Archive, Path: path, ExpectedRevision: t.OldRevision})
	case !oursChanged:
		return p.put(path, t.Revision, t.OldRevision)
	case o.Revision == t.Revision:
		return nil // the same on both sides (both archived included)
	case t.Kind == repo.Archive:
		p.plan.Kept = append(p.plan.Kept, string(path)+": edited here, archived on the remote; the edit is kept")
		return nil
	case o.Kind == repo.Archive:
		p.plan.Kept = append(p.plan.Kept, string(path)+": archived here, edited on the remote; the edit is kept")
		return p.put(path, t.Revision, "")
	case o.OldRevision == "" || !note.IsNote(path):
		// Two creates of one path, or a file that is not a note: never merged by lines.
		b, err := p.v.ReadRevision(p.ctx, t.Revision)
		if err != nil {
			return err
		}
		return p.sibling(path, b, nil)
	}
	return p.mergeNote(path, t.OldRevision, o.Revision, t.Revision, o.Revision)
}

// mergeNote merges three versions of a note into path, whose revision in ours'
// tree is expected.
func (p *planner) mergeNote(path note.Path, base, ours, theirs, expected repo.Revision) error {
	var sides [3][]byte
	for i, rev := range []repo.Revision{base, ours, theirs} {
		b, err := p.v.ReadRevision(p.ctx, rev)
		if err != nil {
			return err
		}
		sides[i] = b
	}
	if !isText(sides[1]) || !isText(sides[2]) {
		return p.sibling(path, sides[2], nil)
	}
	m := note.Merge3(sides[0], sides[1], sides[2])
	if !bytes.Equal(m.Bytes, sides[1]) || ours != expected {
		if err := p.add(repo.Change{Kind: repo.Put, Path: path, Content: m.Bytes, ExpectedRevision: expected}); err != nil {
			return err
		}
	}
	if m.Clean() {
		return nil
	}
	return p.sibling(path, sides[2], m.Conflicts)
}

// normDir is the vault's own folder; conflictsDir, inside it, keeps theirs'
// version of a conflicted file of normDir (siblingBase).
const (
	normDir      = ".norn/"
	conflictsDir = ".norn/conflicts/"
)

// siblingBase is the path a conflict sibling of path is named after: path
// itself (the sibling goes beside it), except for a file of the vault's own
// folder (.norn/claims/*.yaml, .norn/synthesis/*.yaml, .norn/config.yaml): its
// sibling goes under .norn/conflicts/ with the same relative path, so that a
// reader loading every record of a folder (one YAML file per claim) never takes
// the sibling for another record.
func siblingBase(path note.Path) note.Path {
	s := string(path)
	if strings.HasPrefix(s, normDir) && !strings.HasPrefix(s, conflictsDir) {
		return note.Path(conflictsDir + strings.TrimPrefix(s, normDir))
	}
	return path
}

// ConflictedRecord is the file of the vault's own folder a sibling under
// .norn/conflicts/ keeps theirs' version of (".norn/conflicts/claims/c1
// (conflict 2026-12-07 laptop).yaml" → ".norn/claims/c1.yaml": siblingBase
// undone), and true; false for any other path.
func ConflictedRecord(p note.Path) (note.Path, bool) {
	if !strings.HasPrefix(string(p), conflictsDir) {
		return "", false
	}
	orig, ok := note.ConflictOrigin(p)
	if !ok {
		return "", false
	}
	return note.Path(normDir + strings.TrimPrefix(string(orig), conflictsDir)), true
}

// sibling keeps theirs' bytes of path in a conflict sibling (beside it; for a
// file of .norn/, under .norn/conflicts/: siblingBase).
func (p *planner) sibling(path note.Path, theirs []byte, conflicts []note.Conflict) error {
	var sib note.Path
	for n := 1; ; n++ {
		s, err := note.ConflictPath(siblingBase(path), p.day, p.machine, n)
		if err != nil {
			return err
		}
		if !p.planned[s] && !p.exists(s, p.ours) && !p.exists(s, p.theirs) {
			sib = s
			break
		}
	}
	content := theirs
	if note.IsNote(path) {
		var err error
		if content, err = note.ConflictNote(path, theirs, p.day, p.machine); err != nil {
			return err
		}
	}
	if conflicts == nil {
		conflicts = []note.Conflict{{Kind: note.ConflictWhole}}
	}
	p.plan.Conflicts = append(p.plan.Conflicts, Conflict{Path: path, Sibling: sib, Detail: note.ConflictTrailer(path, sib, conflicts)})
	return p.add(repo.Change{Kind: repo.Put, Path: sib, Content: content})
}

// put takes theirs' blob rev at path.
func (p *planner) put(path note.Path, rev, expected repo.Revision) error {
	b, err := p.v.ReadRevision(p.ctx, rev)
	if err != nil {
		return err
	}
	return p.add(repo.Change{Kind: repo.Put, Path: path, Content: b, ExpectedRevision: expected})
}

func (p *planner) add(c repo.Change) error {
	if p.planned[c.Path] {
		return fmt.Errorf("%w: the merge changes %s twice", ErrInvalid, c.Path)
	}
	p.planned[c.Path] = true
	p.plan.Changes = append(p.plan.Changes, c)
	return nil
}

func (p *planner) exists(path note.Path, at string) bool {
	_, err := p.v.Read(p.ctx, path, at)
	return !errors.Is(err, repo.ErrNotFound)
}

// isText reports whether b can merge by lines: UTF-8 without NUL.
func isText(b []byte) bool {
	return utf8.Valid(b) && bytes.IndexByte(b, 0) < 0
}

// lineSimilarity is the share of non-blank lines a and b have in common (as
// multisets), over the longer one's count of them.
func lineSimilarity(a, b []byte) float64 {
	lines := func(x []byte) [][]byte {
		var out [][]byte
		for _, l := range bytes.Split(x, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				out = append(out, l)
			}
		}
		return out
	}
	la, lb := lines(a), lines(b)
	if len(la) == 0 || len(lb) == 0 {
		return 0
	}
	count := map[string]int{}
	for _, l := range la {
		count[string(l)]++
	}
	common := 0
	for _, l := range lb {
		if count[string(l)] > 0 {
			count[string(l)]--
			common++
		}
	}
	return float64(common) / float64(max(len(la), len(lb)))
}

func cmpPath(a, b note.Path) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
