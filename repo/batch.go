package repo

import (
	"errors"
	"fmt"
	"path/filepath"
)

// restageMax bounds how often commitGroup stages a batch again because git
// rewrote its index meanwhile; then the batch is refused as git being busy.
const restageMax = 8

// commitGroup commits a batch of requests, each as its own commit, with one sync,
// and brings the working tree and git's index to the last (see tryGroup).
func (v *Vault) commitGroup(group []*request) {
	if len(group) == 0 {
		return
	}
	// The marker first: a crash while index.lock is Norn's leaves it, and Open
	// then knows the lock is Norn's own and removes it.
	v.markWorktree()
	defer v.unmarkWorktree()
	for try := 1; ; try++ {
		if group = v.tryGroup(group, try == restageMax); len(group) == 0 {
			return
		}
		// git changed its index (and so perhaps the working tree the batch's
		// checks read) while the batch was staged: read both again and restage
		// the requests that had passed (the others have their answer).
		v.syncForeign()
		v.reloadIndex()
	}
}

// tryGroup stages a batch, makes it durable and publishes it. It takes git's
// index lock only to publish, as git does for its own commits: from the check that
// the working tree is the branch's (gitState) and git's index what Norn last read,
// through moving the branch and writing the working tree, to renaming git's index
// into place. Staging and the sync happen before, so that a person's git command
// finds the lock free nearly all the time. git changes the working tree only under
// its index lock and rewrites its index when it does, so a batch that finds the
// index it read still in place staged against the working tree git left (an
// external commit's check that the scanned edits are still on disk included);
// otherwise it returns its staged requests to stage again (again), unless last.
func (v *Vault) tryGroup(group []*request, last bool) (again []*request) {
	if err := v.gitReady(); err != nil {
		v.refuse(group, err)
		return nil
	}
	base := v.snap.Load()
	cur := base
	var done []*staged
	objects := v.objs.batch()
	for _, r := range group {
		if err := r.ctx.Err(); err != nil {
			r.reply <- reply{err: err}
			continue
		}
		objects.offer(r.blobs)
		var st *staged
		var err error
		if r.foreign != nil {
			st, err = v.stageForeign(cur, r.foreign, objects)
		} else {
			st, err = v.stage(r.ctx, cur, r.tx, r.external, objects)
		}
		if err != nil {
			r.reply <- reply{err: err}
			continue
		}
		if st.res.Unchanged {
			r.reply <- reply{res: st.res}
			continue
		}
		st.req = r
		done = append(done, st)
		cur = st.snap
	}
	if len(done) == 0 {
		// A transaction queues its objects only once it passes: nothing to write.
		objects.wait()
		return nil
	}
	// Encode git's index for after the batch while the objects sync.
	v.prepareIndex(done)
	encoded := make(chan *encodedIndex, 1)
	go func(x *gitIndex) {
		enc := x.encodeIndex()
		// A new shared index is written (and fsynced) here, not under git's
		// index lock: it is a new file that nothing names until .git/index does.
		if enc.shared != nil {
			if err := writeShared(filepath.Dir(x.path), enc.next, enc.shared); err == nil {
				enc.shared = nil
			}
		}
		if f, err := x.prepare(enc.main); err == nil {
			enc.file = f
		}
		encoded <- enc
	}(v.idx)
	fail := func(err error) {
		(<-encoded).discard()
		v.reloadIndex()
		for _, st := range done {
			st.req.reply <- reply{err: err}
		}
	}
	if err := objects.wait(); err != nil {
		fail(err)
		return nil
	}
	enc := <-encoded // prepared before the sync, which makes it durable too
	encoded <- enc
	// Take the ref's lock and write its new value before the sync, so that one
	// syncfs makes the pack, its index and the ref's new bytes durable; renaming the
	// lock into place then publishes the commit, and fsyncing the folder (publish,
	// once git's index lock is given back) makes that durable.
	ru, err := lockRef(v.gitDir, v.branch, base.commit, cur.commit)
	if err == nil {
		if err = syncObjects(v.objs.dir); err == nil {
			err = v.lockForPublish()
			if errors.Is(err, errIndexMoved) && !last {
				ru.abort()
				enc.discard()
				for _, st := range done {
					again = append(again, st.req)
				}
				return again
			}
			if err != nil {
				v.noteAway(err)
			}
			defer v.idx.unlockIndex() // the lock is the index's of now, not after fail's reload
		}
		if err != nil {
			ru.abort()
		} else {
			err = ru.rename()
		}
	}
	if err != nil {
		if errors.Is(err, errBranchMoved) {
			// Someone else (the git CLI, which does not take the writer lock) moved
			// the branch: start again from where it is now, as any batch would;
			// every staged write is a retryable conflict.
			v.syncForeign()
			err = &ConflictError{Reason: "the branch moved underneath this write (another process committed); re-read and retry"}
		}
		fail(err)
		return nil
	}
	v.publish(ru, base, cur, done, enc)
	return nil
}

// publish finishes a batch whose branch has moved: the snapshot, the working
// tree and git's index (releasing index.lock), the ref's durability, then
// OnCommit, the batch's events and the replies. The fsync of the ref's folder waits until git's index
// lock is given back: it takes milliseconds, and a person's git command that
// finds the lock taken fails. A crash before it can lose the branch's move (the
// batch was not acknowledged) but not keep git's index's without it: both are
// renames, and the file system's journal commits them in order.
func (v *Vault) publish(ru *refUpdate, base, cur *snapshot, done []*staged, enc *encodedIndex) {
	// Publish the snapshot and bring the working tree to it under wtMu, so that a
	// working-tree scan (Changes) never pairs the new HEAD with the old files and
	// takes an acknowledged write for a person's edit to revert.
	v.wtMu.Lock()
	v.snap.Store(cur)
	v.writeWorktree(done)
	v.wtMu.Unlock()
	v.idxMu.Lock()
	if err := v.idx.writeEncoded(enc); err != nil {
		// git began a command during the batch: read its index again once it is
		// done (Open mends an index left a commit behind).
		v.log.Error("write git index", "err", err)
		v.idxDirty = true // written again once git lets go (exclusive, idle)
	}
	v.unmarkWorktree() // marked by writeWorktree
	v.idxMu.Unlock()
	v.idx.unlockIndex() // when the index write failed
	// The rest needs no index lock: the reflogs (git's readers of them take no
	// lock), the packs merged away before this batch (now backed by a durable
	// merged pack), the ref's durability.
	last := done[len(done)-1].commit
	if f := done[0].req.foreign; f != nil && f.merge == nil {
		// As git's pull says it: the commits came from elsewhere.
		v.logRefUpdate(base.commit, cur.commit, 0, "fast-forward (norn sync)", v.opts.Now())
	} else {
		v.logRefUpdate(base.commit, cur.commit, len(done), last.Subject, last.When)
	}
	v.objs.packs.dropMerged()
	synced := ru.sync()
	if v.opts.OnCommit != nil {
		v.opts.OnCommit(CommitID(cur.commit.String())) // on the branch, durable or not
	}
	if v.events.listening() && done[0].req.foreign != nil {
		// Alone in its batch (see process): the commits it brought in, read from
		// git, each told as sync's (a merge's against its first parent).
		v.events.add(pending{base: base.commit, tip: cur.commit, source: SourceSync})
	} else if v.events.listening() {
		evs := make([]Event, len(done))
		for i, st := range done {
			evs[i] = Event{Commit: st.commit, Source: SourceLocal, Changes: eventChanges(st.commit.Op, st.res.Changes)}
		}
		v.events.add(pending{base: base.commit, tip: cur.commit, events: evs})
	}
	for _, st := range done {
		if synced != nil {
			st.req.reply <- reply{err: fmt.Errorf("update %s: %w", ru.ref, synced)}
			continue
		}
		st.req.reply <- reply{res: st.res}
	}
	v.mergePacks(false)
}
