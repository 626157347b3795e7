package repo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/norn-vault/norn/note"
)

// Trailer keys of a merge commit (besides Norn-Op: merge).
const (
	TrailerRemote   = "Norn-Remote"
	TrailerOurs     = "Norn-Ours"
	TrailerTheirs   = "Norn-Theirs"
	TrailerConflict = "Norn-Conflict"
)

// foreign is a committer request that takes in commits Norn did not make here: a
// fast-forward to a fetched commit (merge nil) or a merge of one.
type foreign struct {
	old    hash // the tip the caller expects the branch at
	target hash // advance: the commit to move to; merge: theirs
	merge  *MergeTx
}

// MergeTx is a merge transaction: one commit with two parents, Base (ours, which
// must be the branch's tip) and Theirs, whose tree is Base's with Changes applied.
type MergeTx struct {
	// Base is ours: the commit the merge was worked out at.
	Base CommitID
	// Theirs is the other side's tip (a fetched commit).
	Theirs CommitID
	// Author defaults to the vault's owner.
	Author Author
	// Message is the subject (ValidSubject); empty: "merge THEIRS".
	Message string
	// Trailers follow Norn-Op: merge, in order (Norn-Remote, Norn-Conflict, …):
	// one line each, keys of letters, digits and '-'.
	Trailers [][2]string
	// Changes are Put (Content, ExpectedRevision as at Base) and Archive changes
	// on top of Base. Gates do not run: both sides' changes passed theirs.
	Changes []Change
}

// ErrWorktreeDirty: the working tree holds edits a person made and did not commit
// at paths a sync must write; nothing was changed. See *DirtyError, which
// matches ErrConflict too.
var ErrWorktreeDirty = errors.New("uncommitted edits in the working tree")

// DirtyError names the paths whose uncommitted edits stopped an advance or merge.
type DirtyError struct {
	Paths []note.Path
}

func (e *DirtyError) Error() string {
	ps := make([]string, len(e.Paths))
	for i, p := range e.Paths {
		ps[i] = string(p)
	}
	return fmt.Sprintf("%v at %s: commit them (`norn commit`) and sync again", ErrWorktreeDirty, strings.Join(ps, ", "))
}

// Is makes errors.Is(err, ErrWorktreeDirty) and errors.Is(err, ErrConflict)
// true: like a write over a person's edit, it is a conflict to retry once the
// edits are committed.
func (e *DirtyError) Is(target error) bool {
	return target == ErrWorktreeDirty || target == ErrConflict
}

// Advance fast-forwards the branch from old (its tip now) to target, a commit
// that descends from it (fetched from a remote), through the committer: the
// working tree and git's index follow, observers are told (Source sync), and
// files a person edited and did not commit are never overwritten (a *DirtyError
// naming them). A branch not at old is a *StaleBaseError; target unknown or not
// a descendant of old is ErrNotFound or ErrInvalid. On any error nothing changed.
// Advancing to old itself is a no-op (Result.Unchanged).
func (v *Vault) Advance(ctx context.Context, old, target CommitID) (*Result, error) {
	f, err := v.foreignRequest(old, target)
	if err != nil {
		return nil, fmt.Errorf("advance to %s: %w", target.Short(), err)
	}
	res, err := v.submit(ctx, &request{foreign: f})
	if err != nil {
		return nil, fmt.Errorf("advance to %s: %w", target.Short(), err)
	}
	return res, nil
}

// Merge commits a merge transaction (see MergeTx) through the committer, with the
// same guarantees as Advance: Base not the tip is a *StaleBaseError, uncommitted
// edits at a path it writes a *DirtyError, a bad change ErrInvalid or
// ErrConflict; on any error nothing changed. The commit carries Norn-Op: merge
// and the given trailers; its event (Source sync) lists what it brought in
// against Base.
func (v *Vault) Merge(ctx context.Context, m MergeTx) (*Result, error) {
	f, err := v.foreignRequest(m.Base, m.Theirs)
	if err != nil {
		return nil, fmt.Errorf("merge %s: %w", m.Theirs.Short(), err)
	}
	if err := validMergeTx(&m); err != nil {
		return nil, fmt.Errorf("merge %s: %w", m.Theirs.Short(), err)
	}
	f.merge = &m
	res, err := v.submit(ctx, &request{foreign: f})
	if err != nil {
		return nil, fmt.Errorf("merge %s: %w", m.Theirs.Short(), err)
	}
	return res, nil
}

func (v *Vault) foreignRequest(old, target CommitID) (*foreign, error) {
	f := &foreign{}
	if old != "" {
		h, ok := parseHash(string(old))
		if !ok {
			return nil, invalidf("old tip %q is not a 40-character hex id", old)
		}
		f.old = h
	}
	h, err := v.commitHash(target)
	if err != nil {
		return nil, err
	}
	f.target = h
	return f, nil
}

// MergeablePath checks the path rules a merge's Put obeys (ValidPath, and names
// within MaxNameBytes not starting with TempPrefix): a path from another
// machine's tree that fails them cannot be taken into the vault.
func MergeablePath(p string) error {
	if err := ValidPath(p); err != nil {
		return err
	}
	return writableName(p)
}

func validMergeTx(m *MergeTx) error {
	if err := ValidSubject(strings.TrimSpace(m.Message)); err != nil {
		return err
	}
	for _, t := range m.Trailers {
		if t[0] == "" || strings.ContainsFunc(t[0], func(r rune) bool {
			return !(r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
		}) {
			return invalidf("trailer key %q", t[0])
		}
		if strings.ContainsAny(t[1], "\r\n") {
			return invalidf("trailer %s holds a line break", t[0])
		}
	}
	seen := map[note.Path]bool{}
	for _, c := range m.Changes {
		if err := ValidPath(string(c.Path)); err != nil {
			return err
		}
		if err := writableName(string(c.Path)); err != nil && c.Kind == Put {
			return err
		}
		if c.Kind != Put && c.Kind != Archive {
			return invalidf("a merge takes put and archive changes, not %q", c.Kind)
		}
		if seen[c.Path] {
			return invalidf("%s appears twice in one merge", c.Path)
		}
		seen[c.Path] = true
	}
	return nil
}

// stageForeign is stage for an advance or a merge: it checks the request against
// base and returns the snapshot after it, with the working-tree changes.
func (v *Vault) stageForeign(base *snapshot, f *foreign, objects *objectBatch) (*staged, error) {
	if f.old != base.commit {
		return nil, &StaleBaseError{Base: CommitID(f.old.String()), Head: CommitID(base.commit.String())}
	}
	res := &Result{Parent: CommitID(base.commit.String())}
	if f.merge == nil && f.target == base.commit {
		res.Unchanged, res.Changes = true, []FileChange{}
		return &staged{res: res, snap: base}, nil
	}
	if f.merge != nil {
		return v.stageMerge(base, f, res, objects)
	}
	if ok, err := v.isAncestor(base.commit, f.target); err != nil || !ok {
		if err == nil {
			err = invalidf("%s does not descend from the branch's tip %s: merge instead", f.target, base.commit)
		}
		return nil, err
	}
	co, err := v.readCommit(f.target)
	if err != nil {
		return nil, err
	}
	root, err := v.objs.loadTree(co.tree)
	if err != nil {
		return nil, err
	}
	var fcs []FileChange
	if err := v.diffTrees(base.root.id, root.id, "", &fcs); err != nil {
		return nil, err
	}
	files, err := v.foreignFiles(root, fcs, nil)
	if err != nil {
		return nil, err
	}
	res.Commit, res.Changes = CommitID(f.target.String()), fcs
	return &staged{res: res, snap: &snapshot{commit: f.target, root: root}, commit: toCommit(f.target, co), files: files}, nil
}

// stageMerge stages a merge transaction: every check first, then its blobs, trees
// and commit go on objects.
func (v *Vault) stageMerge(base *snapshot, f *foreign, res *Result, objects *objectBatch) (*staged, error) {
	m := f.merge
	root := base.root
	blobs := map[string][]byte{}
	var fcs []FileChange
	for _, c := range m.Changes {
		p := string(c.Path)
		cur := root.lookup(p)
		if cur != nil && cur.isDir() {
			return nil, invalidf("%s is a folder, not a note", p)
		}
		curRev := Revision("")
		if cur != nil {
			curRev = Revision(cur.id.String())
		}
		if c.ExpectedRevision != curRev {
			return nil, &ConflictError{Path: c.Path, Expected: c.ExpectedRevision, Current: curRev, Reason: ConflictHint(c.ExpectedRevision, curRev)}
		}
		fc := FileChange{Kind: c.Kind, Path: c.Path, OldRevision: curRev}
		var leaf *node
		if c.Kind == Put {
			content := c.Content
			if content == nil {
				content = []byte{}
			}
			mode := modeFile
			if cur != nil {
				mode = cur.mode
			}
			leaf = &node{mode: mode, id: objectID("blob", content)}
			if cur != nil && cur.id == leaf.id {
				continue // already ours
			}
			blobs[p] = content
			fc.Revision = Revision(leaf.id.String())
		} else if cur == nil {
			return nil, notFoundf("%s does not exist at %s", p, base.commit)
		}
		var err error
		if root, err = root.with(p, leaf); err != nil {
			return nil, err
		}
		fcs = append(fcs, fc)
	}
	files, err := v.foreignFiles(root, fcs, blobs)
	if err != nil {
		return nil, err
	}
	for _, fc := range fcs {
		if b, ok := blobs[string(fc.Path)]; ok {
			objects.write("blob", b)
		}
	}
	writeTrees(objects, root)
	now := v.opts.Now()
	co := &commitObj{tree: root.id, parents: []hash{base.commit, f.target}, author: m.Author,
		committer: v.opts.Committer, when: now, message: mergeMessage(m)}
	if co.author.Name == "" {
		co.author = v.opts.Owner
	}
	cid := objects.write("commit", encodeCommit(co, now))
	res.Commit, res.Changes = CommitID(cid.String()), fcs
	return &staged{res: res, snap: &snapshot{commit: cid, root: root}, commit: toCommit(cid, co), files: files}, nil
}

// foreignFiles turns changes into working-tree changes, refusing (with every
// path named) to write over uncommitted edits. A file's bytes come from blobs
// (new ones, by path) or the object store.
func (v *Vault) foreignFiles(root *node, fcs []FileChange, blobs map[string][]byte) ([]wtChange, error) {
	var dirty []note.Path
	files := make([]wtChange, 0, len(fcs))
	for _, fc := range fcs {
		if err := v.checkWorktreeClean(fc.Path, fc.OldRevision); err != nil {
			if !errors.Is(err, ErrConflict) {
				return nil, err
			}
			dirty = append(dirty, fc.Path)
			continue
		}
		wc := wtChange{path: string(fc.Path)}
		if n := root.lookup(string(fc.Path)); n != nil {
			if n.mode != modeFile && n.mode != modeExec {
				continue // a symlink or submodule: git's to check out
			}
			data, ok := blobs[string(fc.Path)]
			if !ok {
				var err error
				if data, err = v.objs.readTyped(n.id, "blob"); err != nil {
					return nil, fmt.Errorf("read %s: %w", fc.Path, err)
				}
			}
			wc.content, wc.id, wc.mode = data, n.id, n.mode
		}
		files = append(files, wc)
	}
	if len(dirty) > 0 {
		return nil, &DirtyError{Paths: dirty}
	}
	return files, nil
}

// isAncestor reports whether a is b or one of b's ancestors.
func (v *Vault) isAncestor(a, b hash) (bool, error) {
	if a.isZero() || a == b {
		return true, nil
	}
	base, err := v.mergeBase(context.Background(), a, b)
	return base == a, err
}

func mergeMessage(m *MergeTx) string {
	subject := strings.TrimSpace(m.Message)
	if subject == "" {
		subject = "merge " + m.Theirs.Short()
	}
	trailers := append([][2]string{{trailerOp, string(OpMerge)}}, m.Trailers...)
	return buildMessage(subject, trailers)
}

// MergeBase returns a best common ancestor of commits a and b ("" when their
// histories share none): of the commits only a reaches, the parents that b
// reaches, the newest first (git's answer whenever there is one best ancestor).
// An unknown commit is ErrNotFound.
func (v *Vault) MergeBase(ctx context.Context, a, b CommitID) (CommitID, error) {
	ha, err := v.commitHash(a)
	if err != nil {
		return "", fmt.Errorf("merge base: %w", err)
	}
	hb, err := v.commitHash(b)
	if err != nil {
		return "", fmt.Errorf("merge base: %w", err)
	}
	base, err := v.mergeBase(ctx, ha, hb)
	if err != nil || base.isZero() {
		return "", err
	}
	return CommitID(base.String()), nil
}

func (v *Vault) mergeBase(ctx context.Context, a, b hash) (hash, error) {
	w, err := v.walkBetween(ctx, b, a)
	if err != nil {
		return zeroHash, fmt.Errorf("merge base: %w", err)
	}
	if len(w.order) == 0 {
		return a, nil // b reaches a
	}
	only := make(map[hash]bool, len(w.order))
	for _, id := range w.order {
		only[id] = true
	}
	var best hash
	var bestObj *commitObj
	for _, id := range w.order {
		for _, p := range w.objs[id].parents {
			if only[p] {
				continue
			}
			c, err := v.readCommit(p)
			if err != nil {
				return zeroHash, fmt.Errorf("merge base: %w", err)
			}
			if bestObj == nil || c.when.After(bestObj.when) {
				best, bestObj = p, c
			}
		}
	}
	return best, nil
}

// KeepPacks stops the vault from merging or deleting its packs until release is
// called: another reader of the object folder (go-git fetching or pushing) lists
// the packs once and must find every one it listed. Writes go on meanwhile.
func (v *Vault) KeepPacks() (release func()) {
	v.objs.packs.holds.Add(1)
	var once sync.Once
	return func() { once.Do(func() { v.objs.packs.holds.Add(-1) }) }
}
