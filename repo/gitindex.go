package repo

import (
	"bufio"
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
}

// gitIndex is Norn's copy of git's index file: entries sorted by name (byte order).
// Only the committer goroutine changes it; scanners copy it under mu.
type gitIndex struct {
	path    string
	entries []idxEntry
	// written is when the file was last written, for git's racy-clean rule.
	written time.Time
}

func (x *gitIndex) find(name string) (int, bool) {
	i := sort.Search(len(x.entries), func(i int) bool { return x.entries[i].name >= name })
	return i, i < len(x.entries) && x.entries[i].name == name
}

func (x *gitIndex) set(e idxEntry) {
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
		x.entries = append(x.entries[:i], x.entries[i+1:]...)
	}
}

// loadGitIndex reads .git/index with go-git's decoder (any version, any
// extension); a missing file gives an empty index.
func loadGitIndex(gitDir string) (*gitIndex, error) {
	x := &gitIndex{path: filepath.Join(gitDir, "index")}
	b, err := os.ReadFile(x.path)
	if errors.Is(err, fs.ErrNotExist) {
		return x, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read git index: %w", err)
	}
	var idx index.Index
	if err := index.NewDecoder(bytes.NewReader(b)).Decode(&idx); err != nil {
		// A damaged index is derived state: start again from HEAD.
		return x, nil
	}
	for _, e := range idx.Entries {
		if e.Stage != 0 {
			continue
		}
		x.entries = append(x.entries, idxEntry{
			name: e.Name, id: hash(e.Hash), mode: uint32(e.Mode),
			ctimeS: uint32(e.CreatedAt.Unix()), ctimeN: uint32(e.CreatedAt.Nanosecond()),
			mtimeS: uint32(e.ModifiedAt.Unix()), mtimeN: uint32(e.ModifiedAt.Nanosecond()),
			dev: e.Dev, ino: e.Inode, uid: e.UID, gid: e.GID, size: e.Size,
		})
	}
	sort.Slice(x.entries, func(i, j int) bool { return x.entries[i].name < x.entries[j].name })
	if fi, err := os.Stat(x.path); err == nil {
		x.written = fi.ModTime()
	}
	return x, nil
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

// write encodes the index as version 2 (entries only; git rebuilds its caches) into
// index.lock and renames it into place, as git does.
func (x *gitIndex) write() error {
	lock := x.path + ".lock"
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			// Left by a crash (ours or git's): git would refuse; we own the index.
			os.Remove(lock)
			f, err = os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		}
		if err != nil {
			return fmt.Errorf("write git index: %w", err)
		}
	}
	h := sha1.New()
	w := bufio.NewWriterSize(f, 256<<10)
	out := func(b []byte) { w.Write(b); h.Write(b) }
	var hdr [12]byte
	copy(hdr[:4], "DIRC")
	binary.BigEndian.PutUint32(hdr[4:], 2)
	binary.BigEndian.PutUint32(hdr[8:], uint32(len(x.entries)))
	out(hdr[:])
	var buf []byte
	for i := range x.entries {
		e := &x.entries[i]
		buf = buf[:0]
		for _, v := range [...]uint32{e.ctimeS, e.ctimeN, e.mtimeS, e.mtimeN, e.dev, e.ino, e.mode, e.uid, e.gid, e.size} {
			buf = binary.BigEndian.AppendUint32(buf, v)
		}
		buf = append(buf, e.id[:]...)
		nl := min(len(e.name), 0xfff)
		buf = binary.BigEndian.AppendUint16(buf, uint16(nl))
		buf = append(buf, e.name...)
		pad := 8 - (62+len(e.name))%8
		for range pad {
			buf = append(buf, 0)
		}
		out(buf)
	}
	w.Write(h.Sum(nil))
	if err := w.Flush(); err != nil {
		f.Close()
		os.Remove(lock)
		return fmt.Errorf("write git index: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(lock)
		return fmt.Errorf("write git index: %w", err)
	}
	if err := os.Rename(lock, x.path); err != nil {
		os.Remove(lock)
		return fmt.Errorf("write git index: %w", err)
	}
	x.written = time.Now()
	return nil
}
