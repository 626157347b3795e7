package repo

import (
	"bytes"
	"cmp"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// This file writes packs: each group commit's new objects as one pack of
// undeltified objects and its index (write), and small packs rolled into one as
// they pile up (mergePlan, merge, dropMerged). Reading them is pack.go's.

// packType is the pack's code for an object type.
func packType(typ string) int {
	switch typ {
	case "commit":
		return packCommit
	case "tree":
		return packTree
	case "blob":
		return packBlob
	case "tag":
		return packTag
	}
	return 0
}

// errPackDelta: a pack holds a delta, so its entries cannot be copied as they are.
var errPackDelta = errors.New("delta object")

// packObj is one object ready for a pack: its entry header and its body deflated
// as a zlib stream (position-independent for an undeltified object).
type packObj struct {
	id  hash
	raw []byte
}

// deflate compresses an object's body for a pack.
func (s *objectStore) deflate(typ string, data []byte) packObj {
	var buf bytes.Buffer
	buf.Grow(len(data)/2 + 64)
	buf.Write(appendEntryHeader(nil, packType(typ), len(data)))
	zw := s.packs.zlib.writer(&buf)
	zw.Write(data)
	zw.Close()
	s.packs.zlib.putWriter(zw)
	return packObj{id: objectID(typ, data), raw: buf.Bytes()}
}

// storedEntry builds a pack entry whose body is a zlib stream of stored (uncompressed)
// deflate blocks. Trees and commits go this way: deflating a 3 KB tree costs ~65 µs
// (Go's flate builds Huffman tables even at BestSpeed, which dominates for small
// inputs) and saves only a third of its bytes (the ids do not compress), while
// storing costs ~2 µs. git reads such streams like any other; git gc deltifies and
// compresses them when it repacks.
func storedEntry(typ string, data []byte) []byte {
	b := make([]byte, 0, 16+len(data)+5*(len(data)/65535+1)+4)
	b = appendEntryHeader(b, packType(typ), len(data))
	b = append(b, 0x78, 0x01) // zlib header: deflate, 32 KiB window, fastest
	rest := data
	for {
		n := min(len(rest), 65535)
		final := byte(0)
		if n == len(rest) {
			final = 1
		}
		b = append(b, final, byte(n), byte(n>>8), ^byte(n), ^byte(n>>8))
		b = append(b, rest[:n]...)
		rest = rest[n:]
		if final == 1 {
			break
		}
	}
	return binary.BigEndian.AppendUint32(b, adler32.Checksum(data))
}

// appendEntryHeader appends a pack entry header: type and inflated size.
func appendEntryHeader(b []byte, typ, size int) []byte {
	c := byte(typ<<4) | byte(size&0x0f)
	size >>= 4
	for size > 0 {
		b = append(b, c|0x80)
		c = byte(size & 0x7f)
		size >>= 7
	}
	return append(b, c)
}

// encodePack builds a version 2 pack of undeltified objects and its version 2 index.
// Objects with the same id are stored once.
func encodePack(objs []packObj) (pack, idx []byte, sum hash) {
	type ent struct {
		id  hash
		off uint64
		crc uint32
	}
	seen := make(map[hash]bool, len(objs))
	size := 12 + 20
	for i := range objs {
		size += len(objs[i].raw)
	}
	pack = make([]byte, 0, size)
	pack = append(pack, "PACK"...)
	pack = binary.BigEndian.AppendUint32(pack, 2)
	pack = binary.BigEndian.AppendUint32(pack, 0) // count, set below
	ents := make([]ent, 0, len(objs))
	for i := range objs {
		o := &objs[i]
		if seen[o.id] {
			continue
		}
		seen[o.id] = true
		off := len(pack)
		pack = append(pack, o.raw...)
		ents = append(ents, ent{id: o.id, off: uint64(off), crc: crc32.ChecksumIEEE(o.raw)})
	}
	binary.BigEndian.PutUint32(pack[8:], uint32(len(ents)))
	sum = sha1.Sum(pack)
	pack = append(pack, sum[:]...)

	sort.Slice(ents, func(i, j int) bool { return bytes.Compare(ents[i].id[:], ents[j].id[:]) < 0 })
	idx = make([]byte, 0, 8+1024+len(ents)*28+40)
	idx = append(idx, 0xff, 't', 'O', 'c')
	idx = binary.BigEndian.AppendUint32(idx, 2)
	var fan [256]uint32
	for _, e := range ents {
		fan[e.id[0]]++
	}
	n := uint32(0)
	for i := range fan {
		n += fan[i]
		idx = binary.BigEndian.AppendUint32(idx, n)
	}
	for _, e := range ents {
		idx = append(idx, e.id[:]...)
	}
	for _, e := range ents {
		idx = binary.BigEndian.AppendUint32(idx, e.crc)
	}
	var large []uint64
	for _, e := range ents {
		if e.off < 1<<31 {
			idx = binary.BigEndian.AppendUint32(idx, uint32(e.off))
			continue
		}
		idx = binary.BigEndian.AppendUint32(idx, 1<<31|uint32(len(large)))
		large = append(large, e.off)
	}
	for _, o := range large {
		idx = binary.BigEndian.AppendUint64(idx, o)
	}
	idx = append(idx, sum[:]...)
	isum := sha1.Sum(idx)
	idx = append(idx, isum[:]...)
	return pack, idx, sum
}

// rawEntries returns each object of p with its entry bytes (header and deflated
// body, which are position-independent for undeltified objects), or errPackDelta.
func (p *pack) rawEntries() ([]packObj, error) {
	data := make([]byte, p.size)
	if _, err := p.f.ReadAt(data, 0); err != nil {
		return nil, fmt.Errorf("pack %s: %w", p.name, err)
	}
	type at struct {
		i   uint32
		off uint64
	}
	order := make([]at, p.count)
	for i := range p.count {
		off, ok := p.offset(i)
		if !ok {
			return nil, fmt.Errorf("pack %s: %w: large offset", p.name, errBadPack)
		}
		order[i] = at{i, uint64(off)}
	}
	slices.SortFunc(order, func(a, b at) int { return cmp.Compare(a.off, b.off) })
	end := uint64(len(data) - 20)
	out := make([]packObj, p.count)
	for k, o := range order {
		next := end
		if k+1 < len(order) {
			next = order[k+1].off
		}
		if o.off < 12 || o.off >= next || next > end {
			return nil, fmt.Errorf("pack %s: %w: offsets", p.name, errBadPack)
		}
		if t := data[o.off] >> 4 & 7; t == packOfsDelta || t == packRefDelta {
			return nil, errPackDelta
		}
		copy(out[k].id[:], p.ids[20*o.i:20*o.i+20])
		out[k].raw = data[o.off:next]
	}
	return out, nil
}

// write stores objs as a new pack (pack, then index, each via a temporary file and
// a rename) and adds it to the set. Nothing is fsynced: the caller syncs.
func (ps *packSet) write(objs []packObj) (*pack, error) {
	data, idx, sum := encodePack(objs)
	name := "pack-" + sum.String()
	if !ps.made {
		if err := os.MkdirAll(ps.dir, 0o755); err != nil {
			return nil, fmt.Errorf("write pack: %w", err)
		}
		ps.made = true
	}
	for _, f := range []struct {
		ext  string
		data []byte
	}{{".pack", data}, {".idx", idx}} {
		tmp := filepath.Join(ps.dir, TempPackPrefix+strings.TrimPrefix(f.ext, ".")+"_"+randHex(6))
		if err := writeNew(tmp, f.data, 0o444); err != nil {
			os.Remove(tmp)
			return nil, fmt.Errorf("write pack: %w", err)
		}
		if err := replaceFile(tmp, filepath.Join(ps.dir, name+f.ext)); err != nil {
			os.Remove(tmp)
			return nil, fmt.Errorf("write pack: %w", err)
		}
	}
	p, err := parsePackIndex(idx)
	if err != nil {
		return nil, fmt.Errorf("write pack: %w", err)
	}
	f, err := openRead(filepath.Join(ps.dir, name+".pack"))
	if err != nil {
		return nil, fmt.Errorf("write pack: %w", err)
	}
	p.name, p.f, p.size, p.mixed = name, f, int64(len(data)), 1
	ps.add(p)
	return p, nil
}

// TempPackPrefix names Norn's temporary files in the pack folder (this package's
// packs, sync/remote's fetched pack indexes); Open removes old ones a crash left
// behind (git's own are tmp_pack_*, never touched).
const TempPackPrefix = "tmp_norn_"

// removeStaleTemp removes temporary pack files older than an hour.
func (ps *packSet) removeStaleTemp() {
	matches, _ := filepath.Glob(filepath.Join(ps.dir, TempPackPrefix+"*"))
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil && time.Since(fi.ModTime()) > time.Hour {
			os.Remove(m)
		}
	}
}

// Geometric merging. Every group commit adds a small pack; so that readers (git's
// and Norn's) do not search ever more packs, the small ones are rolled into one as
// `git repack --geometric=2` would: afterwards each pack holds at least twice the
// objects of the next smaller one. Packs with deltas (git wrote them) are left
// alone, and so are packs of more than mergeCap objects: gc rolls those up once
// there are too many (GCOptions.PackLimit).
const (
	mergeFactor = 2
	// maxPacks is how many small undeltified packs may pile up before a merge runs
	// on the write path; only packs of up to mergeCap objects take part, so a write
	// never waits for a big copy.
	maxPacks = 16
	mergeCap = 4096
)

// mergePlan returns the packs to roll into one (none, or at least two).
func (ps *packSet) mergePlan(force bool) []*pack {
	if ps.holds.Load() > 0 {
		return nil
	}
	ps.mu.RLock()
	var cand []*pack
	for _, p := range ps.packs {
		if p.mixed != 2 && (force || p.count <= mergeCap) {
			cand = append(cand, p)
		}
	}
	ps.mu.RUnlock()
	if len(cand) < 2 || (!force && len(cand) <= maxPacks) {
		return nil
	}
	slices.SortFunc(cand, func(a, b *pack) int { return cmp.Compare(a.count, b.count) })
	// As git does: from the largest down, find where the progression breaks; roll up
	// everything below, and grow the roll-up while it outweighs the next pack.
	split := 0
	for i := len(cand) - 1; i > 0; i-- {
		if cand[i].count < mergeFactor*cand[i-1].count {
			split = i
			break
		}
	}
	total := uint32(0)
	for i := 0; i < split; i++ {
		total += cand[i].count
	}
	for split < len(cand) && cand[split].count < mergeFactor*total {
		total += cand[split].count
		split++
	}
	if split < 2 {
		return nil
	}
	return cand[:split]
}

// merge writes the objects of packs as one new pack and swaps it in for them in
// the set. The old files stay on disk until dropMerged, which the caller runs once
// the new pack is durable (after the next sync). A pack that turns out to hold
// deltas is marked and skipped.
func (ps *packSet) merge(packs []*pack) error {
	var objs []packObj
	var merged []*pack
	for _, p := range packs {
		o, err := p.rawEntries()
		if errors.Is(err, errPackDelta) {
			ps.mu.Lock()
			p.mixed = 2
			ps.mu.Unlock()
			continue
		}
		if err != nil {
			return fmt.Errorf("merge packs: %w", err)
		}
		objs = append(objs, o...)
		merged = append(merged, p)
	}
	if len(merged) < 2 {
		return nil
	}
	np, err := ps.write(objs)
	if err != nil {
		return fmt.Errorf("merge packs: %w", err)
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	gone := func(p *pack) bool { return p.name != np.name && slices.Contains(merged, p) }
	for _, p := range ps.packs {
		if gone(p) {
			ps.retired = append(ps.retired, p)
		}
	}
	ps.packs = slices.DeleteFunc(ps.packs, gone)
	ps.gen++
	return nil
}

// dropMerged deletes the packs merged away; call it only after a sync made their
// replacement durable. The index goes first, so no reader finds it without its
// pack; the packs stay retired until their files are gone, so a refresh meanwhile
// does not open them again.
func (ps *packSet) dropMerged() {
	if ps.holds.Load() > 0 {
		return // after the hold, at the next write or Close
	}
	ps.mu.RLock()
	old := slices.Clone(ps.retired)
	ps.mu.RUnlock()
	if len(old) == 0 {
		return
	}
	for _, p := range old {
		os.Remove(filepath.Join(ps.dir, p.name+".idx"))
		os.Remove(filepath.Join(ps.dir, p.name+".pack"))
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for _, p := range old {
		p.close()
		if i, ok := slices.BinarySearch(ps.names, p.name); ok {
			ps.names = slices.Delete(ps.names, i, i+1)
		}
	}
	ps.retired = slices.DeleteFunc(ps.retired, func(p *pack) bool { return slices.Contains(old, p) })
}

func (ps *packSet) hasRetired() bool {
	ps.mu.RLock()
	defer ps.mu.RUnlock()
	return len(ps.retired) > 0
}
