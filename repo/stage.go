package repo

import (
	"context"
	"errors"
	"fmt"
)

// stage checks a transaction against snapshot base and, unless it is a dry run
// (objects == nil), queues its objects on objects (written unsynced) and returns the
// snapshot after it. For a dry run the returned
// staged carries the result even when the gate rejects (err is then the rejection).
func (v *Vault) stage(ctx context.Context, base *snapshot, tx *Tx, external bool, objects *objectBatch) (*staged, error) {
	dry := objects == nil
	if err := v.checkTx(ctx, base, tx, external); err != nil {
		return nil, err
	}
	root := base.root
	res := &Result{DryRun: dry}
	if !base.commit.isZero() {
		res.Parent = CommitID(base.commit.String())
	}
	prop := &Proposal{Author: tx.Author, Roles: tx.Roles, Op: tx.Op, IsSymlink: v.isSymlink(base), Names: base.root.names, Twins: base.root.twins}
	var files []wtChange
	var blobs [][]byte
	for _, c := range tx.Changes {
		p := string(c.Path)
		cur, curRev, err := noteAt(root, p)
		if err != nil {
			return nil, err
		}
		if err := v.checkWorktree(c, curRev, external); err != nil {
			return nil, err
		}
		pc := ProposedChange{Kind: c.Kind, Path: c.Path, From: c.From, OldRevision: curRev}
		fc := FileChange{Kind: c.Kind, Path: c.Path, From: c.From, OldRevision: curRev}
		content, mode, err := v.changeContent(ctx, root, c, cur, curRev, &pc, &fc)
		if err != nil {
			return nil, err
		}
		if cur != nil && c.Kind != Move && v.opts.Gate != nil && !external {
			old, err := v.objs.readTyped(cur.id, "blob")
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", c.Kind, p, err)
			}
			pc.Old = old
		}
		if content != nil && len(content) > v.opts.MaxNoteBytes && !external {
			return nil, invalidf("%s is %d bytes, over the limit of %d", p, len(content), v.opts.MaxNoteBytes)
		}
		if c.Kind == Move {
			if root, err = root.with(string(c.From), nil); err != nil {
				return nil, err
			}
			files = append(files, wtChange{path: string(c.From)})
		}
		if content == nil && c.Kind != Archive {
			content = []byte{} // an empty note is still a note
		}
		var leaf *node
		if c.Kind != Archive {
			id := objectID("blob", content)
			leaf = &node{mode: mode, id: id}
			fc.Revision = Revision(id.String())
			pc.New = content
			blobs = append(blobs, content)
		}
		if root, err = root.with(p, leaf); err != nil {
			return nil, err
		}
		wc := wtChange{path: p, content: content, mode: mode}
		if leaf != nil {
			wc.id = leaf.id
		}
		files = append(files, wc)
		prop.Changes = append(prop.Changes, pc)
		res.Changes = append(res.Changes, fc)
	}
	unchanged := unchangedTx(tx, res, external)
	var gateErr error
	if v.opts.Gate != nil && !external {
		if err := v.opts.Gate(ctx, prop); err != nil {
			gateErr = fmt.Errorf("%w: %w", ErrRejected, err)
		}
	}
	if unchanged {
		res.Unchanged = true
		res.Changes = []FileChange{}
	}
	if dry {
		return &staged{res: res}, gateErr
	}
	if gateErr != nil {
		return nil, gateErr
	}
	if unchanged {
		return &staged{res: res, snap: base}, nil
	}
	return v.writeCommit(objects, base, tx, root, blobs, files, res), nil
}

// checkTx validates a transaction and checks that its Base, if set, is base's
// commit. A path the validation refuses is offered to the path gate first, so
// that it names the rule (as ErrRejected).
func (v *Vault) checkTx(ctx context.Context, base *snapshot, tx *Tx, external bool) error {
	if err := v.validateTx(tx, external, base); err != nil {
		var pe *pathError
		if !external && v.opts.PathGate != nil && errors.As(err, &pe) {
			// Let the gates name the path rule, as for every other path they refuse.
			if gerr := v.opts.PathGate(ctx, v.pathProposal(tx, base)); gerr != nil {
				return fmt.Errorf("%w: %w", ErrRejected, gerr)
			}
		}
		return err
	}
	if tx.Base != "" && tx.Base != CommitID(base.commit.String()) {
		return &StaleBaseError{Base: tx.Base, Head: CommitID(base.commit.String())}
	}
	return nil
}

// noteAt returns the note at path p under root (nil when there is none) and its
// revision; a folder or a non-regular file there is invalid input.
func noteAt(root *node, p string) (*node, Revision, error) {
	cur := root.lookup(p)
	if cur != nil && cur.isDir() {
		return nil, "", invalidf("%s is a folder, not a note", p)
	}
	if cur != nil && cur.mode != modeFile && cur.mode != modeExec {
		return nil, "", invalidf("%s is not a regular file (mode %o)", p, cur.mode)
	}
	curRev := Revision("")
	if cur != nil {
		curRev = Revision(cur.id.String())
	}
	return cur, curRev, nil
}

// checkWorktree checks that the working tree does not hold edits change c would
// overwrite (its source too, for a move); for an external commit, that it holds
// the change, the note being at curRev in HEAD.
func (v *Vault) checkWorktree(c Change, curRev Revision, external bool) error {
	if external {
		return v.checkWorktreeHolds(c, curRev)
	}
	expected := c.ExpectedRevision
	if c.Kind == Move {
		expected = "" // a move's ExpectedRevision is its source's
	}
	if err := v.checkWorktreeClean(c.Path, expected); err != nil {
		return err
	}
	if c.Kind == Move {
		if err := v.checkWorktreeClean(c.From, c.ExpectedRevision); err != nil {
			return err
		}
	}
	return nil
}

// changeContent checks change c against the note cur (at curRev) under root and
// returns the note's new content and mode (nil content for an archive); for a
// move it records the source's content and revision on pc and fc.
func (v *Vault) changeContent(ctx context.Context, root *node, c Change, cur *node, curRev Revision, pc *ProposedChange, fc *FileChange) ([]byte, uint32, error) {
	p := string(c.Path)
	var content []byte
	mode := modeFile
	switch c.Kind {
	case Put:
		if c.ExpectedRevision != curRev {
			return nil, 0, &ConflictError{Path: c.Path, Expected: c.ExpectedRevision, Current: curRev, Reason: ConflictHint(c.ExpectedRevision, curRev)}
		}
		content = c.Content
		if cur != nil {
			mode = cur.mode
		}
	case Archive:
		if cur == nil && c.ExpectedRevision != "" {
			return nil, 0, &ConflictError{Path: c.Path, Expected: c.ExpectedRevision, Reason: "the note was archived or moved since you read it; re-read and retry"}
		}
		if cur == nil {
			return nil, 0, notFoundf("%s does not exist at HEAD", p)
		}
		if c.ExpectedRevision != "" && c.ExpectedRevision != curRev {
			return nil, 0, &ConflictError{Path: c.Path, Expected: c.ExpectedRevision, Current: curRev, Reason: "the note changed since you read it; re-read and retry"}
		}
	case Restore:
		if cur != nil {
			return nil, 0, &ConflictError{Path: c.Path, Current: curRev, Reason: "restore never overwrites: archive or move the current note first"}
		}
		b, err := v.restoreSource(ctx, c)
		if err != nil {
			return nil, 0, err
		}
		content = b
	case Move:
		from := root.lookup(string(c.From))
		if from == nil || from.isDir() {
			return nil, 0, notFoundf("%s does not exist at HEAD", c.From)
		}
		fromRev := Revision(from.id.String())
		if c.ExpectedRevision != "" && c.ExpectedRevision != fromRev {
			return nil, 0, &ConflictError{Path: c.From, Expected: c.ExpectedRevision, Current: fromRev, Reason: "the note changed since you read it; re-read and retry"}
		}
		if cur != nil {
			return nil, 0, &ConflictError{Path: c.Path, Current: curRev, Reason: "the destination exists; a move never overwrites"}
		}
		old, err := v.objs.readTyped(from.id, "blob")
		if err != nil {
			return nil, 0, fmt.Errorf("move %s: %w", c.From, err)
		}
		pc.Old, pc.OldRevision, fc.OldRevision = old, fromRev, fromRev
		content = old
		if c.Content != nil {
			content = c.Content
		}
		mode = from.mode
	}
	return content, mode, nil
}

// unchangedTx reports whether every change of tx puts a note's current bytes
// back. Such a transaction changes nothing: it commits nothing (no empty commit)
// and says so. The gates still judge it, so a dry run and a write agree. An
// external commit is never unchanged.
func unchangedTx(tx *Tx, res *Result, external bool) bool {
	if external {
		return false
	}
	for i, c := range tx.Changes {
		if c.Kind != Put || res.Changes[i].Revision != res.Changes[i].OldRevision {
			return false
		}
	}
	return true
}

// writeCommit queues the transaction's blobs, the trees under root and its
// commit on objects, and returns the staged commit.
func (v *Vault) writeCommit(objects *objectBatch, base *snapshot, tx *Tx, root *node, blobs [][]byte, files []wtChange, res *Result) *staged {
	for _, b := range blobs {
		objects.write("blob", b)
	}
	writeTrees(objects, root)
	now := v.opts.Now()
	co := &commitObj{tree: root.id, author: v.authorOf(tx), committer: v.opts.Committer, when: now, message: v.message(tx)}
	if !base.commit.isZero() {
		co.parents = []hash{base.commit}
	}
	cid := objects.write("commit", encodeCommit(co, now))
	res.Commit = CommitID(cid.String())
	return &staged{res: res, snap: &snapshot{commit: cid, root: root}, commit: toCommit(cid, co), files: files}
}
