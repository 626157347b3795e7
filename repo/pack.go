package repo

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Git object type codes as packs store them.
const (
	packCommit   = 1
	packTree     = 2
	packBlob     = 3
	packTag      = 4
	packOfsDelta = 6
	packRefDelta = 7
)

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

func packTypeName(code int) string {
	switch code {
	case packCommit:
		return "commit"
	case packTree:
		return "tree"
	case packBlob:
		return "blob"
	case packTag:
		return "tag"
	}
	return ""
}

// errPackDelta: the object is stored as a delta, which only go-git's reader resolves.
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
	var zw *zlib.Writer
	select {
	case zw = <-s.zw:
		zw.Reset(&buf)
	default:
		zw, _ = zlib.NewWriterLevel(&buf, zlib.BestSpeed)
	}
	zw.Write(data)
	zw.Close()
	select {
	case s.zw <- zw:
	default:
	}
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

// packFile is one pack in objects/pack with its index in memory.
type packFile struct {
	name  string // "pack-<sha1>"
	f     *os.File
	ids   []byte // sorted object ids, 20 bytes each
	offs  []uint64
	fan   [256]uint32
	count int
	// mixed: the pack holds delta objects (git wrote it); Norn never merges it.
	mixed int8 // 0 unknown, 1 undeltified only, 2 has deltas
}

func (p *packFile) id(i int) []byte { return p.ids[i*20 : i*20+20] }

// find returns the offset of id in the pack, or -1.
func (p *packFile) find(id hash) int64 {
	lo := 0
	if id[0] > 0 {
		lo = int(p.fan[id[0]-1])
	}
	hi := int(p.fan[id[0]])
	i := lo + sort.Search(hi-lo, func(i int) bool { return bytes.Compare(p.id(lo+i), id[:]) >= 0 })
	if i < hi && bytes.Equal(p.id(i), id[:]) {
		return int64(p.offs[i])
	}
	return -1
}

// parseIdx reads a version 2 pack index.
func parseIdx(b []byte) (*packFile, error) {
	if len(b) < 8+1024+40 || !bytes.Equal(b[:4], []byte{0xff, 't', 'O', 'c'}) || binary.BigEndian.Uint32(b[4:]) != 2 {
		return nil, fmt.Errorf("not a version 2 pack index")
	}
	if sum := sha1.Sum(b[:len(b)-20]); !bytes.Equal(sum[:], b[len(b)-20:]) {
		return nil, fmt.Errorf("pack index checksum mismatch")
	}
	p := &packFile{}
	for i := range p.fan {
		p.fan[i] = binary.BigEndian.Uint32(b[8+4*i:])
	}
	n := int(p.fan[255])
	base := 8 + 1024
	if len(b) < base+n*28+40 {
		return nil, fmt.Errorf("pack index truncated")
	}
	p.count = n
	p.ids = b[base : base+20*n]
	offs := b[base+24*n : base+28*n]
	large := b[base+28*n : len(b)-40]
	p.offs = make([]uint64, n)
	for i := range n {
		o := binary.BigEndian.Uint32(offs[4*i:])
		if o&(1<<31) == 0 {
			p.offs[i] = uint64(o)
			continue
		}
		j := int(o &^ (1 << 31))
		if 8*j+8 > len(large) {
			return nil, fmt.Errorf("pack index: bad large offset")
		}
		p.offs[i] = binary.BigEndian.Uint64(large[8*j:])
	}
	return p, nil
}

// readEntry reads the undeltified object at off. A delta gives errPackDelta.
func (p *packFile) readEntry(off int64) (int, []byte, error) {
	var hdr [16]byte
	n, err := p.f.ReadAt(hdr[:], off)
	if n == 0 {
		return 0, nil, fmt.Errorf("pack %s: %w", p.name, err)
	}
	c := hdr[0]
	typ := int(c>>4) & 7
	size := int(c & 0x0f)
	shift := 4
	i := 1
	for c&0x80 != 0 {
		if i >= n || shift > 56 {
			return 0, nil, fmt.Errorf("pack %s: bad entry header at %d", p.name, off)
		}
		c = hdr[i]
		size |= int(c&0x7f) << shift
		shift += 7
		i++
	}
	if typ == packOfsDelta || typ == packRefDelta {
		return typ, nil, errPackDelta
	}
	if packTypeName(typ) == "" {
		return 0, nil, fmt.Errorf("pack %s: bad object type %d at %d", p.name, typ, off)
	}
	zr, err := zlib.NewReader(io.NewSectionReader(p.f, off+int64(i), 1<<62))
	if err != nil {
		return 0, nil, fmt.Errorf("pack %s: %w", p.name, err)
	}
	defer zr.Close()
	data := make([]byte, size)
	if _, err := io.ReadFull(zr, data); err != nil {
		return 0, nil, fmt.Errorf("pack %s: object at %d: %w", p.name, off, err)
	}
	return typ, data, nil
}

// rawEntries returns each object with its entry bytes (header and deflated body,
// which are position-independent for undeltified objects), or errPackDelta.
func (p *packFile) rawEntries() ([]packObj, error) {
	fi, err := p.f.Stat()
	if err != nil {
		return nil, err
	}
	data := make([]byte, fi.Size())
	if _, err := p.f.ReadAt(data, 0); err != nil {
		return nil, fmt.Errorf("pack %s: %w", p.name, err)
	}
	if len(data) < 32 || string(data[:4]) != "PACK" {
		return nil, fmt.Errorf("pack %s: bad header", p.name)
	}
	type at struct {
		i   int
		off uint64
	}
	order := make([]at, p.count)
	for i := range p.count {
		order[i] = at{i, p.offs[i]}
	}
	sort.Slice(order, func(a, b int) bool { return order[a].off < order[b].off })
	end := uint64(len(data) - 20)
	out := make([]packObj, p.count)
	for k, o := range order {
		next := end
		if k+1 < len(order) {
			next = order[k+1].off
		}
		if o.off >= next || next > end {
			return nil, fmt.Errorf("pack %s: bad offsets", p.name)
		}
		if t := int(data[o.off]>>4) & 7; t == packOfsDelta || t == packRefDelta {
			return nil, errPackDelta
		}
		copy(out[k].id[:], p.id(o.i))
		out[k].raw = data[o.off:next]
	}
	return out, nil
}

// packSet is the packs of objects/pack, newest first, readable concurrently.
type packSet struct {
	dir string // objects/pack

	mu    sync.RWMutex
	packs []*packFile
	// gen counts changes to the set, so go-git's pack list can be refreshed.
	gen uint64
	// retired are packs merged into a newer one, deleted once that one is durable.
	retired []*packFile
	// made: the folder exists (write creates it once).
	made bool
}

func (ps *packSet) open(name string) (*packFile, error) {
	b, err := os.ReadFile(filepath.Join(ps.dir, name+".idx"))
	if err != nil {
		return nil, err
	}
	p, err := parseIdx(b)
	if err != nil {
		return nil, fmt.Errorf("%s.idx: %w", name, err)
	}
	f, err := os.Open(filepath.Join(ps.dir, name+".pack"))
	if err != nil {
		return nil, err
	}
	p.name, p.f = name, f
	return p, nil
}

// rescan loads packs that appeared in the folder and drops those that are gone. It
// reports whether anything changed.
func (ps *packSet) rescan() bool {
	entries, _ := os.ReadDir(ps.dir)
	onDisk := map[string]bool{}
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, "pack-") && strings.HasSuffix(n, ".idx") {
			onDisk[strings.TrimSuffix(n, ".idx")] = true
		}
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	changed := false
	kept := ps.packs[:0]
	loaded := map[string]bool{}
	for _, p := range ps.retired {
		loaded[p.name] = true // merged away, deleted soon
	}
	for _, p := range ps.packs {
		if onDisk[p.name] {
			kept = append(kept, p)
			loaded[p.name] = true
			continue
		}
		p.f.Close()
		changed = true
	}
	ps.packs = kept
	for n := range onDisk {
		if loaded[n] {
			continue
		}
		p, err := ps.open(n)
		if err != nil {
			continue // half-written by another process, or not a v2 index: go-git reads it
		}
		ps.packs = append([]*packFile{p}, ps.packs...)
		changed = true
	}
	if changed {
		ps.gen++
	}
	return changed
}

// read returns the object from the first pack holding it. found is false when no
// pack does; errPackDelta when it is stored as a delta.
func (ps *packSet) read(id hash) (typ string, data []byte, found bool, err error) {
	ps.mu.RLock()
	defer ps.mu.RUnlock()
	for _, p := range ps.packs {
		off := p.find(id)
		if off < 0 {
			continue
		}
		t, data, err := p.readEntry(off)
		if err != nil {
			return "", nil, true, err
		}
		return packTypeName(t), data, true, nil
	}
	return "", nil, false, nil
}

// write stores objects as a new pack (pack, then index, each via a temporary file
// and a rename) and adds it to the set. Nothing is fsynced: the caller syncs.
func (ps *packSet) write(objs []packObj) (*packFile, error) {
	pack, idx, sum := encodePack(objs)
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
	}{{".pack", pack}, {".idx", idx}} {
		tmp := filepath.Join(ps.dir, tmpPackPrefix+strings.TrimPrefix(f.ext, ".")+"_"+randHex(6))
		if err := writeNew(tmp, f.data, 0o444); err != nil {
			os.Remove(tmp)
			return nil, fmt.Errorf("write pack: %w", err)
		}
		if err := replaceFile(tmp, filepath.Join(ps.dir, name+f.ext)); err != nil {
			os.Remove(tmp)
			return nil, fmt.Errorf("write pack: %w", err)
		}
	}
	p, err := parseIdx(idx)
	if err != nil {
		return nil, fmt.Errorf("write pack: %w", err)
	}
	f, err := openRead(filepath.Join(ps.dir, name+".pack"))
	if err != nil {
		return nil, fmt.Errorf("write pack: %w", err)
	}
	p.name, p.f, p.mixed = name, f, 1
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for i, q := range ps.packs {
		if q.name == name { // the same objects again: keep one handle
			q.f.Close()
			ps.packs = append(ps.packs[:i], ps.packs[i+1:]...)
			break
		}
	}
	ps.packs = append([]*packFile{p}, ps.packs...)
	ps.gen++
	return p, nil
}

func (ps *packSet) close() {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for _, p := range ps.packs {
		p.f.Close()
	}
	ps.packs = nil
}

// tmpPackPrefix names Norn's temporary pack files; Open removes old ones a crash
// left behind (git's own are tmp_pack_*, never touched).
const tmpPackPrefix = "tmp_norn_"

// removeStaleTemp removes temporary pack files older than an hour.
func (ps *packSet) removeStaleTemp() {
	matches, _ := filepath.Glob(filepath.Join(ps.dir, tmpPackPrefix+"*"))
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil && time.Since(fi.ModTime()) > time.Hour {
			os.Remove(m)
		}
	}
}

// Geometric merging. Every group commit adds a small pack; so that readers (git's
// and Norn's) do not search ever more packs, the small ones are rolled into one as
// `git repack --geometric=2` would: afterwards each pack holds at least twice the
// objects of the next smaller one. Packs with deltas (git wrote them) are left alone.
const (
	mergeFactor = 2
	// maxPacks is how many small undeltified packs may pile up before a merge runs
	// on the write path; only packs of up to mergeCap objects take part, so a write
	// never waits for a big copy (gc rolls up the rest).
	maxPacks = 16
	mergeCap = 4096
)

// mergePlan returns the packs to roll into one (none, or at least two).
func (ps *packSet) mergePlan(force bool) []*packFile {
	ps.mu.RLock()
	var cand []*packFile
	for _, p := range ps.packs {
		if p.mixed != 2 && (force || p.count <= mergeCap) {
			cand = append(cand, p)
		}
	}
	ps.mu.RUnlock()
	if len(cand) < 2 || (!force && len(cand) <= maxPacks) {
		return nil
	}
	sort.Slice(cand, func(i, j int) bool { return cand[i].count < cand[j].count })
	// As git does: from the largest down, find where the progression breaks; roll up
	// everything below, and grow the roll-up while it outweighs the next pack.
	split := 0
	for i := len(cand) - 1; i > 0; i-- {
		if cand[i].count < mergeFactor*cand[i-1].count {
			split = i
			break
		}
	}
	total := 0
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

// merge writes the objects of packs as one new pack and swaps it in for them in the
// set. The old files stay on disk until dropMerged, which the caller runs once the
// new pack is durable (after the next sync). A pack that turns out to hold deltas is
// marked and skipped.
func (ps *packSet) merge(packs []*packFile) error {
	var objs []packObj
	var merged []*packFile
	for _, p := range packs {
		o, err := p.rawEntries()
		if errors.Is(err, errPackDelta) {
			p.mixed = 2
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
	gone := map[*packFile]bool{}
	for _, p := range merged {
		if p.name != np.name {
			gone[p] = true
		}
	}
	kept := ps.packs[:0]
	for _, p := range ps.packs {
		if !gone[p] {
			kept = append(kept, p)
		}
	}
	ps.packs = kept
	for p := range gone {
		ps.retired = append(ps.retired, p)
	}
	ps.gen++
	return nil
}

// dropMerged deletes the packs merged away; call it only after a sync made their
// replacement durable. The index goes first, so no reader finds it without its pack.
func (ps *packSet) dropMerged() {
	ps.mu.Lock()
	old := ps.retired
	ps.retired = nil
	ps.mu.Unlock()
	for _, p := range old {
		p.f.Close()
		os.Remove(filepath.Join(ps.dir, p.name+".idx"))
		os.Remove(filepath.Join(ps.dir, p.name+".pack"))
	}
}

func (ps *packSet) hasRetired() bool {
	ps.mu.RLock()
	defer ps.mu.RUnlock()
	return len(ps.retired) > 0
}
