package repo

import (
	"bytes"
	"compress/zlib"
	"crypto/rand"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// objectStore reads and writes git objects. Loose objects are read and written
// directly (so readers need no lock and writers control compression and fsync);
// packed objects are read directly too (packSet), from any number of goroutines.
// What packSet cannot read (a pack index of another version, alternates) is read
// through go-git, which is not safe for concurrent use and so sits behind a mutex.
type objectStore struct {
	dir   string // .git/objects
	packs *packSet

	mu  sync.Mutex
	git *filesystem.Storage

	zw sync.Pool // *zlib.Writer
	zr sync.Pool // zlib reader (io.ReadCloser and zlib.Resetter)
}

func newObjectStore(gitDir string) *objectStore {
	s := &objectStore{dir: filepath.Join(gitDir, "objects")}
	s.packs = newPackSet(s.dir)
	s.packs.refresh()
	s.git = filesystem.NewStorage(osfs.New(gitDir), cache.NewObjectLRU(16<<20))
	return s
}

// reload makes the store see packs written since it was opened (after gc).
func (s *objectStore) reload(gitDir string) {
	s.packs.refresh()
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.git.Close()
	s.git = filesystem.NewStorage(osfs.New(gitDir), cache.NewObjectLRU(16<<20))
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

// write stores an object as a loose object unless a loose copy already exists, and
// returns its id. (A loose duplicate of a packed object is harmless; gc drops it.) The file is renamed into place but not fsynced: the committer syncs every
// object of a batch at once before it moves the branch.
func (s *objectStore) write(typ string, data []byte) (hash, error) {
	id := objectID(typ, data)
	return id, s.writeID(id, typ, data)
}

// writeID stores an object whose id the caller computed.
func (s *objectStore) writeID(id hash, typ string, data []byte) error {
	final := s.loosePath(id)
	if _, err := os.Lstat(final); err == nil {
		return nil
	}
	dir := filepath.Dir(final)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write object: %w", err)
	}
	var buf bytes.Buffer
	zw, _ := s.zw.Get().(*zlib.Writer)
	if zw == nil {
		zw, _ = zlib.NewWriterLevel(&buf, zlib.BestSpeed)
	} else {
		zw.Reset(&buf)
	}
	fmt.Fprintf(zw, "%s %d\x00", typ, len(data))
	zw.Write(data)
	if err := zw.Close(); err != nil {
		return fmt.Errorf("write object: %w", err)
	}
	s.zw.Put(zw)
	tmp := filepath.Join(dir, "tmp_obj_"+randHex(6))
	if err := os.WriteFile(tmp, buf.Bytes(), 0o444); err != nil {
		return fmt.Errorf("write object: %w", err)
	}
	if err := os.Rename(tmp, final); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write object: %w", err)
	}
	return nil
}

// objectBatch writes the objects of one group commit in the background: ids are
// computed at once, a few goroutines create the files (file creation is most of a
// write's cost), and wait returns once every file is in place.
type objectBatch struct {
	s   *objectStore
	sem chan struct{}
	wg  sync.WaitGroup
	mu  sync.Mutex
	err error
}

func (s *objectStore) batch() *objectBatch {
	return &objectBatch{s: s, sem: make(chan struct{}, 4)}
}

// write queues an object and returns its id. data must not change afterwards.
func (b *objectBatch) write(typ string, data []byte) hash {
	id := objectID(typ, data)
	b.sem <- struct{}{}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		defer func() { <-b.sem }()
		if err := b.s.writeID(id, typ, data); err != nil {
			b.mu.Lock()
			if b.err == nil {
				b.err = err
			}
			b.mu.Unlock()
		}
	}()
	return id
}

// wait returns when every queued object is written, with the first error.
func (b *objectBatch) wait() error {
	b.wg.Wait()
	return b.err
}

// read returns an object's type and body: a loose object, else a packed one.
func (s *objectStore) read(id hash) (string, []byte, error) {
	typ, data, err := s.readLoose(id)
	if !errors.Is(err, fs.ErrNotExist) {
		return typ, data, err
	}
	typ, data, found, err := s.packs.read(id, s.readLoose)
	if !found && err == nil {
		// Not in the packs known so far: a pack may have appeared since (a gc that
		// packed the loose object just missed, a fetch).
		s.packs.refresh()
		typ, data, found, err = s.packs.read(id, s.readLoose)
	}
	if found || err != nil {
		return typ, data, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	obj, err := s.git.EncodedObject(plumbing.AnyObject, plumbing.Hash(id))
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
	data, err = io.ReadAll(r)
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
	zr, _ := s.zr.Get().(io.ReadCloser)
	var err error
	if zr == nil {
		zr, err = zlib.NewReader(br)
	} else {
		err = zr.(zlib.Resetter).Reset(br, nil)
	}
	if err != nil {
		return "", nil, fmt.Errorf("read object %s: %w", id, err)
	}
	defer s.zr.Put(zr)
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

// readTyped reads an object and checks its type.
func (s *objectStore) readTyped(id hash, want string) ([]byte, error) {
	typ, data, err := s.read(id)
	if err != nil {
		return nil, err
	}
	if typ != want {
		return nil, fmt.Errorf("%w: object %s is a %s, not a %s", ErrInvalid, id, typ, want)
	}
	return data, nil
}

// loadTree reads the whole tree rooted at id into memory.
func (s *objectStore) loadTree(id hash) (*node, error) {
	root := &node{mode: modeDir, id: id}
	if err := s.fill(root); err != nil {
		return nil, err
	}
	return root, nil
}

func (s *objectStore) fill(n *node) error {
	data, err := s.readTyped(n.id, "tree")
	if err != nil {
		return err
	}
	kids, err := decodeTree(data)
	if err != nil {
		return fmt.Errorf("tree %s: %w", n.id, err)
	}
	n.kids = kids
	for _, k := range kids {
		if k.isDir() {
			if err := s.fill(k); err != nil {
				return err
			}
		}
	}
	return nil
}

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
