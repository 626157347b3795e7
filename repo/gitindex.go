package repo

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// idxEntry is one entry of git's index file (.git/index), stage 0 only.
type idxEntry struct {
	name           string
	id             hash
	mode           uint32
	ctimeS, ctimeN uint32
	mtimeS, mtimeN uint32
	dev, ino       uint32
	uid, gid       uint32
	size           uint32
	stage          uint8 // only while decoding: Norn keeps stage 0
	// ita (only while decoding): git add -N's intent to add, with the empty blob.
	// Norn writes version 2 entries without that flag, which would stage an empty
	// file, so loadGitIndex leaves it out (the file shows as untracked again). It
	// is dropped there, after a split index is merged with its shared index by
	// entry position.
	ita bool
}

// gitIndex is Norn's copy of git's index file: entries sorted by name (byte order).
// Only the committer goroutine changes it; scanners copy it under mu.
type gitIndex struct {
	path    string
	entries []idxEntry
	// written is when the file was last written, for git's racy-clean rule.
	written time.Time
	// size is the file's size, to tell whether replacing it is worth keeping off
	// the write path (see writeBytes).
	size int64
	// stamp identifies the file as Norn last read or wrote it (changedOnDisk).
	stamp fileStamp
	// drop receives superseded index files to unlink off the write path (see
	// writeBytes); nil means unlink at once.
	drop chan<- string
	// split: write git's split index (see splitindex.go) against shared. diff holds
	// how entries differ from shared's as of the last encode (added: the names of
	// those not in shared, sorted), stale the names touched since.
	split  bool
	shared *sharedIndex
	diff   map[string]*splitEnt
	added  []string
	stale  map[string]struct{}
	// splitBuf is the last split index encoded, reused for the next.
	splitBuf []byte
	// held is index.lock, taken ahead (lockIndex) for the next writeBytes.
	held *os.File
	// lean, when set, marks an index whose entries hold only the names looked at
	// so far (leanindex.go): find pulls the others in from the shared index.
	lean *leanState
}

// lockIndex takes .git/index.lock for the next write of the index, as git does
// before it reads HEAD and changes the working tree: a git command (switch, merge,
// commit) then waits for Norn's batch, or Norn for it. It waits up to wait for a
// lock someone else holds.
func (x *gitIndex) lockIndex(wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		f, err := createFile(x.path+".lock", 0o644)
		if err == nil {
			x.held = f
			return nil
		}
		if !errors.Is(err, fs.ErrExist) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// unlockIndex gives back a lock lockIndex took and no write used.
func (x *gitIndex) unlockIndex() {
	if x.held == nil {
		return
	}
	x.held.Close()
	os.Remove(x.path + ".lock")
	x.held = nil
}

// touch records that name's entry may have changed since the last encode.
func (x *gitIndex) touch(name string) {
	if !x.split {
		return
	}
	if x.stale == nil {
		x.stale = map[string]struct{}{}
	}
	x.stale[name] = struct{}{}
}

func (x *gitIndex) find(name string) (int, bool) {
	x.pull(name)
	i := sort.Search(len(x.entries), func(i int) bool { return x.entries[i].name >= name })
	return i, i < len(x.entries) && x.entries[i].name == name
}

func (x *gitIndex) set(e idxEntry) {
	x.touch(e.name)
	i, ok := x.find(e.name)
	if ok {
		x.entries[i] = e
		return
	}
	x.entries = append(x.entries, idxEntry{})
	copy(x.entries[i+1:], x.entries[i:])
	x.entries[i] = e
}

func (x *gitIndex) remove(name string) {
	if i, ok := x.find(name); ok {
		x.touch(name)
		x.entries = append(x.entries[:i], x.entries[i+1:]...)
	}
}

// loadGitIndex reads .git/index: versions 2 and 3 itself (split or not), others
// with go-git's decoder; a missing file gives an empty index. lean reads a split
// index without decoding its shared index (leanindex.go). prev, when not nil, is
// the index loaded before, whose decoded shared index is taken again when the
// split index still links to it (loadSplit).
func loadGitIndex(gitDir string, lean bool, prev *gitIndex) (*gitIndex, error) {
	x := &gitIndex{path: filepath.Join(gitDir, "index"), split: splitIndexEnabled(gitDir)}
	// Stamped before it is read: a file git replaces in between then differs from
	// the stamp (changedOnDisk), and is read again, instead of the other way round.
	if fi, err := os.Stat(x.path); err == nil {
		x.written, x.size, x.stamp = fi.ModTime(), fi.Size(), stampOf(fi)
	}
	b, err := os.ReadFile(x.path)
	if errors.Is(err, fs.ErrNotExist) {
		return x, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read git index: %w", err)
	}
	entries, link, err := decodeIndex(b)
	if err == nil && link != nil && lean && x.loadLean(gitDir, entries, link) {
		return x, nil
	}
	if err == nil && link != nil {
		var shared *sharedIndex
		var differ map[string]struct{}
		var prevShared *sharedIndex
		if prev != nil {
			prevShared = prev.shared
		}
		entries, shared, differ, err = loadSplit(gitDir, entries, link, prevShared)
		if err == nil && x.split {
			x.shared, x.stale = shared, differ
			x.shared.touched = time.Now().Add(-2 * time.Hour) // check it at the first write
		}
	}
	if err != nil {
		entries = nil
		var idx index.Index
		if err := index.NewDecoder(bytes.NewReader(b)).Decode(&idx); err != nil {
			// A damaged index is derived state: start again from HEAD.
			return x, nil
		}
		for _, e := range idx.Entries {
			entries = append(entries, idxEntry{ita: e.IntentToAdd,
				name: e.Name, id: hash(e.Hash), mode: uint32(e.Mode),
				ctimeS: uint32(e.CreatedAt.Unix()), ctimeN: uint32(e.CreatedAt.Nanosecond()),
				mtimeS: uint32(e.ModifiedAt.Unix()), mtimeN: uint32(e.ModifiedAt.Nanosecond()),
				dev: e.Dev, ino: e.Inode, uid: e.UID, gid: e.GID, size: e.Size, stage: uint8(e.Stage),
			})
		}
	}
	for _, e := range entries {
		if e.stage == 0 && !e.ita {
			x.entries = append(x.entries, e)
		}
	}
	sort.Slice(x.entries, func(i, j int) bool { return x.entries[i].name < x.entries[j].name })
	return x, nil
}

// fileStamp identifies one version of a file that is replaced by renames.
type fileStamp struct {
	size  int64
	mtime time.Time
	ino   uint64
}

func stampOf(fi fs.FileInfo) fileStamp {
	st := fileStamp{size: fi.Size(), mtime: fi.ModTime()}
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.ino = uint64(sys.Ino)
	}
	return st
}

// changedOnDisk reports whether .git/index is no longer the file Norn last read or
// wrote: git changed it (git add, git rm --cached, git update-index) without
// moving the branch.
func (x *gitIndex) changedOnDisk() bool {
	fi, err := os.Stat(x.path)
	if err != nil {
		return x.stamp != fileStamp{}
	}
	return stampOf(fi) != x.stamp
}

// statEntry fills an entry's stat fields from the file the working tree holds.
func statEntry(e *idxEntry, fi fs.FileInfo) {
	e.size = uint32(fi.Size())
	mt := fi.ModTime()
	e.mtimeS, e.mtimeN = uint32(mt.Unix()), uint32(mt.Nanosecond())
	e.ctimeS, e.ctimeN = e.mtimeS, e.mtimeN
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		e.ctimeS, e.ctimeN = uint32(st.Ctim.Sec), uint32(st.Ctim.Nsec)
		e.dev, e.ino = uint32(st.Dev), uint32(st.Ino)
		e.uid, e.gid = st.Uid, st.Gid
	}
}

// statMatches reports whether fi still looks like the file the entry was made from.
func statMatches(e *idxEntry, fi fs.FileInfo) bool {
	mt := fi.ModTime()
	return e.size == uint32(fi.Size()) && e.mtimeS == uint32(mt.Unix()) && e.mtimeN == uint32(mt.Nanosecond())
}

// encode serialises the index as version 2 (entries only; git rebuilds its caches),
// checksum included.
func (x *gitIndex) encode() []byte {
	size := 12 + 20
	for i := range x.entries {
		size += 62 + len(x.entries[i].name) + 8
	}
	buf := make([]byte, 0, size)
	buf = append(buf, "DIRC"...)
	buf = binary.BigEndian.AppendUint32(buf, 2)
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(x.entries)))
	for i := range x.entries {
		buf = appendEntry(buf, &x.entries[i], x.entries[i].name)
	}
	sum := sha1.Sum(buf)
	return append(buf, sum[:]...)
}

// write encodes the index and puts it in place.
func (x *gitIndex) write() error { return x.writeEncoded(x.encodeIndex()) }

// writeEncoded writes an encoded index: first the new shared index that goes with
// it, if any, then .git/index itself.
func (x *gitIndex) writeEncoded(enc *encodedIndex) error {
	gitDir := filepath.Dir(x.path)
	if enc.shared != nil {
		if err := writeShared(gitDir, enc.next, enc.shared); err != nil {
			return fmt.Errorf("write git index: %w", err)
		}
	}
	write := func() error { return x.writeBytes(enc.main) }
	if enc.file != "" {
		write = func() error { return x.install(enc.file) }
	}
	if err := write(); err != nil {
		return err
	}
	switch {
	case enc.next != nil:
		x.shared, x.diff, x.added = enc.next, nil, nil
		clear(x.stale)
		removeOldShared(gitDir, enc.next.id)
	case x.shared != nil && !x.split:
		x.shared, x.diff, x.added, x.stale = nil, nil, nil, nil
	}
	return nil
}

// dropMin is the size of an index file from which writeBytes frees it off the write
// path.
const dropMin = 256 << 10

// writeBytes writes an encoded index into index.lock and renames it into place, as
// git does. A lock held by someone else (git status refreshing the index) is waited
// for, up to a second, and never taken over: it may be a long git command's (a
// merge checking out thousands of files), which would fail half-way without it.
func (x *gitIndex) writeBytes(b []byte) error {
	lock := x.path + ".lock"
	f, err := x.held, error(nil)
	x.held = nil
	for try := 0; f == nil; try++ {
		f, err = createFile(lock, 0o644)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("write git index: %w", err)
		}
		if try >= 200 {
			return fmt.Errorf("write git index: %w (a git command holds .git/index.lock)", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	_, err = f.Write(b)
	var stamp fileStamp
	if err == nil {
		var fi fs.FileInfo
		if fi, err = f.Stat(); err == nil {
			stamp = stampOf(fi) // a rename keeps the inode and the times
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = x.replace(lock)
	}
	if err != nil {
		os.Remove(lock)
		return fmt.Errorf("write git index: %w", err)
	}
	x.written, x.size, x.stamp = time.Now(), int64(len(b)), stamp
	return nil
}

// replace renames file from over .git/index. It keeps a big old index alive under
// another name so the rename does not free its blocks on the write path (that
// costs ~1 ms for a plain 10,000-note index); the unlinker removes it later. A
// split index is a few KB: the link would cost more.
func (x *gitIndex) replace(from string) error {
	var old string
	if x.drop != nil && x.size >= dropMin {
		old = filepath.Join(filepath.Dir(x.path), "norn", "index.old-"+randHex(4))
		if os.Link(x.path, old) != nil {
			old = ""
		}
	}
	err := replaceFile(from, x.path)
	if old != "" {
		select {
		case x.drop <- old:
		default:
			os.Remove(old) // the unlinker is behind: do it here
		}
	}
	return err
}

// prepare writes an encoded .git/index to a new file in .git/norn, for install to
// put in place later. Written before the batch's sync, its bytes reach the disk
// with the batch's objects, so that the rename under index.lock costs a rename:
// ext4 starts writing back a file renamed over another (auto_da_alloc), which
// took milliseconds with index.lock held.
func (x *gitIndex) prepare(b []byte) (string, error) {
	p := filepath.Join(filepath.Dir(x.path), "norn", "index.new-"+randHex(4))
	if err := writeNew(p, b, 0o644); err != nil {
		os.Remove(p)
		return "", err
	}
	return p, nil
}

// install puts a prepared index in place; the caller holds index.lock (lockIndex),
// which install gives back.
func (x *gitIndex) install(p string) error {
	fi, err := os.Stat(p)
	if err == nil {
		err = x.replace(p)
	}
	x.unlockIndex()
	if err != nil {
		os.Remove(p)
		return fmt.Errorf("write git index: %w", err)
	}
	x.written, x.size, x.stamp = fi.ModTime(), fi.Size(), stampOf(fi)
	return nil
}

// removeStaleOld removes superseded and prepared index files a crash left behind.
func removeStaleOld(gitDir string) {
	matches, _ := filepath.Glob(filepath.Join(gitDir, "norn", "index.old-*"))
	prepared, _ := filepath.Glob(filepath.Join(gitDir, "norn", "index.new-*"))
	for _, m := range append(matches, prepared...) {
		os.Remove(m)
	}
}
