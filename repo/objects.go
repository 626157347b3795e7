package repo

import (
	"bytes"
	"crypto/rand"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// objectStore reads and writes git objects. Norn writes each group commit's objects
// as one pack of undeltified objects (packwrite.go). Packed objects are read
// directly (packSet, pack.go) and so are loose ones, from any number of goroutines
// without a lock. What packSet cannot read (alternates) is read through go-git,
// which is not safe for concurrent use and so sits behind a mutex.
type objectStore struct {
	dir   string // .git/objects
	packs *packSet

	mu  sync.Mutex
	git *filesystem.Storage
	// gitGen is the pack set generation go-git's pack list was last refreshed at.
	gitGen uint64
}

func newObjectStore(gitDir string) *objectStore {
	s := openObjects(gitDir)
	s.packs.removeStaleTemp()
	return s
}

// openObjects opens the object store to read: unlike newObjectStore it removes no
// temporary files a crashed writer left.
func openObjects(gitDir string) *objectStore {
	s := &objectStore{dir: filepath.Join(gitDir, "objects")}
	s.packs = newPackSet(s.dir)
	s.packs.refresh()
	s.git = filesystem.NewStorage(osfs.New(gitDir), cache.NewObjectLRU(16<<20))
	return s
}

// reload makes both readers see packs written or removed by another process (gc).
func (s *objectStore) reload(gitDir string) {
	s.packs.refresh()
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.git.Close()
	s.git = filesystem.NewStorage(osfs.New(gitDir), cache.NewObjectLRU(16<<20))
}

// lockGit locks go-git's storage and makes it see the packs Norn wrote since; the
// caller unlocks s.mu.
func (s *objectStore) lockGit() *filesystem.Storage {
	s.mu.Lock()
	s.packs.mu.RLock()
	gen := s.packs.gen
	s.packs.mu.RUnlock()
	if gen != s.gitGen {
		s.git.Reindex()
		s.gitGen = gen
	}
	return s.git
}

func (s *objectStore) close() error {
	s.packs.close()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.git.Close()
}

func objectID(typ string, data []byte) hash {
	h := sha1.New()
	h.Write([]byte(typ))
	h.Write([]byte{' '})
	h.Write([]byte(strconv.Itoa(len(data))))
	h.Write([]byte{0})
	h.Write(data)
	var id hash
	h.Sum(id[:0])
	return id
}

func (s *objectStore) loosePath(id hash) string {
	x := id.String()
	return filepath.Join(s.dir, x[:2], x[2:])
}

// objectBatch collects the objects of one group commit: ids are computed at once,
// trees and commits are stored uncompressed (see storedEntry), a few goroutines
// deflate the blobs, and wait writes them all as one pack (a pack and its index: two
// files a batch instead of a loose file per object).
type objectBatch struct {
	s    *objectStore
	sem  chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	objs []packObj
	// queued holds the ids queued so far (only the committer queues).
	queued map[hash]bool
	// deflated holds blobs the writers deflated beforehand (see offer).
	deflated map[hash]packObj
}

func (s *objectStore) batch() *objectBatch {
	return &objectBatch{s: s, sem: make(chan struct{}, 4), queued: map[hash]bool{}, deflated: map[hash]packObj{}}
}

// offer makes blobs deflated beforehand (by the writer's goroutine) available to
// write, which then queues them instead of deflating them again. A blob no staged
// transaction writes stays out of the pack, so a write that fails leaves nothing.
func (b *objectBatch) offer(objs []packObj) {
	for _, o := range objs {
		b.deflated[o.id] = o
	}
}

// write queues an object and returns its id. data must not change afterwards.
func (b *objectBatch) write(typ string, data []byte) hash {
	id := objectID(typ, data)
	if b.queued[id] {
		return id
	}
	b.queued[id] = true
	o, ready := b.deflated[id]
	if typ != "blob" {
		o, ready = packObj{id: id, raw: storedEntry(typ, data)}, true
	}
	if ready {
		b.mu.Lock()
		b.objs = append(b.objs, o)
		b.mu.Unlock()
		return id
	}
	b.sem <- struct{}{}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		defer func() { <-b.sem }()
		o := b.s.deflate(typ, data)
		b.mu.Lock()
		b.objs = append(b.objs, o)
		b.mu.Unlock()
	}()
	return id
}

// wait writes every queued object as one pack (not fsynced: the committer syncs the
// batch) and returns once it is in place and readable.
func (b *objectBatch) wait() error {
	b.wg.Wait()
	if len(b.objs) == 0 {
		return nil
	}
	_, err := b.s.packs.write(b.objs)
	return err
}

// read returns an object's type and body: from the packs, a loose file, or go-git
// (alternates). Packs come first: Norn writes nothing loose.
func (s *objectStore) read(id hash) (string, []byte, error) {
	typ, data, found, err := s.packs.read(id, s.readLoose)
	if found || err != nil {
		return typ, data, err
	}
	typ, data, err = s.readLoose(id)
	if !errors.Is(err, fs.ErrNotExist) {
		return typ, data, err
	}
	typ, data, found, err = s.packs.read(id, s.readLoose)
	if !found && err == nil {
		// Not in the packs known so far: a pack may have appeared since (a gc that
		// packed the loose object just missed, a fetch).
		s.packs.refresh()
		typ, data, found, err = s.packs.read(id, s.readLoose)
	}
	if found || err != nil {
		return typ, data, err
	}
	return s.readGit(id)
}

// readGit reads an object through go-git (alternates).
func (s *objectStore) readGit(id hash) (string, []byte, error) {
	g := s.lockGit()
	defer s.mu.Unlock()
	obj, err := g.EncodedObject(plumbing.AnyObject, plumbing.Hash(id))
	if err != nil {
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return "", nil, notFoundf("object %s", id)
		}
		return "", nil, fmt.Errorf("read object %s: %w", id, err)
	}
	r, err := obj.Reader()
	if err != nil {
		return "", nil, fmt.Errorf("read object %s: %w", id, err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return "", nil, fmt.Errorf("read object %s: %w", id, err)
	}
	return obj.Type().String(), data, nil
}

// readLoose reads a loose object; an error matching fs.ErrNotExist when there is
// none.
func (s *objectStore) readLoose(id hash) (string, []byte, error) {
	raw, err := os.ReadFile(s.loosePath(id))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil, err
		}
		return "", nil, fmt.Errorf("read object %s: %w", id, err)
	}
	return s.inflateLoose(raw, id)
}

// maxInflate bounds how much deflate can expand its input (about 1032:1), so that
// a damaged header cannot make a reader allocate more than the data could hold.
const maxInflate = 1040

// inflateLoose decodes a loose object file (zlib of "type size\0body"): the body
// is read into a buffer of the size the header states, and the stream must end
// there, its checksum intact.
func (s *objectStore) inflateLoose(raw []byte, id hash) (string, []byte, error) {
	br := bytes.NewReader(raw)
	zr, err := s.packs.zlib.reader(br)
	if err != nil {
		return "", nil, fmt.Errorf("read object %s: %w", id, err)
	}
	defer s.packs.zlib.putReader(zr)
	var hdr [64]byte
	n, nul := 0, -1
	for nul < 0 && n < len(hdr) {
		k, err := zr.Read(hdr[n:])
		n += k
		nul = bytes.IndexByte(hdr[:n], 0)
		if err != nil {
			break
		}
	}
	sp := bytes.IndexByte(hdr[:max(nul, 0)], ' ')
	if nul < 0 || sp < 0 {
		return "", nil, fmt.Errorf("read object %s: bad header", id)
	}
	typ := string(hdr[:sp])
	size, err := strconv.Atoi(string(hdr[sp+1 : nul]))
	if err != nil || size < 0 || size > maxInflate*len(raw) || n-nul-1 > size {
		return "", nil, fmt.Errorf("read object %s: bad size", id)
	}
	data := make([]byte, size)
	got := copy(data, hdr[nul+1:n])
	if _, err := io.ReadFull(zr, data[got:]); err != nil {
		return "", nil, fmt.Errorf("read object %s: %w", id, err)
	}
	// The stream must end here; reading to its end checks its checksum.
	if k, err := zr.Read(hdr[:1]); k != 0 || err != io.EOF {
		if err == nil || err == io.EOF {
			err = errors.New("bad size")
		}
		return "", nil, fmt.Errorf("read object %s: %w", id, err)
	}
	return typ, data, nil
}

// wrongTypeError is an object read as another type than it is. It matches
// ErrInvalid.
type wrongTypeError struct {
	id        hash
	typ, want string
}

func (e *wrongTypeError) Error() string {
	return fmt.Sprintf("%v: object %s is a %s, not a %s", ErrInvalid, e.id, e.typ, e.want)
}

func (e *wrongTypeError) Is(target error) bool { return target == ErrInvalid }

// readTyped reads an object and checks its type.
func (s *objectStore) readTyped(id hash, want string) ([]byte, error) {
	typ, data, err := s.read(id)
	if err != nil {
		return nil, err
	}
	if typ != want {
		return nil, &wrongTypeError{id: id, typ: typ, want: want}
	}
	return data, nil
}

// loadTree reads the whole tree rooted at id into memory.
func (s *objectStore) loadTree(id hash) (*node, error) { return s.loadTreeFrom(id, nil) }

// loadTreeFrom is loadTree taking from prev, a tree loaded before (nil: none),
// every folder whose tree id is unchanged instead of reading it again: nodes are
// never changed once loaded (a write copies the nodes on its path), so a snapshot
// may share them. Taking in a commit that changed a few folders then reads those
// folders, not the whole vault.
func (s *objectStore) loadTreeFrom(id hash, prev *node) (*node, error) {
	if prev != nil && prev.isDir() && prev.id == id && !id.isZero() {
		return prev, nil
	}
	root := &node{mode: modeDir, id: id}
	if err := s.fill(root, prev); err != nil {
		return nil, err
	}
	return root, nil
}

// fill reads the entries of folder n, taking unchanged subfolders from prev (the
// same folder in a tree loaded before, or nil).
func (s *objectStore) fill(n, prev *node) error {
	data, err := s.readTyped(n.id, "tree")
	if err != nil {
		return err
	}
	kids, err := decodeTree(data)
	if err != nil {
		return fmt.Errorf("tree %s: %w", n.id, err)
	}
	n.kids = kids
	var before map[string]*node // prev's subfolders by name
	if prev != nil && prev.isDir() {
		for _, k := range prev.kids {
			if k.isDir() {
				if before == nil {
					before = make(map[string]*node)
				}
				before[k.name] = k
			}
		}
	}
	for i, k := range kids {
		if !k.isDir() {
			continue
		}
		old := before[k.name]
		if old != nil && old.id == k.id && !k.id.isZero() {
			kids[i] = old
			continue
		}
		if err := s.fill(k, old); err != nil {
			return err
		}
	}
	return nil
}

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// withPrefix returns the ids of the objects Norn's own readers find, packed or
// loose, whose hex form starts with prefix (lowercase hex, 4 to 39 digits).
func (s *objectStore) withPrefix(prefix string) []hash {
	out := s.packs.withPrefix(nil, prefix)
	entries, _ := os.ReadDir(filepath.Join(s.dir, prefix[:2]))
	for _, e := range entries {
		if id, ok := parseHash(prefix[:2] + e.Name()); ok && strings.HasPrefix(id.String(), prefix) && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}
