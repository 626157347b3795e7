package repo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/norn-vault/norn/note"
)

// request is one unit of work for the committer goroutine.
type request struct {
	ctx context.Context
	tx  *Tx
	// external marks a commit of edits already in the working tree: no gate, and the
	// working tree is not rewritten.
	external bool
	// fn, when set, runs alone with the committer's lock held (gc).
	fn func() error
	// foreign, when set, takes in commits made elsewhere (Advance, Merge); it is
	// committed alone, like an external request.
	foreign *foreign
	// blobs are the new blobs, deflated in the writer's goroutine.
	blobs []packObj
	reply chan reply
}

type reply struct {
	res *Result
	err error
}

// staged is a transaction turned into objects, waiting for the batch to be synced.
type staged struct {
	req    *request
	res    *Result
	snap   *snapshot
	commit Commit
	files  []wtChange
}

// wtChange is what the working tree must do for one path after the commit lands.
type wtChange struct {
	path    string
	content []byte // nil: remove
	id      hash
	mode    uint32
}

// Apply turns a transaction into exactly one commit and returns what changed. A dry
// run checks everything and writes nothing. Errors match ErrConflict (with a
// *ConflictError), ErrRejected (wrapping the gate's error), ErrNotFound, ErrInvalid
// or ErrClosed; on any error nothing was written.
func (v *Vault) Apply(ctx context.Context, tx Tx) (*Result, error) {
	if tx.DryRun {
		if err := v.gitBusyWait(ctx); err != nil {
			return nil, err // the write itself would be refused (see commitGroup)
		}
		st, err := v.stage(ctx, v.snap.Load(), &tx, false, nil)
		if st == nil {
			return nil, err
		}
		return st.res, err
	}
	// Deflate the new blobs here, in the writer's goroutine, so that concurrent
	// writers compress in parallel; the committer packs them with the batch if the
	// transaction passes.
	r := &request{tx: &tx}
	for _, c := range tx.Changes {
		if (c.Kind == Put || c.Kind == Move) && c.Content != nil && len(c.Content) <= v.opts.MaxNoteBytes {
			r.blobs = append(r.blobs, v.objs.deflate("blob", c.Content))
		}
	}
	return v.submit(ctx, r)
}

func (v *Vault) submit(ctx context.Context, r *request) (*Result, error) {
	r.ctx = ctx
	r.reply = make(chan reply, 1)
	select {
	case <-v.closing:
		return nil, ErrClosed
	default:
	}
	select {
	case v.reqs <- r:
	case <-v.closing:
		return nil, ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	// Once queued, the committer always answers (it drains the queue on close), so
	// waiting here never loses an acknowledgement of a write that landed.
	rep := <-r.reply
	return rep.res, rep.err
}

// Refresh catches the vault up with commits another process made (a `norn`
// command beside a server, the git CLI, a pull): the snapshot reads are served from
// and git's index move to the branch's tip, and OnCommit and the event observers
// hear about the new commits. Writes do this by themselves; Refresh is for a process that mostly reads.
func (v *Vault) Refresh(ctx context.Context) error {
	_, err := v.submit(ctx, &request{fn: func() error { return nil }})
	return err
}

// Behind reports whether the branch on disk is at another commit than the one the
// vault's reads are served from: a commit another process made that Refresh has not
// taken in yet. It reads the ref only (no lock, no queue): true when it cannot.
func (v *Vault) Behind() bool {
	tip, err := readRef(v.gitDir, v.branch)
	return err != nil || tip != v.snap.Load().commit
}

// run is the committer: the only goroutine that writes objects, refs, the working
// tree and git's index. It takes every request queued at the moment (group commit),
// stages each as its own commit on top of the previous one, makes them all durable
// with one sync, moves the branch once, and then acknowledges each.
func (v *Vault) run() {
	defer close(v.done)
	last := 0 // requests in the previous batch
	for {
		var first *request
		var idle <-chan time.Time
		if v.hasIdleWork() {
			idle = time.After(100 * time.Millisecond)
		}
		select {
		case <-idle:
			if v.gitQuietNow() { // else again at the next idle round
				v.exclusive(v.refreshIndex)
			}
			continue
		case first = <-v.reqs:
		case <-v.closing:
			// Finish what is queued, then stop.
			for {
				select {
				case r := <-v.reqs:
					v.exclusive(func() { v.process([]*request{r}) })
				default:
					v.exclusive(func() {
						v.refreshIndex()
						v.settlePacks()
					})
					return
				}
			}
		}
		batch := v.gather(first, last)
		last = len(batch)
		v.exclusive(func() { v.process(batch) })
	}
}

// exclusive runs fn holding the writer lock, after catching up with what other
// processes committed meanwhile. A lock that cannot be taken (a file system without
// flock) is logged and fn runs anyway: the branch's own lock still refuses a batch
// built on a stale tip.
func (v *Vault) exclusive(fn func()) {
	if err := v.wlock.lock(); err != nil {
		v.log.Error("vault writer lock", "err", err)
		fn()
		return
	}
	defer v.wlock.unlock()
	v.syncForeign()
	switch {
	case v.away.Load():
		if v.gitBusy() == nil {
			// git is done with the working tree (a switch back, a finished
			// merge): its index is what git left, not what Norn last wrote.
			v.away.Store(false)
			v.reloadIndex()
			// A `git switch` reads HEAD before it takes the index lock: one that
			// began as a batch moved the branch leaves git's index at the
			// branch's previous commit, which recovery mends (it leaves what a
			// person staged alone).
			if v.mendLater {
				v.mendLater = false
				if err := v.recover(context.Background()); err != nil {
					v.log.Error("recover working tree", "err", err)
				}
			}
		}
	case v.idxDirty:
		// A batch's index write found git holding the lock: Norn's copy is HEAD's,
		// git's a commit behind (it would stage the write's revert).
		v.writeDirtyIndex()
	case v.idx.changedOnDisk():
		// git changed its index without moving the branch (git add, git rm
		// --cached): writing Norn's copy back would undo that.
		v.sawGit()
		v.reloadIndex()
	}
	fn()
}

// writeDirtyIndex writes Norn's copy of git's index once git has let go of it.
func (v *Vault) writeDirtyIndex() {
	if v.gitBusy() != nil {
		return
	}
	v.idxMu.Lock()
	defer v.idxMu.Unlock()
	v.markWorktree()
	if err := v.idx.write(); err != nil {
		v.log.Error("write git index", "err", err)
	} else {
		v.idxDirty = false
	}
	v.unmarkWorktree()
}

// syncForeign brings the snapshot and git's index to a branch another process (a
// `norn` command, the git CLI, a pull) moved, tells OnCommit, and queues the move
// for the event goroutine, which reads the new commits (all of them, merges'
// sides included) from git. The caller holds the writer lock, so a Norn process
// that moved it has finished its working tree and index.
func (v *Vault) syncForeign() {
	old := v.snap.Load().commit
	tip, err := readRef(v.gitDir, v.branch)
	if err != nil {
		v.log.Error("read branch", "err", err)
		return
	}
	if tip == old {
		return
	}
	v.sawGit()
	start := time.Now()
	v.wtMu.Lock()
	err = v.loadHead()
	v.wtMu.Unlock()
	if err != nil {
		v.log.Error("reload head", "err", err)
		return
	}
	headAt := time.Now()
	v.reloadIndex()
	indexAt := time.Now()
	if v.opts.OnCommit != nil {
		v.opts.OnCommit(CommitID(tip.String()))
	}
	v.log.Debug("took in a foreign commit", "from", old, "to", tip, "head", headAt.Sub(start),
		"git_index", indexAt.Sub(headAt), "on_commit", time.Since(indexAt))
	if v.events.listening() {
		v.events.add(pending{base: old, tip: tip})
	}
}

// gatherWait bounds how long the committer holds a batch open for writers that
// were in the previous one (see gather).
const gatherWait = 500 * time.Microsecond

// gather takes first and every request queued behind it. When fewer than last (the
// size of the previous batch) are there, it waits up to gatherWait for the rest:
// writers acknowledged together resubmit a few microseconds apart, and without the
// wait the first of them would go alone, then the others, and the batches would
// alternate between one write and the rest (measured with 8 writers: 47 batches of
// 1 and 42 of 7 for 400 writes). A sequential writer (last = 1) never waits.
func (v *Vault) gather(first *request, last int) []*request {
	batch := []*request{first}
	var timeout <-chan time.Time
	for len(batch) < v.opts.MaxBatch {
		select {
		case r := <-v.reqs:
			batch = append(batch, r)
			continue
		default:
		}
		if len(batch) >= last {
			return batch
		}
		if timeout == nil {
			t := time.NewTimer(gatherWait)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case r := <-v.reqs:
			batch = append(batch, r)
		case <-timeout:
			return batch
		case <-v.closing:
			return batch
		}
	}
	return batch
}

// reloadIndex drops the in-memory index changes of a batch that did not land.
func (v *Vault) reloadIndex() {
	v.idxMu.Lock()
	defer v.idxMu.Unlock()
	idx, err := loadGitIndex(v.gitDir, v.opts.Lean, v.idx)
	if err != nil {
		v.log.Error("reload git index", "err", err)
		return
	}
	idx.drop = v.unlinks
	v.idx.release()
	v.idx = idx
	v.idxDirty = false
	clear(v.pendingStat)
}

func (v *Vault) process(batch []*request) {
	var group []*request
	for _, r := range batch {
		if r.fn != nil {
			v.commitGroup(group)
			group = nil
			v.settlePacks()
			r.reply <- reply{err: r.fn()}
			continue
		}
		if r.external || r.foreign != nil {
			// Alone, after the working tree has caught up with every write before
			// it: stage's check that the scanned edits are still on disk then
			// compares with a working tree that matches its base.
			v.commitGroup(group)
			group = nil
			v.commitGroup([]*request{r})
			continue
		}
		group = append(group, r)
	}
	v.commitGroup(group)
}

// mergePacks rolls small packs into one once they pile up (see packSet.mergePlan);
// force merges every undeltified pack geometrically. The merged-away packs are
// deleted after the next sync, so only while a write (or Close, or gc) is in
// progress: a reader that lists the packs between writes finds them all.
func (v *Vault) mergePacks(force bool) {
	plan := v.objs.packs.mergePlan(force)
	if plan == nil {
		return
	}
	if err := v.objs.packs.merge(plan); err != nil {
		v.log.Error("merge packs", "err", err)
	}
}

// settlePacks makes merged packs durable and deletes the packs they replace.
func (v *Vault) settlePacks() {
	if !v.objs.packs.hasRetired() {
		return
	}
	if err := syncObjects(v.objs.dir); err != nil {
		v.log.Error("sync packs", "err", err)
		return
	}
	v.objs.packs.dropMerged()
}

// ConflictHint is the Reason of a Put's *ConflictError: what to do when the
// writer expected revision expected and the note is at current ("" for none).
func ConflictHint(expected, current Revision) string {
	switch {
	case expected == "" && current != "":
		return "the note exists; pass its current revision as expected_revision to update it (no blind overwrite)"
	case expected != "" && current == "":
		return "the note does not exist (archived or moved?); create it without expected_revision"
	default:
		return "the note changed since you read it; re-read, merge, retry"
	}
}

// writeTrees queues the tree object of every folder staged since the last commit
// (those have a zero id), children first, and sets their ids.
func writeTrees(objects *objectBatch, n *node) {
	if !n.id.isZero() {
		return
	}
	for _, k := range n.entries() {
		if k.isDir() {
			writeTrees(objects, k)
		}
	}
	var buf bytes.Buffer
	n.id = objects.write("tree", encodeTree(n, &buf))
}

func (v *Vault) authorOf(tx *Tx) Author {
	a := tx.Author
	if a.Email == "" {
		a.Email = strings.ToLower(strings.Join(strings.Fields(a.Name), "-")) + "@norn.invalid"
	}
	return a
}

func (v *Vault) message(tx *Tx) string {
	subject := strings.TrimSpace(tx.Message)
	if subject == "" {
		var paths []string
		for _, c := range tx.Changes {
			p := string(c.Path)
			if c.Kind == Move {
				p = string(c.From) + " -> " + p
			}
			paths = append(paths, p)
		}
		subject = string(tx.Op) + " " + strings.Join(paths, ", ")
		if len(subject) > MaxSubjectBytes {
			subject = fmt.Sprintf("%s %d notes", tx.Op, len(tx.Changes))
		}
		subject = Subject(subject)
	}
	trailers := [][2]string{{trailerOp, string(tx.Op)}, {trailerReason, string(tx.Reason)}}
	if len(tx.Changes) > 1 {
		trailers = append(trailers, [2]string{trailerTxn, randHex(8)})
	}
	return buildMessage(subject, trailers)
}

func (v *Vault) validateTx(tx *Tx, external bool, base *snapshot) error {
	if len(tx.Changes) == 0 {
		return invalidf("a transaction needs at least one change")
	}
	if tx.Op == "" {
		return invalidf("a transaction needs an op")
	}
	if err := validIdentity(tx.Author); err != nil {
		return err
	}
	if err := ValidSubject(strings.TrimSpace(tx.Message)); err != nil {
		return err
	}
	seen := map[note.Path]bool{}
	for _, c := range tx.Changes {
		if err := ValidPath(string(c.Path)); err != nil {
			return &pathError{err}
		}
		if !external && c.Kind != Archive {
			if err := writableName(string(c.Path)); err != nil {
				return &pathError{err}
			}
		}
		if seen[c.Path] {
			return invalidf("%s appears twice in one transaction", c.Path)
		}
		seen[c.Path] = true
		switch c.Kind {
		case Put, Restore:
		case Archive:
			if !tx.Reason.Valid() && !external {
				return invalidf("archiving %s needs a reason: archived, superseded or retracted", c.Path)
			}
		case Move:
			if err := ValidPath(string(c.From)); err != nil {
				return &pathError{err}
			}
			if c.From == c.Path {
				return invalidf("move %s onto itself", c.Path)
			}
			if seen[c.From] {
				return invalidf("%s appears twice in one transaction", c.From)
			}
			seen[c.From] = true
		default:
			return invalidf("unknown change kind %q", c.Kind)
		}
		if !external {
			if err := v.checkNoSymlink(base, string(c.Path)); err != nil {
				return &pathError{err}
			}
		}
	}
	return nil
}

// pathError marks validateTx's refusal of a path, so that stage can let PathGate
// classify it. It matches ErrInvalid.
type pathError struct{ err error }

func (e *pathError) Error() string { return e.err.Error() }
func (e *pathError) Unwrap() error { return e.err }

// writableName refuses a path Norn must not create in the working tree: a name over
// MaxNameBytes (it would be committed, then fail to check out), or one starting with
// TempPrefix (it would be taken for a leftover temporary file and deleted).
func writableName(p string) error {
	for _, part := range strings.Split(p, "/") {
		if len(part) > MaxNameBytes {
			return invalidf("path %q has a name of %d bytes, over the limit of %d", p, len(part), MaxNameBytes)
		}
		if len(part) >= len(TempPrefix) && strings.EqualFold(part[:len(TempPrefix)], TempPrefix) {
			return invalidf("path %q has a name starting with %q, reserved for Norn's temporary files", p, TempPrefix)
		}
	}
	return nil
}

// pathProposal is a transaction's paths alone, for PathGate.
func (v *Vault) pathProposal(tx *Tx, base *snapshot) *Proposal {
	p := &Proposal{Author: tx.Author, Roles: tx.Roles, Op: tx.Op, IsSymlink: v.isSymlink(base)}
	for _, c := range tx.Changes {
		p.Changes = append(p.Changes, ProposedChange{Kind: c.Kind, Path: c.Path, From: c.From})
	}
	return p
}

// ValidPath checks the path rules repo enforces on every write whatever the gates
// say: relative, slash-separated, clean, valid UTF-8, nothing inside .git.
func ValidPath(p string) error {
	switch {
	case p == "":
		return invalidf("empty path")
	case len(p) > 4096:
		return invalidf("path is %d bytes long (limit 4096)", len(p))
	case !utf8.ValidString(p):
		return invalidf("path %q is not valid UTF-8", p)
	case strings.HasPrefix(p, "/"):
		return invalidf("path %q is absolute; give it relative to the vault", p)
	case strings.ContainsAny(p, "\\\x00"):
		return invalidf("path %q contains a backslash or NUL", p)
	}
	for _, part := range strings.Split(p, "/") {
		switch {
		case part == "":
			return invalidf("path %q has an empty component", p)
		case part == "." || part == "..":
			return invalidf("path %q has a %q component", p, part)
		case strings.EqualFold(part, ".git"):
			return invalidf("path %q is inside .git", p)
		}
		for _, r := range part {
			if r < 0x20 || r == 0x7f {
				return invalidf("path %q contains a control character", p)
			}
		}
	}
	return nil
}

// checkNoSymlink refuses a path any of whose prefixes is a symlink in the working
// tree or in base's tree: writing through it could land outside the vault or on
// another note.
func (v *Vault) checkNoSymlink(base *snapshot, p string) error {
	inWorktree := true
	for i := 0; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' {
			continue
		}
		if n := base.root.lookup(p[:i]); n != nil && n.mode == modeSymlink {
			return invalidf("%s goes through a symlink (%s)", p, p[:i])
		}
		if !inWorktree {
			continue
		}
		fi, err := v.wt.Lstat(p[:i])
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				inWorktree = false
			}
			continue
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return invalidf("%s goes through a symlink (%s)", p, p[:i])
		}
	}
	return nil
}

func (v *Vault) isSymlink(base *snapshot) func(string) bool {
	return func(p string) bool {
		if n := base.root.lookup(p); n != nil && n.mode == modeSymlink {
			return true
		}
		fi, err := v.wt.Lstat(p)
		return err == nil && fi.Mode()&fs.ModeSymlink != 0
	}
}

func (v *Vault) hasIdleWork() bool {
	v.idxMu.Lock()
	defer v.idxMu.Unlock()
	return len(v.pendingStat) > 0 || v.idxDirty
}
