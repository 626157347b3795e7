package repo

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"iter"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/norn-vault/norn/note"
)

// hash is a git object id (SHA-1).
type hash [20]byte

var zeroHash hash

func (h hash) String() string { return hex.EncodeToString(h[:]) }

func (h hash) isZero() bool { return h == zeroHash }

func parseHash(s string) (hash, bool) {
	var h hash
	if len(s) != 40 {
		return h, false
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, false
	}
	return h, true
}

// Git file modes as they appear in tree objects.
const (
	modeFile    uint32 = 0o100644
	modeExec    uint32 = 0o100755
	modeSymlink uint32 = 0o120000
	modeDir     uint32 = 0o040000
	modeGitlink uint32 = 0o160000
)

// node is one entry of the in-memory copy of a tree. Published nodes are immutable:
// a write copies the nodes on its path (path copying), so a snapshot a reader holds
// never changes under it.
type node struct {
	name string
	mode uint32
	// id is the blob id, or for a folder the tree id (zero while dirty).
	id   hash
	kids []*node // folder entries in git order; nil for files (read with entries)
	// lazy, when set, holds a folder whose tree has not been read yet: a lean open
	// (Options.Lean) reads a folder's tree only when a lookup, a write or a walk
	// first goes through it.
	lazy *lazyTree
	// fold caches note.Fold(name), set on first use: nodes are shared by every
	// snapshot that holds them, so a folder's names are folded once, not per write.
	fold atomic.Pointer[string]
}

// lazyTree is a folder's entries, read from its tree object on first use.
type lazyTree struct {
	once sync.Once
	objs *objectStore
	kids []*node
	err  error
}

// lazyFolder returns a folder node for tree id whose entries are read when first
// needed; its subfolders are lazy too.
func (s *objectStore) lazyFolder(name string, id hash) *node {
	return &node{name: name, mode: modeDir, id: id, lazy: &lazyTree{objs: s}}
}

// entries returns a folder's entries in git order (nil for a file), reading a lazy
// folder's tree on first use. A tree that cannot be read gives no entries; with
// refuses to copy such a folder (loadErr), so that no commit drops its contents.
func (n *node) entries() []*node {
	l := n.lazy
	if l == nil {
		return n.kids
	}
	l.once.Do(func() {
		data, err := l.objs.readTyped(n.id, "tree")
		if err != nil {
			l.err = fmt.Errorf("read tree %s: %w", n.id, err)
			return
		}
		err = scanTree(data, func(mode uint32, name, id []byte) bool {
			var k *node
			if mode == modeDir {
				k = l.objs.lazyFolder(string(name), hash(id))
			} else {
				k = &node{name: string(name), mode: mode, id: hash(id)}
			}
			l.kids = append(l.kids, k)
			return true
		})
		if err != nil {
			l.kids, l.err = nil, fmt.Errorf("tree %s: %w", n.id, err)
		}
	})
	return l.kids
}

// loadErr is the error reading a lazy folder's tree gave (nil once read, or for
// a folder read whole).
func (n *node) loadErr() error {
	if n.lazy == nil {
		return nil
	}
	n.entries()
	return n.lazy.err
}

// folded returns note.Fold(n.name).
func (n *node) folded() string {
	if f := n.fold.Load(); f != nil {
		return *f
	}
	f := note.Fold(n.name)
	n.fold.Store(&f)
	return f
}

func (n *node) isDir() bool { return n.mode == modeDir }

// gitCompare orders tree entries the way git does: by name, with a folder's name
// compared as if it ended in '/'.
func gitCompare(aName string, aDir bool, bName string, bDir bool) int {
	n := min(len(aName), len(bName))
	if c := strings.Compare(aName[:n], bName[:n]); c != 0 {
		return c
	}
	ac, bc := byte(0), byte(0)
	if len(aName) > n {
		ac = aName[n]
	} else if aDir {
		ac = '/'
	}
	if len(bName) > n {
		bc = bName[n]
	} else if bDir {
		bc = '/'
	}
	switch {
	case ac < bc:
		return -1
	case ac > bc:
		return 1
	}
	// Same bytes so far and both ended (or both continued with an equal byte, which
	// cannot happen here): compare lengths.
	return len(aName) - len(bName)
}

// child returns the index of the entry called name, or -1.
func (n *node) child(name string) int {
	kids := n.entries()
	for _, dir := range [2]bool{false, true} {
		i := sort.Search(len(kids), func(i int) bool {
			k := kids[i]
			return gitCompare(k.name, k.isDir(), name, dir) >= 0
		})
		if i < len(kids) && kids[i].name == name && kids[i].isDir() == dir {
			return i
		}
	}
	return -1
}

// lookup finds the node at a slash-separated path ("" is the root).
func (n *node) lookup(p string) *node {
	cur := n
	for p != "" {
		if !cur.isDir() {
			return nil
		}
		name, rest, _ := strings.Cut(p, "/")
		i := cur.child(name)
		if i < 0 {
			return nil
		}
		cur, p = cur.entries()[i], rest
	}
	return cur
}

// names yields the entries of the folder at p ("" is the root) below n, each with
// whether it is a folder; nothing when p is not a folder.
func (n *node) names(p string) iter.Seq2[string, bool] {
	return func(yield func(string, bool) bool) {
		d := n.lookup(p)
		if d == nil || !d.isDir() {
			return
		}
		for _, k := range d.entries() {
			if !yield(k.name, k.isDir()) {
				return
			}
		}
	}
}

// twins yields the entries of the folder at p ("" is the root) below n whose names
// fold to key (note.Fold), each with whether it is a folder.
func (n *node) twins(p, key string) iter.Seq2[string, bool] {
	return func(yield func(string, bool) bool) {
		d := n.lookup(p)
		if d == nil || !d.isDir() {
			return
		}
		for _, k := range d.entries() {
			if k.folded() == key && !yield(k.name, k.isDir()) {
				return
			}
		}
	}
}

// with returns a copy of the tree rooted at n in which path p is leaf (or removed,
// when leaf is nil). Folders on the path are copied and left dirty (zero id); a folder
// left empty by a removal is removed too. It fails when a path component is a file.
func (n *node) with(p string, leaf *node) (*node, error) {
	name, rest, more := strings.Cut(p, "/")
	if name == "" {
		return nil, invalidf("empty path component in %q", p)
	}
	if err := n.loadErr(); err != nil {
		return nil, err
	}
	kids := n.entries()
	c := &node{name: n.name, mode: n.mode, kids: kids}
	i := c.child(name)
	if !more {
		if leaf == nil {
			if i < 0 {
				return n, nil
			}
			c.kids = remove(kids, i)
			return c, nil
		}
		leaf.name = name
		if i >= 0 && kids[i].isDir() {
			return nil, invalidf("%s is a folder", p)
		}
		c.kids = put(kids, i, leaf)
		return c, nil
	}
	var sub *node
	if i >= 0 {
		sub = kids[i]
		if !sub.isDir() {
			return nil, invalidf("%s is a file, not a folder", name)
		}
	} else {
		if leaf == nil {
			return n, nil
		}
		// A file of the same name may exist; then the folder cannot.
		if j := c.fileChild(name); j >= 0 {
			return nil, invalidf("%s is a file, not a folder", name)
		}
		sub = &node{name: name, mode: modeDir}
	}
	nsub, err := sub.with(rest, leaf)
	if err != nil {
		return nil, err
	}
	if nsub == sub {
		return n, nil
	}
	if len(nsub.entries()) == 0 {
		if i >= 0 {
			c.kids = remove(kids, i)
		}
		return c, nil
	}
	c.kids = put(kids, i, nsub)
	return c, nil
}

func (n *node) fileChild(name string) int {
	for i, k := range n.entries() {
		if k.name == name && !k.isDir() {
			return i
		}
	}
	return -1
}

// put returns a copy of kids with kids[i] replaced by k, or k inserted in order
// when i < 0.
func put(kids []*node, i int, k *node) []*node {
	if i >= 0 {
		out := make([]*node, len(kids))
		copy(out, kids)
		out[i] = k
		return out
	}
	j := sort.Search(len(kids), func(j int) bool {
		return gitCompare(kids[j].name, kids[j].isDir(), k.name, k.isDir()) >= 0
	})
	out := make([]*node, 0, len(kids)+1)
	out = append(out, kids[:j]...)
	out = append(out, k)
	return append(out, kids[j:]...)
}

func remove(kids []*node, i int) []*node {
	out := make([]*node, 0, len(kids)-1)
	out = append(out, kids[:i]...)
	return append(out, kids[i+1:]...)
}

// encodeTree serialises a folder's entries as a git tree object body.
func encodeTree(n *node, buf *bytes.Buffer) []byte {
	buf.Reset()
	size := 0
	kids := n.entries()
	for _, k := range kids {
		size += 6 + 2 + len(k.name) + len(k.id)
	}
	buf.Grow(size)
	var mode [11]byte
	for _, k := range kids {
		buf.Write(strconv.AppendUint(mode[:0], uint64(k.mode), 8))
		buf.WriteByte(' ')
		buf.WriteString(k.name)
		buf.WriteByte(0)
		buf.Write(k.id[:])
	}
	return buf.Bytes()
}

// decodeTree parses a git tree object body.
func decodeTree(data []byte) ([]*node, error) {
	var kids []*node
	err := scanTree(data, func(mode uint32, name, id []byte) bool {
		k := &node{name: string(name), mode: mode}
		copy(k.id[:], id)
		kids = append(kids, k)
		return true
	})
	if err != nil {
		return nil, err
	}
	return kids, nil
}

// scanTree calls fn with each entry of a tree object's data (its octal mode, its
// name and its 20-byte id, both slices of data), in order, until fn returns false.
func scanTree(data []byte, fn func(mode uint32, name, id []byte) bool) error {
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp < 0 {
			return fmt.Errorf("decode tree: missing mode")
		}
		if sp == 0 {
			return fmt.Errorf("decode tree: empty mode")
		}
		var mode uint64
		for _, c := range data[:sp] {
			if c < '0' || c > '7' {
				return fmt.Errorf("decode tree: mode %q", data[:sp])
			}
			if mode = mode<<3 | uint64(c-'0'); mode > math.MaxUint32 {
				return fmt.Errorf("decode tree: mode %q overflows", data[:sp])
			}
		}
		data = data[sp+1:]
		nul := bytes.IndexByte(data, 0)
		if nul < 0 || len(data) < nul+21 {
			return fmt.Errorf("decode tree: truncated entry")
		}
		if !fn(uint32(mode), data[:nul], data[nul+1:nul+21]) {
			return nil
		}
		data = data[nul+21:]
	}
	return nil
}

// walkFiles calls fn for every file under n, with its slash path, in git order.
func walkFiles(n *node, prefix string, fn func(p string, f *node)) {
	for _, k := range n.entries() {
		p := k.name
		if prefix != "" {
			p = prefix + "/" + k.name
		}
		if k.isDir() {
			walkFiles(k, p, fn)
			continue
		}
		fn(p, k)
	}
}
