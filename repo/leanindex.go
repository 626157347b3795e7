package repo

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sort"
	"time"

	"golang.org/x/sys/unix"
)

// A lean index (Options.Lean) is git's split index read without its shared
// index's entries: .git/index (the entries that differ from the shared index, a
// few KB) is decoded, and the shared index is mapped and looked up by name where
// the command needs an entry. entries then holds only the names the command has
// looked at (gitIndex.find pulls each in on first use) and those .git/index
// names; every other name is as the shared index has it. The split index Norn
// writes afterwards is the same as a full load would give: it differs from the
// shared index in the same names, with the same entries. Only a new shared index
// (more than 1/splitShare of the entries differ) needs every entry: materialize
// reads them all first.

// sharedView is a shared index file mapped into memory, with the offset of each
// entry (the entries are variable-length and sorted by name).
type sharedView struct {
	b      []byte // the file without its checksum
	mapped []byte // the whole mapping (nil when read into the heap)
	ver    uint32
	offs   []uint32
}

// openSharedView maps shared index id and finds its entries. The file's name is its
// checksum, which its trailer repeats; unlike decodeIndex it does not hash the whole
// file (tens of milliseconds at 100,000 notes), but every entry is bounds-checked.
func openSharedView(gitDir string, id hash) (*sharedView, error) {
	b, mapped, err := mapFile(sharedIndexPath(gitDir, id))
	if err != nil {
		return nil, err
	}
	v := &sharedView{}
	if mapped {
		v.mapped = b
	}
	if err := v.parse(b, id); err != nil {
		v.release()
		return nil, fmt.Errorf("shared index %s: %w", id, err)
	}
	return v, nil
}

func (v *sharedView) parse(b []byte, id hash) error {
	if len(b) < 12+20 || string(b[:4]) != "DIRC" || !bytes.Equal(b[len(b)-20:], id[:]) {
		return fmt.Errorf("not the index its name says")
	}
	v.ver = binary.BigEndian.Uint32(b[4:])
	if v.ver != 2 && v.ver != 3 {
		return fmt.Errorf("index version %d", v.ver)
	}
	v.b = b[:len(b)-20]
	n := int(binary.BigEndian.Uint32(b[8:]))
	if n > len(v.b)/62 {
		return fmt.Errorf("index truncated")
	}
	v.offs = make([]uint32, 0, n)
	off := 12
	var prev []byte
	for range n {
		hdr, nl, err := entryShape(v.b, off, v.ver)
		if err != nil {
			return err
		}
		// find's binary search needs the names in strictly increasing order, as
		// git writes them (stage 0 only: one entry a name).
		name := v.b[off+hdr : off+hdr+nl]
		if prev != nil && bytes.Compare(prev, name) >= 0 {
			return fmt.Errorf("entries out of order")
		}
		prev = name
		if binary.BigEndian.Uint16(v.b[off+60:])>>12&3 != 0 {
			// Norn keeps stage 0 only; it cannot write against this base.
			return fmt.Errorf("unmerged entries")
		}
		if off > 1<<32-1 {
			return fmt.Errorf("index too large")
		}
		v.offs = append(v.offs, uint32(off))
		off += (hdr + nl + 8) &^ 7
	}
	return nil
}

// release unmaps the file.
func (v *sharedView) release() {
	if v.mapped != nil {
		unix.Munmap(v.mapped)
		v.mapped, v.b = nil, nil
	}
}

// nameBytes returns the name of entry i, a slice of the mapping.
func (v *sharedView) nameBytes(i int) []byte {
	off := int(v.offs[i])
	hdr, nl, _ := entryShape(v.b, off, v.ver) // checked by parse
	return v.b[off+hdr : off+hdr+nl]
}

// entry decodes entry i.
func (v *sharedView) entry(i int) idxEntry {
	e, _, _ := decodeEntry(v.b, int(v.offs[i]), v.ver) // checked by parse
	return e
}

func (v *sharedView) find(name string) (int, bool) {
	i := sort.Search(len(v.offs), func(i int) bool { return string(v.nameBytes(i)) >= name })
	return i, i < len(v.offs) && string(v.nameBytes(i)) == name
}

// leanState is what a lean index knows beyond its entries: the names it has pulled
// in (their entries, if any, are in gitIndex.entries and are the truth for them).
type leanState struct {
	pulled map[string]bool
}

// loadLean reads split index main (decoded: split, link) against its shared index
// without decoding the shared index's entries. It reports false, having changed
// nothing, when the index is not one it can read that way (the caller then loads
// it whole).
func (x *gitIndex) loadLean(gitDir string, split []idxEntry, link []byte) bool {
	if len(link) < 20 || !x.split {
		return false
	}
	var id hash
	copy(id[:], link[:20])
	view, err := openSharedView(gitDir, id)
	if err != nil {
		return false
	}
	var del, rep []uint32
	if rest := link[20:]; len(rest) > 0 {
		var n int
		if del, n, err = readEWAH(rest, len(view.offs)); err == nil {
			rep, _, err = readEWAH(rest[n:], len(view.offs))
		}
	}
	if err != nil || len(rep) > len(split) {
		view.release()
		return false
	}
	ls := &leanState{pulled: map[string]bool{}}
	stale := map[string]struct{}{}
	var entries []idxEntry
	keep := func(e idxEntry) {
		ls.pulled[e.name] = true
		stale[e.name] = struct{}{}
		if e.stage == 0 && !e.ita {
			entries = append(entries, e)
		}
	}
	for i, p := range rep {
		if split[i].name != "" {
			view.release()
			return false
		}
		e := split[i]
		e.name = string(view.nameBytes(int(p)))
		keep(e)
	}
	for _, p := range del {
		name := string(view.nameBytes(int(p)))
		ls.pulled[name] = true
		stale[name] = struct{}{}
	}
	for _, e := range split[len(rep):] {
		if e.name == "" {
			view.release()
			return false
		}
		keep(e)
	}
	// A name both replaced and deleted is deleted, as loadSplit has it.
	out := entries[:0]
	for _, e := range entries {
		if i, ok := view.find(e.name); ok && containsPos(del, i) {
			continue
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	x.entries, x.lean, x.stale = out, ls, stale
	x.shared = &sharedIndex{id: id, view: view, touched: time.Now().Add(-2 * time.Hour)} // checked at the first write
	return true
}

func containsPos(sorted []uint32, i int) bool {
	j := sort.Search(len(sorted), func(j int) bool { return sorted[j] >= uint32(i) })
	return j < len(sorted) && sorted[j] == uint32(i)
}

// pull brings name's entry in from the shared index on a lean index's first look
// at it; the caller holds whatever guards x.
func (x *gitIndex) pull(name string) {
	ls := x.lean
	if ls == nil || ls.pulled[name] {
		return
	}
	ls.pulled[name] = true
	si, ok := x.shared.view.find(name)
	if !ok {
		return
	}
	e := x.shared.view.entry(si)
	if e.stage != 0 || e.ita {
		return
	}
	i := sort.Search(len(x.entries), func(i int) bool { return x.entries[i].name >= name })
	x.entries = append(x.entries, idxEntry{})
	copy(x.entries[i+1:], x.entries[i:])
	x.entries[i] = e
}

// materialize turns a lean index into a whole one: every entry of the shared index
// the command has not looked at joins entries.
func (x *gitIndex) materialize() {
	ls := x.lean
	if ls == nil {
		return
	}
	view := x.shared.view
	all := make([]idxEntry, 0, len(view.offs)+len(x.entries))
	base := make([]idxEntry, 0, len(view.offs))
	for i := range view.offs {
		e := view.entry(i)
		if !ls.pulled[e.name] && e.stage == 0 && !e.ita {
			all = append(all, e)
		}
		base = append(base, e)
	}
	all = append(all, x.entries...)
	sort.Slice(all, func(i, j int) bool { return all[i].name < all[j].name })
	x.entries, x.lean = all, nil
	x.shared.entries, x.shared.view = base, nil
	view.release()
}

// release gives back what a lean index holds mapped.
func (x *gitIndex) release() {
	if x.shared != nil && x.shared.view != nil {
		x.shared.view.release()
	}
}
