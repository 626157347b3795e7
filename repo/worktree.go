package repo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/norn-vault/norn/note"
)

// TempPrefix names Norn's temporary files in the working tree (TempPrefix and 12 hex
// digits, 22 bytes); a crash can leave one behind, and Open removes them. No
// component of a path Norn writes may start with it (see validateTx).
const TempPrefix = ".norn-tmp-"

// MaxNameBytes is the longest file or folder name (one path component) Norn writes to
// the working tree: the name limit of the common file systems. A longer name would be
// committed but could never be checked out.
const MaxNameBytes = 255

// prepareIndex updates git's index entries for a batch before it is published, so
// that the index can be encoded while the objects sync. A file Norn is about to write
// gets its stat data at the next index write (git meanwhile re-hashes it, finds it
// unchanged, and reports it clean).
func (v *Vault) prepareIndex(done []*staged) {
	v.idxMu.Lock()
	defer v.idxMu.Unlock()
	v.fillPendingStat()
	for _, st := range done {
		for _, f := range st.files {
			if f.content == nil {
				v.idx.remove(f.path)
				delete(v.pendingStat, f.path)
				continue
			}
			e := idxEntry{name: f.path, id: f.id, mode: f.mode, size: uint32(len(f.content))}
			if st.req.external {
				if fi, err := v.wt.Lstat(f.path); err == nil && fi.Size() == int64(len(f.content)) {
					statEntry(&e, fi)
				}
			} else {
				v.pendingStat[f.path] = nil
			}
			v.idx.set(e)
		}
	}
}

// fillPendingStat copies the stat data of files Norn wrote into their index entries.
func (v *Vault) fillPendingStat() {
	for p, fi := range v.pendingStat {
		if fi == nil {
			continue
		}
		if i, ok := v.idx.find(p); ok {
			statEntry(&v.idx.entries[i], fi)
			v.idx.touch(p)
		}
		delete(v.pendingStat, p)
	}
}

// refreshIndex writes the index again once stat data is pending (when idle).
func (v *Vault) refreshIndex() {
	if v.idxDirty {
		v.writeDirtyIndex()
	}
	v.idxMu.Lock()
	defer v.idxMu.Unlock()
	if len(v.pendingStat) > 0 && v.gitBusy() != nil {
		// git's index is git's now (another branch, a merge): leave it; it is read
		// again once git is done (see exclusive).
		v.away.Store(true)
		v.mendLater = true
		clear(v.pendingStat)
		return
	}
	if len(v.pendingStat) > 0 {
		v.fillPendingStat()
		v.markWorktree() // a crash in the write leaves index.lock: Open removes it
		if err := v.idx.write(); err != nil {
			v.log.Error("write git index", "err", err)
		}
		v.unmarkWorktree()
	}
}

// writeWorktree makes the working tree match the commits just published (external
// edits are already there). The commits are durable; a failure here is logged and
// repaired by the next Open.
func (v *Vault) writeWorktree(done []*staged) {
	// Each folder is opened once, so that writing a file costs no lookups of its
	// folder (os.Root opens every folder on a path for every call otherwise).
	folders := map[string]*os.Root{}
	closeFolders := func() {
		for _, r := range folders {
			r.Close()
		}
		clear(folders)
	}
	defer closeFolders()
	v.markWorktree() // removed once git's index is written too (commitGroup)
	for _, st := range done {
		if st.req.external {
			continue
		}
		for _, f := range st.files {
			if f.content == nil {
				if err := v.wt.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
					v.log.Error("update working tree", "path", f.path, "err", err)
				}
				v.pruneEmptyDirs(path.Dir(f.path))
				closeFolders() // a folder held open may be gone now
				v.setUnwritten(f.path, zeroHash)
				continue
			}
			dir, name := path.Split(f.path)
			r := folders[dir]
			if r == nil {
				var err error
				if r, err = v.openFolder(dir); err != nil {
					v.failedWrite(f, err)
					continue
				}
				folders[dir] = r
			}
			if err := writeFileIn(r, name, f.content, f.mode); err != nil {
				v.failedWrite(f, err)
				continue
			}
			v.setUnwritten(f.path, zeroHash)
			if fi, err := r.Lstat(name); err == nil {
				v.idxMu.Lock()
				if _, ok := v.pendingStat[f.path]; ok {
					v.pendingStat[f.path] = fi
				}
				v.idxMu.Unlock()
			}
		}
	}
}

// failedWrite records that the working-tree file for f could not be written. The
// commit holding it is durable; the file's absence is not a person's deletion, so
// Changes must not commit it as one.
func (v *Vault) failedWrite(f wtChange, err error) {
	v.log.Error("update working tree: file committed but not written; its absence will not be committed as a deletion",
		"path", f.path, "err", err)
	v.setUnwritten(f.path, f.id)
}

// setUnwritten records (id non-zero) or forgets (zero) a working-tree file Norn
// failed to write.
func (v *Vault) setUnwritten(p string, id hash) {
	v.idxMu.Lock()
	defer v.idxMu.Unlock()
	if id.isZero() {
		delete(v.unwritten, p)
		return
	}
	v.unwritten[p] = id
}

// openFolder creates working-tree folder dir ("a/b/", or "" for the top) if needed
// and opens it.
func (v *Vault) openFolder(dir string) (*os.Root, error) {
	if dir == "" {
		return v.wt.OpenRoot(".")
	}
	r, err := v.wt.OpenRoot(dir)
	if !errors.Is(err, fs.ErrNotExist) {
		return r, err
	}
	if err := v.wt.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return v.wt.OpenRoot(dir)
}

// writeFile replaces a working-tree file atomically: temp file, then rename.
func (v *Vault) writeFile(p string, content []byte, mode uint32) error {
	v.markWorktree()
	if dir := path.Dir(p); dir != "." {
		if err := v.wt.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return writeFileIn(v.wt, p, content, mode)
}

// writeFileIn replaces file p of r atomically: a temp file beside it, then rename.
func writeFileIn(r *os.Root, p string, content []byte, mode uint32) error {
	perm := fs.FileMode(0o644)
	if mode == modeExec {
		perm = 0o755
	}
	tmp := path.Join(path.Dir(p), TempPrefix+randHex(6))
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = r.Rename(tmp, p)
	}
	if err != nil {
		r.Remove(tmp)
	}
	return err
}

func (v *Vault) pruneEmptyDirs(dir string) {
	for dir != "." && dir != "/" && dir != "" {
		if err := v.wt.Remove(dir); err != nil { // fails unless empty
			return
		}
		dir = path.Dir(dir)
	}
}

// recoverDepth is how many commits before HEAD recover looks through for what
// git's index held before Norn's last batch (a batch is at most MaxBatch commits;
// the index is written after each).
const recoverDepth = 1024

// recover brings the working tree and git's index back in step with HEAD after a
// crash between moving the branch and updating the working tree and git's index.
// Index entries that differ from HEAD are such leftovers only when together they
// are the tree of a commit just before HEAD (stagedByPerson); otherwise a person
// staged them (git add, git mv) and they are left as they are, for `norn commit`.
// A working-tree file that matches neither the index nor HEAD was edited by a
// person and is left alone too. Stray temporary files are removed.
func (v *Vault) recover(ctx context.Context) error {
	v.idxMu.Lock()
	defer v.idxMu.Unlock()
	if exists(v.markerPath()) {
		// A writer died while writing the working tree or git's index: its
		// temporary files may be anywhere in the working tree, and the index.lock
		// it was writing is its own (the marker is removed only after the index
		// is written), not a running git command's.
		v.marked = true
		v.removeTempFiles()
		if err := os.Remove(v.idx.path + ".lock"); err == nil {
			v.log.Info("removed the git index lock a crashed norn left")
		}
	}
	removeStaleOld(v.gitDir)
	var keep hash
	if v.idx.shared != nil {
		keep = v.idx.shared.id
	}
	removeOldShared(v.gitDir, keep)
	if err := v.gitBusyWait(ctx); err != nil {
		// A merge stopped on conflicts, a rebase, a running git command: git's index
		// (its conflict stages, which Norn does not keep) and the working tree are
		// git's now. Mending them from HEAD would undo its work; it is done once
		// git is (see exclusive).
		v.log.Info("git is busy in the working tree; leaving it and git's index alone", "why", err)
		v.away.Store(true)
		v.mendLater = true
		v.unmarkWorktree()
		return nil
	}
	head := map[string]*node{}
	walkFiles(v.snap.Load().root, "", func(p string, n *node) { head[p] = n })
	// The index entries that differ from HEAD (zero: the index has none) are a
	// crash's leftovers when together they are the tree of a commit just before
	// HEAD: the index as it was before the batch whose update the crash stopped.
	// Otherwise a person staged them (git add, git mv, git rm --cached) and they
	// are left as they are, for norn commit.
	differ := v.differFromHead(head)
	staged, err := v.stagedByPerson(ctx, differ)
	if err != nil {
		return fmt.Errorf("recover working tree: %w", err)
	}
	if staged {
		v.log.Info("git's index holds changes a person staged; leaving them for norn commit", "paths", len(differ))
	}
	changed, err := v.mendFromHead(ctx, head, differ, staged)
	if err != nil {
		return err
	}
	if changed || !exists(v.idx.path) {
		v.markWorktree()
		if err := v.idx.write(); err != nil {
			return err
		}
	}
	v.unmarkWorktree()
	return nil
}

// differFromHead returns the index entries that differ from HEAD's files (head, by
// path), and HEAD's files the index lacks (zeroHash).
func (v *Vault) differFromHead(head map[string]*node) map[string]hash {
	differ := map[string]hash{}
	for _, e := range v.idx.entries {
		if n, ok := head[e.name]; !ok || n.id != e.id { // (a mode alone that differs is Norn's to mend)
			differ[e.name] = e.id
		}
	}
	for p := range head {
		if _, ok := v.idx.find(p); !ok {
			differ[p] = zeroHash
		}
	}
	return differ
}

// mendFromHead brings each index entry and working-tree file that differs from
// HEAD's (head, by path) back to HEAD's, except the differing entries (differ) a
// person staged. It reports whether it changed any; the caller holds idxMu.
func (v *Vault) mendFromHead(ctx context.Context, head map[string]*node, differ map[string]hash, staged bool) (bool, error) {
	changed := false
	for _, e := range append([]idxEntry(nil), v.idx.entries...) {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		n, ok := head[e.name]
		if ok && n.id == e.id && n.mode == e.mode {
			continue
		}
		if _, d := differ[e.name]; d && staged {
			continue
		}
		changed = true
		cur, err := v.worktreeID(e.name)
		if err != nil {
			return false, err
		}
		if !ok {
			// Archived in HEAD: remove the file if it is still the indexed version.
			if cur == e.id {
				if err := v.wt.Remove(e.name); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return false, err
				}
				v.pruneEmptyDirs(path.Dir(e.name))
			}
			v.idx.remove(e.name)
			continue
		}
		if err := v.checkout(e.name, n, cur, e.id); err != nil {
			if !errors.Is(err, errCheckout) {
				return false, err
			}
			v.log.Error("recover working tree: file committed but not written; its absence will not be committed as a deletion", "path", e.name, "err", err)
			v.unwritten[e.name] = n.id
		}
	}
	for p, n := range head {
		if _, ok := v.idx.find(p); ok {
			continue
		}
		if staged {
			continue
		}
		changed = true
		cur, err := v.worktreeID(p)
		if err != nil {
			return false, err
		}
		if err := v.checkout(p, n, cur, zeroHash); err != nil {
			if !errors.Is(err, errCheckout) {
				return false, err
			}
			v.log.Error("recover working tree: file committed but not written; its absence will not be committed as a deletion", "path", p, "err", err)
			v.unwritten[p] = n.id
		}
	}
	return changed, nil
}

// markWorktree records, before Norn writes working-tree files or git's index, that
// temporary files may be about to appear in the working tree and that index.lock
// is Norn's; unmarkWorktree, once every file is renamed into place or removed and
// the index written. Only a writer that died between the two leaves the marker, so
// Open removes index.lock and walks
// the working tree for stray temporary files only then (the walk costs ~0.3 s at
// 100,000 notes). The marker is not fsynced: after a power loss a stray temporary
// file can survive; it is ignored as an external edit, and RemoveTempFiles (`norn
// doctor`) removes it.
func (v *Vault) markWorktree() {
	if v.marked {
		return
	}
	if f, err := os.OpenFile(v.markerPath(), os.O_WRONLY|os.O_CREATE, 0o644); err == nil {
		f.Close()
		v.marked = true
	} else {
		v.log.Error("mark working tree", "err", err)
	}
}

func (v *Vault) unmarkWorktree() {
	if !v.marked {
		return
	}
	if err := os.Remove(v.markerPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		v.log.Error("unmark working tree", "err", err)
		return
	}
	v.marked = false
}

func (v *Vault) markerPath() string {
	return filepath.Join(v.gitDir, "norn", "worktree-writing")
}

// errCheckout marks checkout's failure to write a working-tree file (a name the file
// system refuses, a full disk): recover logs it and goes on, the commit stands.
var errCheckout = errors.New("checkout")

// checkout makes path p hold HEAD's blob n unless the working tree holds a person's
// edit (neither HEAD's bytes nor the indexed ones), and records it in the index.
func (v *Vault) checkout(p string, n *node, cur, indexed hash) error {
	if n.mode != modeFile && n.mode != modeExec {
		return nil // symlinks and submodules are git's business
	}
	if cur.isZero() || cur == indexed {
		data, err := v.objs.readTyped(n.id, "blob")
		if err != nil {
			return err
		}
		if err := v.writeFile(p, data, n.mode); err != nil {
			return fmt.Errorf("%w %s: %w", errCheckout, p, err)
		}
		cur = n.id
	}
	e := idxEntry{name: p, id: n.id, mode: n.mode}
	if cur == n.id {
		if fi, err := v.wt.Lstat(p); err == nil {
			statEntry(&e, fi)
		}
	}
	v.idx.set(e)
	return nil
}

// checkWorktreeClean refuses to write over a person's work: a working-tree file at p
// that differs from what HEAD holds there (an edit not committed yet, or a new file
// nobody committed) is a conflict. Writing it would lose it. expected is the revision
// the write expected at p, for the error.
func (v *Vault) checkWorktreeClean(p note.Path, expected Revision) error {
	fi, err := v.wt.Lstat(string(p))
	if err != nil {
		return nil // absent (or unreadable): nothing to lose
	}
	head := v.snap.Load().root.lookup(string(p))
	if !fi.Mode().IsRegular() {
		if head == nil {
			return &ConflictError{Path: p, Expected: expected, Reason: "something that is not a note is in the working tree at this path; move it away first"}
		}
		return nil
	}
	if head != nil {
		v.idxMu.Lock()
		i, ok := v.idx.find(string(p))
		clean := ok && v.idx.entries[i].id == head.id && statMatches(&v.idx.entries[i], fi) &&
			fi.ModTime().Before(v.idx.written.Add(-time.Second))
		v.idxMu.Unlock()
		if clean {
			return nil
		}
	}
	if head != nil {
		if fi, err := v.wt.Lstat(string(p)); err == nil && fi.Mode().IsRegular() {
			if data, err := v.wt.ReadFile(string(p)); err == nil && sameText(data, head.id) {
				return nil // HEAD's text, perhaps checked out with CRLF
			}
		}
	}
	id, err := v.worktreeID(string(p))
	if err != nil || (head != nil && id == head.id) {
		return err
	}
	rev := Revision("")
	if head != nil {
		rev = Revision(head.id.String())
	}
	return &ConflictError{Path: p, Expected: expected, Current: rev, Reason: "the working tree holds changes to this path that are not committed yet (a person's edit); " +
		"run `norn commit` (a serving norn does it within seconds), then re-read and retry"}
}

// checkWorktreeHolds makes sure an external change still describes the working tree
// when it is committed: a Put's content is the file's, an Archive's file is gone. A
// scan that raced with the committer (or a person still typing) is a conflict, to be
// scanned again, so an external commit only ever records what is on disk.
func (v *Vault) checkWorktreeHolds(c Change, current Revision) error {
	id, err := v.worktreeID(string(c.Path))
	if err != nil {
		return err
	}
	want := zeroHash
	if c.Kind == Put {
		want = objectID("blob", c.Content)
	}
	if id == want {
		return nil
	}
	return &ConflictError{Path: c.Path, Expected: c.ExpectedRevision, Current: current,
		Reason: "the working tree changed after it was scanned; scan it again"}
}

// worktreeID hashes the working-tree file at p (zero when absent or not a file).
func (v *Vault) worktreeID(p string) (hash, error) {
	fi, err := v.wt.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return zeroHash, nil
	}
	data, err := v.wt.ReadFile(p)
	if err != nil {
		return zeroHash, fmt.Errorf("read %s: %w", p, err)
	}
	return objectID("blob", data), nil
}

// RemoveTempFiles removes the temporary files Norn left in the working tree (only a
// writer that died mid-write, then a power loss, leaves any that Open does not find)
// and returns how many it removed. It walks the whole working tree.
func (v *Vault) RemoveTempFiles(ctx context.Context) (int, error) {
	n := 0
	_, err := v.submit(ctx, &request{fn: func() error {
		n = v.removeTempFiles()
		return nil
	}})
	return n, err
}

func (v *Vault) removeTempFiles() int {
	n := 0
	var head *node
	if snap := v.snap.Load(); snap != nil && snap.root != nil {
		head = snap.root
	}
	fs.WalkDir(v.wt.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && p == ".git" {
			return fs.SkipDir
		}
		if d.IsDir() || !strings.HasPrefix(d.Name(), TempPrefix) {
			return nil
		}
		if head != nil && head.lookup(p) != nil {
			// A note of that name committed before the gates reserved the prefix:
			// it is someone's note, not Norn's leftover.
			v.log.Warn("keep file named like a temporary file: it is tracked at HEAD", "path", p)
			return nil
		}
		if v.wt.Remove(p) == nil {
			n++
		}
		return nil
	})
	return n
}

// restoreSource returns the bytes a Restore change brings back.
func (v *Vault) restoreSource(ctx context.Context, c Change) ([]byte, error) {
	if c.FromRevision != "" {
		id, ok := parseHash(string(c.FromRevision))
		if !ok {
			return nil, invalidf("revision %q is not a 40-character hex id", c.FromRevision)
		}
		b, err := v.objs.readTyped(id, "blob")
		if err != nil {
			return nil, fmt.Errorf("restore %s: %w", c.Path, err)
		}
		return b, nil
	}
	if c.FromCommit == "" {
		return nil, invalidf("restore %s: say which commit or revision to restore from", c.Path)
	}
	b, err := v.Read(ctx, c.Path, c.FromCommit)
	if err != nil {
		return nil, fmt.Errorf("restore %s: %w", c.Path, err)
	}
	return b.Content, nil
}

// stagedByPerson reports whether index entries that differ from HEAD (path →
// blob, zero for none) were staged by a person rather than left by a crash: a
// crash leaves the tree of one of the recoverDepth commits before HEAD, on every
// path at once.
func (v *Vault) stagedByPerson(ctx context.Context, differ map[string]hash) (bool, error) {
	if len(differ) == 0 {
		return false, nil
	}
	trees, err := v.treesBefore(v.snap.Load().commit, recoverDepth)
	if err != nil {
		return false, err
	}
	looks := map[string]*pathLookup{}
	for p := range differ {
		looks[p] = v.pathLookup(p)
	}
next:
	for _, t := range trees {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		for p, want := range differ {
			got, err := looks[p].at(t)
			if err != nil {
				return false, err
			}
			if got != want {
				continue next
			}
		}
		return false, nil
	}
	return true, nil
}

// treesBefore returns the root trees of up to n commits before tip, following
// first parents; none when tip is the root or zero.
func (v *Vault) treesBefore(tip hash, n int) ([]hash, error) {
	out := []hash{}
	id := tip
	for len(out) < n && !id.isZero() {
		c, err := v.readCommit(id)
		if err != nil {
			return nil, err
		}
		if id != tip {
			out = append(out, c.tree)
		}
		if len(c.parents) == 0 {
			break
		}
		id = c.parents[0]
	}
	return out, nil
}

// sameText reports whether data is the blob id: its very bytes, or the same text
// with CRLF line endings, as git checks it out under core.autocrlf or eol=crlf.
func sameText(data []byte, id hash) bool {
	if objectID("blob", data) == id {
		return true
	}
	return bytes.Contains(data, []byte("\r\n")) && objectID("blob", bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))) == id
}
