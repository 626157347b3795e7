package repo

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"
)

// git's split index (index-format "link" extension): .git/index holds only the
// entries that differ from a shared index, .git/sharedindex.<sha1>, which holds the
// rest. A write then rewrites a few hundred bytes instead of the whole index (800 KB
// at 10,000 notes). Norn writes one for an index of at least splitMin entries unless
// the repository sets core.splitIndex=false (for tools that cannot read it, such as
// go-git or libgit2); the git CLI reads and keeps it.
const (
	splitMin = 1000
	// A new shared index is written once more than 1/splitShare of its entries
	// changed, so .git/index stays small.
	splitShare = 16
	// Superseded shared index files are removed once this old (a git process that
	// read .git/index just before still opens the one it names).
	sharedKeep = time.Minute
)

// sharedIndex is the shared index .git/index currently links to.
type sharedIndex struct {
	id      hash
	entries []idxEntry
	// view, when set, reads the entries from the mapped file instead (a lean
	// index: leanindex.go); entries is then nil.
	view *sharedView
	// touched is when Norn last checked that the file is there and fresh (git
	// removes shared index files it thinks unused after splitIndex.sharedIndexExpire).
	touched time.Time
}

func (s *sharedIndex) find(name string) (int, bool) {
	if s.view != nil {
		return s.view.find(name)
	}
	i := sort.Search(len(s.entries), func(i int) bool { return s.entries[i].name >= name })
	return i, i < len(s.entries) && s.entries[i].name == name
}

// count is the number of entries of the shared index.
func (s *sharedIndex) count() int {
	if s.view != nil {
		return len(s.view.offs)
	}
	return len(s.entries)
}

// entry returns the shared index's entry at position i.
func (s *sharedIndex) entry(i int) idxEntry {
	if s.view != nil {
		return s.view.entry(i)
	}
	return s.entries[i]
}

// name returns the name of the shared index's entry at position i.
func (s *sharedIndex) name(i int) string {
	if s.view != nil {
		return string(s.view.nameBytes(i))
	}
	return s.entries[i].name
}

func sharedIndexPath(gitDir string, id hash) string {
	return filepath.Join(gitDir, "sharedindex."+id.String())
}

// splitIndexEnabled reads core.splitIndex from the repository's config.
func splitIndexEnabled(gitDir string) bool {
	on, set := gitConfigBool(gitDir, "core", "splitIndex")
	return on || !set
}

// encodedIndex is an index ready to be written: .git/index's bytes and, when a new
// shared index goes with them, its bytes and state.
type encodedIndex struct {
	main   []byte
	shared []byte
	next   *sharedIndex
	// file holds main already written (gitIndex.prepare), when not "".
	file string
}

// discard removes the prepared file of an index that will not be written.
func (e *encodedIndex) discard() {
	if e.file != "" {
		os.Remove(e.file)
	}
}

// appendEntry appends one version 2 entry; an empty name is written for a split
// index entry that replaces a shared one.
func appendEntry(buf []byte, e *idxEntry, name string) []byte {
	for _, v := range [...]uint32{e.ctimeS, e.ctimeN, e.mtimeS, e.mtimeN, e.dev, e.ino, e.mode, e.uid, e.gid, e.size} {
		buf = binary.BigEndian.AppendUint32(buf, v)
	}
	buf = append(buf, e.id[:]...)
	buf = binary.BigEndian.AppendUint16(buf, uint16(min(len(name), 0xfff)))
	buf = append(buf, name...)
	for range 8 - (62+len(name))%8 {
		buf = append(buf, 0)
	}
	return buf
}

// splitEnt is how one name's entry differs from the shared index's, as of the last
// encode: pos is its position in the shared index (-1: not there), raw its encoded
// entry (the name left out when it replaces a shared one), nil when it was removed.
type splitEnt struct {
	pos int32
	raw []byte
}

// refreshDiff brings diff up to date for the names touched since the last encode,
// so that an encode costs a binary search or two per changed name, not per name
// that differs from the shared index (up to 1/splitShare of them).
func (x *gitIndex) refreshDiff(sh *sharedIndex) {
	if x.diff == nil {
		x.diff = map[string]*splitEnt{}
	}
	for name := range x.stale {
		d := x.diff[name]
		if d == nil {
			d = &splitEnt{pos: -1}
			if si, ok := sh.find(name); ok {
				d.pos = int32(si)
			}
		}
		ci, inCur := x.find(name)
		switch {
		case !inCur && d.pos < 0:
			x.dropDiff(name)
		case !inCur:
			d.raw = nil
			x.diff[name] = d
		case d.pos >= 0 && x.entries[ci] == sh.entry(int(d.pos)):
			x.dropDiff(name) // back to the shared entry
		case d.pos >= 0:
			d.raw = appendEntry(d.raw[:0], &x.entries[ci], "")
			x.diff[name] = d
		default:
			d.raw = appendEntry(d.raw[:0], &x.entries[ci], name)
			if i, found := slices.BinarySearch(x.added, name); !found {
				x.added = slices.Insert(x.added, i, name)
			}
			x.diff[name] = d
		}
	}
	clear(x.stale)
}

// dropDiff forgets name's difference from the shared index.
func (x *gitIndex) dropDiff(name string) {
	if d := x.diff[name]; d != nil && d.pos < 0 {
		if i, found := slices.BinarySearch(x.added, name); found {
			x.added = slices.Delete(x.added, i, i+1)
		}
	}
	delete(x.diff, name)
}

// encodeSplit encodes diff against shared index sh: the entries replaced (in the
// shared index's order) and the entries added (added: their names, sorted), and a
// link extension naming sh with the delete and replace bitmaps. It appends to buf.
func encodeSplit(buf []byte, sh *sharedIndex, diff map[string]*splitEnt, added []string) []byte {
	var del, rep []uint32
	size := 12 + 64
	for _, d := range diff {
		switch {
		case d.raw == nil:
			del = append(del, uint32(d.pos))
		case d.pos >= 0:
			rep = append(rep, uint32(d.pos))
		}
		size += len(d.raw)
	}
	slices.Sort(del)
	slices.Sort(rep)
	buf = slices.Grow(buf[:0], size+len(del)*8+len(rep)*8)
	buf = append(buf, "DIRC"...)
	buf = binary.BigEndian.AppendUint32(buf, 2)
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(rep)+len(added)))
	for _, p := range rep {
		buf = append(buf, diff[sh.name(int(p))].raw...)
	}
	for _, name := range added {
		buf = append(buf, diff[name].raw...)
	}
	var ext []byte
	ext = append(ext, sh.id[:]...)
	ext = appendEWAH(ext, del)
	ext = appendEWAH(ext, rep)
	buf = append(buf, "link"...)
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(ext)))
	buf = append(buf, ext...)
	sum := sha1.Sum(buf)
	return append(buf, sum[:]...)
}

// encodeIndex picks the form to write: a plain index, a split one against the
// current shared index, or a new shared index and an empty split index.
func (x *gitIndex) encodeIndex() *encodedIndex {
	if !x.split || (x.lean == nil && len(x.entries) < splitMin) {
		return &encodedIndex{main: x.encode()}
	}
	if sh := x.shared; sh != nil {
		x.refreshDiff(sh)
		if len(x.diff) <= sh.count()/splitShare && x.keepShared() {
			// The previous encoding has been written (the committer waits for it):
			// reuse its buffer.
			x.splitBuf = encodeSplit(x.splitBuf, sh, x.diff, x.added)
			return &encodedIndex{main: x.splitBuf}
		}
	}
	x.materialize() // a lean index's shared entries, for the new shared index
	full := x.encode()
	next := &sharedIndex{entries: append([]idxEntry(nil), x.entries...)}
	copy(next.id[:], full[len(full)-20:])
	return &encodedIndex{main: encodeSplit(nil, next, nil, nil), shared: full, next: next}
}

// writeShared puts a new shared index in place, durably: .git/index will name it,
// and an index naming a missing file stops every git command.
func writeShared(gitDir string, s *sharedIndex, b []byte) error {
	final := sharedIndexPath(gitDir, s.id)
	tmp := filepath.Join(gitDir, "norn", "sharedindex.tmp-"+randHex(4))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("write shared index: %w", err)
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, final)
	}
	if err == nil {
		err = syncDir(gitDir)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write shared index: %w", err)
	}
	s.touched = time.Now()
	return nil
}

// keepShared makes sure the shared index .git/index is about to name still exists
// and looks in use to git's expiry; false means it is gone and a new one is needed.
func (x *gitIndex) keepShared() bool {
	if time.Since(x.shared.touched) < time.Hour {
		return true
	}
	p := sharedIndexPath(filepath.Dir(x.path), x.shared.id)
	now := time.Now()
	if err := os.Chtimes(p, now, now); err != nil {
		return false
	}
	x.shared.touched = now
	return true
}

// removeOldShared removes shared index files other than the current one that are
// older than sharedKeep.
func removeOldShared(gitDir string, keep hash) {
	matches, _ := filepath.Glob(filepath.Join(gitDir, "sharedindex.*"))
	cur := sharedIndexPath(gitDir, keep)
	for _, m := range matches {
		if m == cur {
			continue
		}
		if fi, err := os.Stat(m); err == nil && time.Since(fi.ModTime()) > sharedKeep {
			os.Remove(m)
		}
	}
	tmps, _ := filepath.Glob(filepath.Join(gitDir, "norn", "sharedindex.tmp-*"))
	for _, m := range tmps {
		if fi, err := os.Stat(m); err == nil && time.Since(fi.ModTime()) > time.Hour {
			os.Remove(m)
		}
	}
}

// decodeIndex reads a version 2 or 3 index: its stage-0 entries in file order and
// its link extension, if any. Other versions give an error (go-git reads them).
func decodeIndex(b []byte) (entries []idxEntry, link []byte, err error) {
	if len(b) < 12+20 || string(b[:4]) != "DIRC" {
		return nil, nil, fmt.Errorf("not an index")
	}
	if sum := sha1.Sum(b[:len(b)-20]); !bytes.Equal(sum[:], b[len(b)-20:]) {
		return nil, nil, fmt.Errorf("index checksum mismatch")
	}
	ver := binary.BigEndian.Uint32(b[4:])
	if ver != 2 && ver != 3 {
		return nil, nil, fmt.Errorf("index version %d", ver)
	}
	n := int(binary.BigEndian.Uint32(b[8:]))
	end := len(b) - 20
	off := 12
	u32 := func(o int) uint32 { return binary.BigEndian.Uint32(b[o:]) }
	for range n {
		e, next, err := decodeEntry(b[:end], off, ver)
		if err != nil {
			return nil, nil, err
		}
		off = next
		entries = append(entries, e)
	}
	for off+8 <= end {
		sig := string(b[off : off+4])
		size := int(u32(off + 4))
		if off+8+size > end {
			return nil, nil, fmt.Errorf("index extension %q truncated", sig)
		}
		data := b[off+8 : off+8+size]
		switch {
		case sig == "link":
			link = data
		case sig[0] >= 'A' && sig[0] <= 'Z':
		default:
			return nil, nil, fmt.Errorf("index extension %q not understood", sig)
		}
		off += 8 + size
	}
	return entries, link, nil
}

// decodeEntry decodes the entry of a version ver index at offset off of b (the
// file without its checksum) and returns it and the offset of the next one.
func decodeEntry(b []byte, off int, ver uint32) (idxEntry, int, error) {
	hdr, nl, err := entryShape(b, off, ver)
	if err != nil {
		return idxEntry{}, 0, err
	}
	u32 := func(o int) uint32 { return binary.BigEndian.Uint32(b[o:]) }
	var e idxEntry
	e.ctimeS, e.ctimeN, e.mtimeS, e.mtimeN = u32(off), u32(off+4), u32(off+8), u32(off+12)
	e.dev, e.ino, e.mode, e.uid, e.gid, e.size = u32(off+16), u32(off+20), u32(off+24), u32(off+28), u32(off+32), u32(off+36)
	copy(e.id[:], b[off+40:off+60])
	flags := binary.BigEndian.Uint16(b[off+60:])
	if hdr > 62 {
		e.ita = binary.BigEndian.Uint16(b[off+62:])&0x2000 != 0
	}
	e.name = string(b[off+hdr : off+hdr+nl])
	e.stage = uint8((flags >> 12) & 3)
	return e, off + (hdr+nl+8)&^7, nil
}

// entryShape returns the header length and name length of the entry at off of a
// version ver index (b without its checksum), checking that it fits in b.
func entryShape(b []byte, off int, ver uint32) (hdr, nl int, err error) {
	end := len(b)
	if off+62 > end {
		return 0, 0, fmt.Errorf("index truncated")
	}
	flags := binary.BigEndian.Uint16(b[off+60:])
	hdr = 62
	if flags&0x4000 != 0 { // extended flags (version 3)
		if ver < 3 {
			return 0, 0, fmt.Errorf("extended flags in a version 2 index")
		}
		if off+64 > end {
			return 0, 0, fmt.Errorf("index truncated")
		}
		hdr += 2
	}
	nl = int(flags & 0xfff)
	if nl == 0xfff { // long name: NUL-terminated
		i := bytes.IndexByte(b[off+hdr:end], 0)
		if i < 0 {
			return 0, 0, fmt.Errorf("index truncated")
		}
		nl = i
	}
	if off+hdr+nl > end {
		return 0, 0, fmt.Errorf("index truncated")
	}
	return hdr, nl, nil
}

// loadSplit merges a split index's entries with its shared index, as git does, and
// returns the entries, the shared index and the names that differ from it. prev,
// when not nil, is the shared index loaded or written before: when .git/index still
// links to it (a shared index file never changes: it is named by its checksum),
// its decoded entries are taken again instead of reading and decoding the file —
// after a hand commit only the small split part is new.
func loadSplit(gitDir string, split []idxEntry, link []byte, prev *sharedIndex) ([]idxEntry, *sharedIndex, map[string]struct{}, error) {
	if len(link) < 20 {
		return nil, nil, nil, fmt.Errorf("link extension too short")
	}
	var id hash
	copy(id[:], link[:20])
	var base []idxEntry
	if prev != nil && prev.id == id && prev.view == nil && prev.entries != nil {
		base = prev.entries // never changed in place: a copy is merged below
	} else {
		var err error
		if base, err = readShared(gitDir, id); err != nil {
			return nil, nil, nil, err
		}
	}
	var del, rep []uint32
	var err error
	if rest := link[20:]; len(rest) > 0 {
		var n int
		if del, n, err = readEWAH(rest, len(base)); err == nil {
			rep, _, err = readEWAH(rest[n:], len(base))
		}
		if err != nil {
			return nil, nil, nil, fmt.Errorf("link extension: %w", err)
		}
	}
	merged := append([]idxEntry(nil), base...)
	gone := make([]bool, len(base))
	differ := map[string]struct{}{}
	if len(rep) > len(split) {
		return nil, nil, nil, fmt.Errorf("link extension: %d replacements, %d entries", len(rep), len(split))
	}
	for i, p := range rep {
		if int(p) >= len(base) || split[i].name != "" {
			return nil, nil, nil, fmt.Errorf("link extension: bad replacement %d", p)
		}
		e := split[i]
		e.name = base[p].name
		merged[p] = e
		differ[e.name] = struct{}{}
	}
	for _, p := range del {
		if int(p) >= len(base) {
			return nil, nil, nil, fmt.Errorf("link extension: bad deletion %d", p)
		}
		gone[p] = true
		differ[base[p].name] = struct{}{}
	}
	out := merged[:0]
	for i := range merged {
		if !gone[i] {
			out = append(out, merged[i])
		}
	}
	for _, e := range split[len(rep):] {
		if e.name == "" {
			return nil, nil, nil, fmt.Errorf("link extension: an added entry has no name")
		}
		out = append(out, e)
		differ[e.name] = struct{}{}
	}
	return out, &sharedIndex{id: id, entries: base}, differ, nil
}

// readShared reads and decodes the shared index id.
func readShared(gitDir string, id hash) ([]idxEntry, error) {
	b, err := os.ReadFile(sharedIndexPath(gitDir, id))
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(b[max(0, len(b)-20):], id[:]) {
		return nil, fmt.Errorf("shared index %s: checksum mismatch", id)
	}
	base, blink, err := decodeIndex(b)
	if err != nil || blink != nil {
		return nil, fmt.Errorf("shared index %s: %v", id, err)
	}
	for i := range base {
		if base[i].stage != 0 {
			// Norn keeps stage 0 only; it cannot write against this base.
			return nil, fmt.Errorf("shared index %s has unmerged entries", id)
		}
	}
	return base, nil
}

// EWAH bitmaps as git stores them (ewah/ewah_io.c): the bit count, the number of
// 64-bit words, the words, and the position of the last run-length word. A
// run-length word holds the running bit (bit 0), the run length in words (bits
// 1-32) and the number of literal words that follow (bits 33-63).

// appendEWAH encodes the set bits at positions (ascending).
func appendEWAH(b []byte, positions []uint32) []byte {
	var words []uint64
	lastRLW := 0
	words = append(words, 0)
	nextWord := uint64(0) // the first word index not yet covered
	var bits uint32
	for i := 0; i < len(positions); {
		w := uint64(positions[i] / 64)
		var lit uint64
		for i < len(positions) && uint64(positions[i]/64) == w {
			lit |= 1 << (positions[i] % 64)
			bits = positions[i] + 1
			i++
		}
		rlw := words[lastRLW]
		run := (rlw >> 1) & 0xffffffff
		nlit := rlw >> 33
		if w == nextWord && nlit < 1<<31-1 {
			// Extend the current run-length word's literals.
			words[lastRLW] = (rlw & (1<<33 - 1)) | (nlit+1)<<33
		} else if w > nextWord && nlit == 0 && run+(w-nextWord) <= 0xffffffff {
			run += w - nextWord
			words[lastRLW] = run<<1 | 1<<33
		} else {
			gap := w - nextWord
			for gap > 0xffffffff { // longer runs than one word can say
				words = append(words, 0xffffffff<<1)
				gap -= 0xffffffff
			}
			lastRLW = len(words)
			words = append(words, gap<<1|1<<33)
		}
		words = append(words, lit)
		nextWord = w + 1
	}
	b = binary.BigEndian.AppendUint32(b, bits)
	b = binary.BigEndian.AppendUint32(b, uint32(len(words)))
	for _, w := range words {
		b = binary.BigEndian.AppendUint64(b, w)
	}
	return binary.BigEndian.AppendUint32(b, uint32(lastRLW))
}

// readEWAH decodes a bitmap and returns its set positions and its length in bytes.
// A position at or past limit is an error (a bitmap over the shared index's entries
// names no entry beyond them), which also bounds what a damaged run word can make it
// allocate.
func readEWAH(b []byte, limit int) ([]uint32, int, error) {
	if len(b) < 8 {
		return nil, 0, fmt.Errorf("ewah bitmap truncated")
	}
	nw := int(binary.BigEndian.Uint32(b[4:]))
	size := 8 + 8*nw + 4
	if nw < 0 || len(b) < size {
		return nil, 0, fmt.Errorf("ewah bitmap truncated")
	}
	var out []uint32
	pos := uint64(0)
	for i := 0; i < nw; {
		rlw := binary.BigEndian.Uint64(b[8+8*i:])
		i++
		run := (rlw >> 1) & 0xffffffff
		if rlw&1 != 0 && run > 0 {
			if pos+run*64 > uint64(limit) {
				return nil, 0, fmt.Errorf("ewah bitmap: bit %d past %d entries", pos+run*64-1, limit)
			}
			for p := pos; p < pos+run*64; p++ {
				out = append(out, uint32(p))
			}
		}
		pos += run * 64
		for range rlw >> 33 {
			if i >= nw {
				return nil, 0, fmt.Errorf("ewah bitmap truncated")
			}
			w := binary.BigEndian.Uint64(b[8+8*i:])
			i++
			for k := range 64 {
				if w&(1<<k) != 0 {
					if pos+uint64(k) >= uint64(limit) {
						return nil, 0, fmt.Errorf("ewah bitmap: bit %d past %d entries", pos+uint64(k), limit)
					}
					out = append(out, uint32(pos)+uint32(k))
				}
			}
			pos += 64
		}
	}
	return out, size, nil
}
