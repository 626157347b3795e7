package repo

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// packSet reads objects straight from the repository's packfiles, from any number
// of goroutines at once: each pack's index (version 1 or 2) is held in memory and
// its data file is read with ReadAt. Objects it does not find (alternates) are
// left to go-git. The committer adds the packs it writes (packwrite.go) with add
// and takes merged ones out with merge and dropMerged, so it never needs a refresh
// to see its own objects.
//
// A read holds mu for reading; refresh, which opens packs that appeared (gc, a
// fetch) and closes those that are gone, holds it for writing, and so do add,
// merge and dropMerged.
type packSet struct {
	dir string // .git/objects/pack

	mu    sync.RWMutex
	names []string // the packs on disk as last seen, read or not, sorted
	// unread are the names in names refresh could not open (an index whose pack
	// is not in place yet: go-git renames the pack after its index; a damaged
	// index): every refresh tries them again.
	unread []string
	packs  []*pack // newest first
	closed bool
	bases  baseCache
	// gen counts changes to packs, so that go-git's pack list is refreshed before
	// it is used (objectStore.lockGit).
	gen uint64
	// retired are packs merged into a newer one: still on disk (and in names), no
	// longer read, deleted by dropMerged once their replacement is durable.
	retired []*pack
	// holds counts KeepPacks callers: while any, no pack is merged or deleted.
	holds atomic.Int32
	// made: the folder exists (write creates it once).
	made bool

	bufs sync.Pool // *bufio.Reader
	// zlib keeps zlib readers and writers for packs and loose objects alike.
	zlib zlibPool
}

// pack is one packfile and its index.
type pack struct {
	name   string // base name, without .idx or .pack
	f      *os.File
	size   int64 // of the .pack file
	count  uint32
	fanout [256]uint32
	ids    []byte // count sorted 20-byte ids
	offs   []byte // count big-endian uint32 offsets (MSB set: index into large)
	large  []byte // big-endian uint64 offsets
	// mixed says whether the pack holds deltas (git wrote it), which Norn never
	// merges: 0 unknown, 1 undeltified only, 2 has deltas.
	mixed int8
	// mapped is the index file mapped into memory, which ids, offs and large
	// point into (nil when they are on the heap); unmapped by close.
	mapped []byte
}

// close closes the data file and unmaps the index; the caller holds the pack
// set's lock, so no reader is using it.
func (p *pack) close() {
	p.f.Close()
	if p.mapped != nil {
		unix.Munmap(p.mapped)
		p.mapped, p.ids, p.offs, p.large = nil, nil, nil, nil
	}
}

// Pack object types (gitformat-pack).
const (
	packCommit   = 1
	packTree     = 2
	packBlob     = 3
	packTag      = 4
	packOfsDelta = 6
	packRefDelta = 7
)

var packTypeNames = [...]string{packCommit: "commit", packTree: "tree", packBlob: "blob", packTag: "tag"}

// maxDeltaDepth bounds a delta chain (git's own limit is 4095): a longer one, or
// a cycle, is a damaged pack.
const maxDeltaDepth = 10000

var errBadPack = errors.New("bad pack")

func newPackSet(objectsDir string) *packSet {
	return &packSet{dir: filepath.Join(objectsDir, "pack"), bases: baseCache{max: 16 << 20}, zlib: newZlibPool()}
}

// refresh opens the packs that appeared since the last call and closes those
// that are gone. A pack it cannot open is skipped (go-git reads it) and tried
// again at the next refresh. A retired pack is never opened again.
func (ps *packSet) refresh() {
	entries, _ := os.ReadDir(ps.dir)
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".idx"); ok && strings.HasPrefix(n, "pack-") {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	ps.mu.RLock()
	same := ps.closed || (slices.Equal(names, ps.names) && len(ps.unread) == 0)
	ps.mu.RUnlock()
	if same {
		return
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.closed {
		return
	}
	listed := slices.Equal(names, ps.names)
	ps.names, ps.unread = names, nil
	var keep, added []*pack
	for _, p := range ps.packs {
		if slices.Contains(names, p.name) {
			keep = append(keep, p)
		} else {
			p.close()
		}
	}
	has := func(n string) func(*pack) bool { return func(p *pack) bool { return p.name == n } }
	for _, n := range names {
		if slices.ContainsFunc(keep, has(n)) || slices.ContainsFunc(ps.retired, has(n)) {
			continue
		}
		if p, err := openPack(ps.dir, n); err == nil {
			added = append(added, p)
		} else {
			ps.unread = append(ps.unread, n)
		}
	}
	if listed && len(added) == 0 && len(keep) == len(ps.packs) {
		return // only the unread tried again, in vain: nothing changed
	}
	ps.packs = append(added, keep...)
	ps.gen++
	ps.bases.clear()
}

// add puts a pack the committer just wrote in front of the set (the newest objects
// are the likeliest to be read), in place of a pack of the same name.
func (ps *packSet) add(p *pack) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.closed {
		p.close()
		return
	}
	if i := slices.IndexFunc(ps.packs, func(q *pack) bool { return q.name == p.name }); i >= 0 {
		ps.packs[i].close() // the same objects again: keep one handle
		ps.packs = slices.Delete(ps.packs, i, i+1)
	}
	ps.packs = slices.Insert(ps.packs, 0, p)
	if i, ok := slices.BinarySearch(ps.names, p.name); !ok {
		ps.names = slices.Insert(ps.names, i, p.name)
	}
	ps.gen++
}

func (ps *packSet) close() {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for _, p := range ps.packs {
		p.close()
	}
	for _, p := range ps.retired {
		p.close()
	}
	ps.packs, ps.retired, ps.closed = nil, nil, true
	ps.bases.clear()
}

// openPack opens the pack called name in dir: its index whole, its data file
// for ReadAt.
func openPack(dir, name string) (p *pack, err error) {
	idx, mapped, err := mapFile(filepath.Join(dir, name+".idx"))
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil && mapped {
			unix.Munmap(idx)
		}
	}()
	p, err = parsePackIndex(idx)
	if err != nil {
		return nil, fmt.Errorf("pack %s: %w", name, err)
	}
	if mapped {
		p.mapped = idx
	}
	f, err := os.Open(filepath.Join(dir, name+".pack"))
	if err != nil {
		return nil, err
	}
	var hdr [12]byte
	fi, err := f.Stat()
	if err == nil {
		_, err = f.ReadAt(hdr[:], 0)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	ver := binary.BigEndian.Uint32(hdr[4:])
	if string(hdr[:4]) != "PACK" || (ver != 2 && ver != 3) || binary.BigEndian.Uint32(hdr[8:]) != p.count || fi.Size() < 12+20 {
		f.Close()
		return nil, fmt.Errorf("pack %s: %w: header does not match its index", name, errBadPack)
	}
	p.name, p.f, p.size = name, f, fi.Size()
	return p, nil
}

// mapFile maps a file that is never changed in place (git, Norn and go-git as
// sync/remote drives it write a pack index whole and rename it into place) into
// memory, read-only: a lookup touches the pages of its fan-out and its binary
// search, not the whole file (2.8 MB for 100,000 objects, which a one-shot
// command read whole). It reads the file into
// the heap where mapping fails; mapped says which.
func mapFile(path string) (b []byte, mapped bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	if size := fi.Size(); size > 0 && size == int64(int(size)) {
		if b, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED); err == nil {
			return b, true, nil
		}
	}
	b, err = io.ReadAll(f)
	return b, false, err
}

// parsePackIndex parses a pack index. Version 2: magic and version, 256 fan-out
// counts, the sorted ids, their CRCs, 4-byte offsets, 8-byte large offsets, two
// checksums. Version 1 (no magic): the fan-out, then per object a 4-byte offset
// and its id, two checksums.
func parsePackIndex(b []byte) (*pack, error) {
	v2 := len(b) >= 8 && string(b[:4]) == "\xfftOc"
	head := 256 * 4
	if v2 {
		if binary.BigEndian.Uint32(b[4:]) != 2 {
			return nil, fmt.Errorf("%w: index version %d", errBadPack, binary.BigEndian.Uint32(b[4:]))
		}
		head += 8
	}
	if len(b) < head+40 {
		return nil, fmt.Errorf("%w: index too short", errBadPack)
	}
	p := &pack{}
	prev := uint32(0)
	for i := range p.fanout {
		p.fanout[i] = binary.BigEndian.Uint32(b[head-1024+4*i:])
		if p.fanout[i] < prev {
			return nil, fmt.Errorf("%w: fan-out not sorted", errBadPack)
		}
		prev = p.fanout[i]
	}
	n := uint64(p.fanout[255])
	rest := uint64(len(b) - head - 40)
	p.count = uint32(n)
	if !v2 {
		if n*24 != rest {
			return nil, fmt.Errorf("%w: index size does not match %d objects", errBadPack, n)
		}
		p.ids, p.offs = make([]byte, 0, 20*n), make([]byte, 0, 4*n)
		for e := b[head : head+24*int(n)]; len(e) > 0; e = e[24:] {
			p.offs = append(p.offs, e[:4]...)
			p.ids = append(p.ids, e[4:24]...)
			if e[0]&0x80 != 0 {
				return nil, fmt.Errorf("%w: offset beyond 2 GiB in a version 1 index", errBadPack)
			}
		}
		return p, nil
	}
	if n*28 > rest || (rest-n*28)%8 != 0 {
		return nil, fmt.Errorf("%w: index size does not match %d objects", errBadPack, n)
	}
	p.ids = b[head : uint64(head)+20*n]
	p.offs = b[uint64(head)+24*n : uint64(head)+28*n]
	p.large = b[uint64(head)+28*n : uint64(len(b))-40]
	return p, nil
}

// find returns the offset of id in p.
func (p *pack) find(id hash) (int64, bool) {
	lo := uint32(0)
	if id[0] > 0 {
		lo = p.fanout[id[0]-1]
	}
	hi := p.fanout[id[0]]
	for lo < hi {
		m := lo + (hi-lo)/2
		switch c := bytes.Compare(p.ids[20*m:20*m+20], id[:]); {
		case c == 0:
			return p.offset(m)
		case c < 0:
			lo = m + 1
		default:
			hi = m
		}
	}
	return 0, false
}

func (p *pack) offset(i uint32) (int64, bool) {
	o := binary.BigEndian.Uint32(p.offs[4*i:])
	if o&0x80000000 == 0 {
		return int64(o), true
	}
	j := int(o & 0x7fffffff)
	if 8*j+8 > len(p.large) {
		return 0, false
	}
	off := binary.BigEndian.Uint64(p.large[8*j:])
	return int64(off), off < 1<<62
}

// read returns the type and body of id when a pack holds it (found false when
// none does). loose reads a loose object; a REF_DELTA's base may be one.
func (ps *packSet) read(id hash, loose func(hash) (string, []byte, error)) (typ string, data []byte, found bool, err error) {
	ps.mu.RLock()
	defer ps.mu.RUnlock()
	for _, p := range ps.packs {
		if off, ok := p.find(id); ok {
			typ, data, err := ps.readAt(p, off, 0, loose)
			if err != nil {
				return "", nil, true, fmt.Errorf("read object %s: %w", id, err)
			}
			return typ, data, true, nil
		}
	}
	return "", nil, false, nil
}

// readAt reads the object at off in p, resolving deltas; depth counts the deltas
// above it. Bases (depth > 0) are cached; the object asked for is always a fresh
// copy the caller owns.
func (ps *packSet) readAt(p *pack, off int64, depth int, loose func(hash) (string, []byte, error)) (string, []byte, error) {
	if depth > 0 {
		if typ, data, ok := ps.bases.get(p, off); ok {
			return typ, data, nil
		}
	}
	if depth > maxDeltaDepth {
		return "", nil, fmt.Errorf("%w: delta chain longer than %d", errBadPack, maxDeltaDepth)
	}
	if off < 12 || off >= p.size-20 {
		return "", nil, fmt.Errorf("%w: offset %d outside the pack", errBadPack, off)
	}
	br, _ := ps.bufs.Get().(*bufio.Reader)
	sr := io.NewSectionReader(p.f, off, p.size-20-off)
	if br == nil {
		br = bufio.NewReaderSize(sr, 4096)
	} else {
		br.Reset(sr)
	}
	defer ps.bufs.Put(br)
	kind, size, err := readPackHeader(br)
	if err != nil {
		return "", nil, err
	}
	var baseOff int64
	var baseID hash
	switch kind {
	case packCommit, packTree, packBlob, packTag:
	case packOfsDelta:
		rel, err := readOfsDelta(br)
		if err != nil {
			return "", nil, err
		}
		if rel <= 0 || rel >= off {
			return "", nil, fmt.Errorf("%w: delta base offset %d before %d", errBadPack, rel, off)
		}
		baseOff = off - rel
	case packRefDelta:
		if _, err := io.ReadFull(br, baseID[:]); err != nil {
			return "", nil, fmt.Errorf("%w: %v", errBadPack, err)
		}
	default:
		return "", nil, fmt.Errorf("%w: object type %d at %d", errBadPack, kind, off)
	}
	if size > uint64(p.size)*maxInflate {
		return "", nil, fmt.Errorf("%w: object at %d claims %d bytes", errBadPack, off, size)
	}
	body, err := ps.inflate(br, int(size))
	if err != nil {
		return "", nil, fmt.Errorf("%w: object at %d: %v", errBadPack, off, err)
	}
	typ := ""
	switch kind {
	case packOfsDelta, packRefDelta:
		var base []byte
		if kind == packOfsDelta {
			typ, base, err = ps.readAt(p, baseOff, depth+1, loose)
		} else {
			typ, base, err = ps.readBase(baseID, depth+1, loose)
		}
		if err != nil {
			return "", nil, err
		}
		if body, err = applyDelta(base, body); err != nil {
			return "", nil, fmt.Errorf("object at %d: %w", off, err)
		}
	default:
		typ = packTypeNames[kind]
	}
	if depth > 0 {
		ps.bases.put(p, off, typ, body)
	}
	return typ, body, nil
}

// readBase reads a REF_DELTA's base: from any pack (mu is held), else loose.
func (ps *packSet) readBase(id hash, depth int, loose func(hash) (string, []byte, error)) (string, []byte, error) {
	for _, p := range ps.packs {
		if off, ok := p.find(id); ok {
			return ps.readAt(p, off, depth, loose)
		}
	}
	typ, data, err := loose(id)
	if err != nil {
		return "", nil, fmt.Errorf("delta base %s: %w", id, err)
	}
	return typ, data, nil
}

// inflate reads a zlib stream of exactly size bytes from r.
func (ps *packSet) inflate(r io.Reader, size int) ([]byte, error) {
	zr, err := ps.zlib.reader(r)
	if err != nil {
		return nil, err
	}
	defer ps.zlib.putReader(zr)
	out := make([]byte, size)
	if _, err := io.ReadFull(zr, out); err != nil {
		return nil, err
	}
	var one [1]byte
	if n, err := zr.Read(one[:]); n != 0 || err != io.EOF {
		if err == nil || err == io.EOF {
			err = errors.New("longer than its header says")
		}
		return nil, err
	}
	return out, nil
}

// readPackHeader reads an object's type and inflated size.
func readPackHeader(r io.ByteReader) (kind byte, size uint64, err error) {
	c, err := r.ReadByte()
	if err != nil {
		return 0, 0, fmt.Errorf("%w: %v", errBadPack, err)
	}
	kind = (c >> 4) & 7
	size = uint64(c & 15)
	for shift := uint(4); c&0x80 != 0; shift += 7 {
		if shift > 63 {
			return 0, 0, fmt.Errorf("%w: object size overflows", errBadPack)
		}
		if c, err = r.ReadByte(); err != nil {
			return 0, 0, fmt.Errorf("%w: %v", errBadPack, err)
		}
		size |= uint64(c&0x7f) << shift
	}
	return kind, size, nil
}

// readOfsDelta reads an OFS_DELTA's distance back to its base (git's offset
// encoding: big-endian base-128, each continuation adding one).
func readOfsDelta(r io.ByteReader) (int64, error) {
	c, err := r.ReadByte()
	if err != nil {
		return 0, fmt.Errorf("%w: %v", errBadPack, err)
	}
	off := int64(c & 0x7f)
	for c&0x80 != 0 {
		if off >= 1<<55 {
			return 0, fmt.Errorf("%w: delta offset overflows", errBadPack)
		}
		if c, err = r.ReadByte(); err != nil {
			return 0, fmt.Errorf("%w: %v", errBadPack, err)
		}
		off = (off+1)<<7 | int64(c&0x7f)
	}
	return off, nil
}

// applyDelta builds a delta's target from base: the base's and target's sizes,
// then copy (from base) and insert (literal) instructions.
func applyDelta(base, delta []byte) ([]byte, error) {
	bad := func(what string) error { return fmt.Errorf("%w: delta %s", errBadPack, what) }
	srcSize, n := binary.Uvarint(delta)
	if n <= 0 {
		return nil, bad("source size")
	}
	delta = delta[n:]
	dstSize, n := binary.Uvarint(delta)
	if n <= 0 {
		return nil, bad("target size")
	}
	delta = delta[n:]
	if srcSize != uint64(len(base)) {
		return nil, bad("for another base")
	}
	// Each instruction byte yields at most 0x10000 (copy) or 127 (insert) bytes.
	if dstSize > uint64(len(delta))*0x10000 {
		return nil, bad("target size")
	}
	out := make([]byte, 0, dstSize)
	for len(delta) > 0 {
		c := delta[0]
		delta = delta[1:]
		switch {
		case c&0x80 != 0:
			var off, size uint64
			for i := range 7 {
				if c&(1<<i) == 0 {
					continue
				}
				if len(delta) == 0 {
					return nil, bad("copy truncated")
				}
				if i < 4 {
					off |= uint64(delta[0]) << (8 * i)
				} else {
					size |= uint64(delta[0]) << (8 * (i - 4))
				}
				delta = delta[1:]
			}
			if size == 0 {
				size = 0x10000
			}
			if off+size > uint64(len(base)) || uint64(len(out))+size > dstSize {
				return nil, bad("copy out of range")
			}
			out = append(out, base[off:off+size]...)
		case c != 0:
			if int(c) > len(delta) || uint64(len(out))+uint64(c) > dstSize {
				return nil, bad("insert out of range")
			}
			out = append(out, delta[:c]...)
			delta = delta[c:]
		default:
			return nil, bad("opcode 0")
		}
	}
	if uint64(len(out)) != dstSize {
		return nil, bad("target shorter than its size")
	}
	return out, nil
}

// baseCache keeps recently used delta bases (read-only once cached), up to max
// bytes; when full it starts over.
type baseCache struct {
	mu    sync.Mutex
	max   int
	bytes int
	m     map[baseKey]cachedBase
}

type baseKey struct {
	p   *pack
	off int64
}

type cachedBase struct {
	typ  string
	data []byte
}

func (c *baseCache) get(p *pack, off int64) (string, []byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.m[baseKey{p, off}]
	return b.typ, b.data, ok
}

func (c *baseCache) put(p *pack, off int64, typ string, data []byte) {
	if len(data) > c.max/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bytes+len(data) > c.max || c.m == nil {
		c.m, c.bytes = map[baseKey]cachedBase{}, 0
	}
	if _, ok := c.m[baseKey{p, off}]; !ok {
		c.m[baseKey{p, off}] = cachedBase{typ, data}
		c.bytes += len(data)
	}
}

func (c *baseCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m, c.bytes = nil, 0
}

// withPrefix appends to out the ids in the packs whose hex form starts with
// prefix (lowercase, at least two digits).
func (ps *packSet) withPrefix(out []hash, prefix string) []hash {
	first, err := strconv.ParseUint(prefix[:2], 16, 8)
	if err != nil {
		return out
	}
	ps.mu.RLock()
	defer ps.mu.RUnlock()
	for _, p := range append(slices.Clip(ps.packs), ps.retired...) {
		lo := uint32(0)
		if first > 0 {
			lo = p.fanout[first-1]
		}
		for i := lo; i < p.fanout[first]; i++ {
			var id hash
			copy(id[:], p.ids[20*i:20*i+20])
			if strings.HasPrefix(id.String(), prefix) && !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	}
	return out
}
