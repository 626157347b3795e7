package repo

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/norn-vault/norn/note"
)

// Read returns a note's bytes and revision at HEAD (at == "") or at any commit-ish
// at names: a full or abbreviated commit id, a branch, or HEAD~N. A missing note is
// ErrNotFound.
func (v *Vault) Read(ctx context.Context, p note.Path, at string) (*Blob, error) {
	snap, err := v.at(at)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	if err := ValidPath(string(p)); err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	n := snap.root.lookup(string(p))
	if n == nil || n.isDir() {
		where := "HEAD"
		if at != "" {
			where = at
		}
		return nil, notFoundf("%s does not exist at %s", p, where)
	}
	data, err := v.objs.readTyped(n.id, "blob")
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return &Blob{Path: p, Revision: Revision(n.id.String()), Commit: CommitID(snap.commit.String()), Content: data}, nil
}

// ReadRevision returns the bytes of a blob by revision.
func (v *Vault) ReadRevision(ctx context.Context, rev Revision) ([]byte, error) {
	id, ok := parseHash(string(rev))
	if !ok {
		return nil, invalidf("revision %q is not a 40-character hex id", rev)
	}
	return v.objs.readTyped(id, "blob")
}

// Revision returns a note's current revision at HEAD, or "" when it does not exist.
func (v *Vault) Revision(p note.Path) Revision {
	n := v.snap.Load().root.lookup(string(p))
	if n == nil || n.isDir() {
		return ""
	}
	return Revision(n.id.String())
}

// List returns the entries of a folder ("" is the root) at HEAD or at a commit:
// sub-folders first, then files, each group by name.
func (v *Vault) List(ctx context.Context, folder string, at string) ([]Entry, error) {
	snap, err := v.at(at)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", folder, err)
	}
	folder = strings.Trim(folder, "/")
	n := snap.root
	if folder != "" {
		if err := ValidPath(folder); err != nil {
			return nil, fmt.Errorf("list %s: %w", folder, err)
		}
		n = snap.root.lookup(folder)
	}
	if n == nil || !n.isDir() {
		return nil, notFoundf("folder %s does not exist", folder)
	}
	var dirs, files []Entry
	for _, k := range n.kids {
		p := k.name
		if folder != "" {
			p = folder + "/" + k.name
		}
		if k.isDir() {
			dirs = append(dirs, Entry{Path: note.Path(p), Dir: true})
		} else {
			files = append(files, Entry{Path: note.Path(p), Revision: Revision(k.id.String())})
		}
	}
	return append(dirs, files...), nil
}

// File is one file of a tree.
type File struct {
	Path     note.Path
	Revision Revision
}

// Files yields every file at HEAD (at == "") or at a commit, in git order.
func (v *Vault) Files(ctx context.Context, at string) ([]File, CommitID, error) {
	snap, err := v.at(at)
	if err != nil {
		return nil, "", err
	}
	var out []File
	walkFiles(snap.root, "", func(p string, n *node) {
		if n.mode == modeFile || n.mode == modeExec {
			out = append(out, File{Path: note.Path(p), Revision: Revision(n.id.String())})
		}
	})
	c := CommitID("")
	if !snap.commit.isZero() {
		c = CommitID(snap.commit.String())
	}
	return out, c, nil
}

// Contents yields the bytes of the given files in order; a blob that cannot be read
// is logged and skipped.
func (v *Vault) Contents(ctx context.Context, files []File) iter.Seq2[File, []byte] {
	return func(yield func(File, []byte) bool) {
		for _, f := range files {
			if ctx.Err() != nil {
				return
			}
			b, err := v.ReadRevision(ctx, f.Revision)
			if err != nil {
				v.log.Warn("read blob", "path", f.Path, "err", err)
				continue
			}
			if !yield(f, b) {
				return
			}
		}
	}
}

// at returns the snapshot for a commit-ish ("" is HEAD).
func (v *Vault) at(at string) (*snapshot, error) {
	cur := v.snap.Load()
	if at == "" || at == "HEAD" {
		return cur, nil
	}
	id, err := v.ResolveCommit(at)
	if err != nil {
		return nil, err
	}
	if id == cur.commit {
		return cur, nil
	}
	c, err := v.readCommit(id)
	if err != nil {
		return nil, err
	}
	root, err := v.objs.loadTree(c.tree)
	if err != nil {
		return nil, err
	}
	return &snapshot{commit: id, root: root}, nil
}

// ResolveCommit turns a commit-ish (full or abbreviated id, branch, HEAD~N) into a
// commit id.
func (v *Vault) ResolveCommit(at string) (hash, error) {
	if id, ok := parseHash(at); ok {
		if _, err := v.readCommit(id); err != nil {
			if errors.Is(err, ErrNotFound) {
				return zeroHash, notFoundf("no commit %s", at)
			}
			return zeroHash, err
		}
		return id, nil
	}
	if strings.ContainsAny(at, " \t\n\x00") || at == "" || len(at) > 256 {
		return zeroHash, invalidf("%q is not a commit", at)
	}
	g := v.objs.lockGit()
	defer v.objs.mu.Unlock()
	r, err := git.Open(g, nil)
	if err != nil {
		return zeroHash, fmt.Errorf("resolve %s: %w", at, err)
	}
	h, err := r.ResolveRevision(plumbing.Revision(at))
	if err != nil {
		return zeroHash, notFoundf("no commit %s", at)
	}
	return hash(*h), nil
}

// Commit returns one commit.
func (v *Vault) Commit(ctx context.Context, at string) (*Commit, error) {
	id, err := v.ResolveCommit(at)
	if err != nil {
		return nil, err
	}
	c, err := v.readCommit(id)
	if err != nil {
		return nil, err
	}
	out := toCommit(id, c)
	return &out, nil
}

// Log returns up to limit commits reachable from HEAD, newest first; with a path,
// only those that changed it.
func (v *Vault) Log(ctx context.Context, p note.Path, limit int) ([]Commit, error) {
	if limit <= 0 {
		limit = 50
	}
	head := v.snap.Load().commit
	if head.isZero() {
		return nil, nil
	}
	type item struct {
		id hash
		c  *commitObj
	}
	seen := map[hash]bool{head: true}
	c0, err := v.readCommit(head)
	if err != nil {
		return nil, err
	}
	queue := []item{{head, c0}}
	var out []Commit
	for len(queue) > 0 && len(out) < limit {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// Newest first: pick the queued commit with the latest time.
		sort.SliceStable(queue, func(i, j int) bool { return queue[i].c.when.After(queue[j].c.when) })
		it := queue[0]
		queue = queue[1:]
		var parents []*commitObj
		for _, pid := range it.c.parents {
			pc, err := v.readCommit(pid)
			if err != nil {
				return nil, err
			}
			parents = append(parents, pc)
			if !seen[pid] {
				seen[pid] = true
				queue = append(queue, item{pid, pc})
			}
		}
		if p == "" {
			out = append(out, toCommit(it.id, it.c))
			continue
		}
		mine, err := v.entryAt(it.c.tree, string(p))
		if err != nil {
			return nil, err
		}
		touched := len(parents) == 0 && !mine.isZero()
		if len(parents) > 0 {
			touched = true
			for _, pc := range parents {
				theirs, err := v.entryAt(pc.tree, string(p))
				if err != nil {
					return nil, err
				}
				if theirs == mine {
					touched = false
				}
			}
		}
		if touched {
			out = append(out, toCommit(it.id, it.c))
		}
	}
	return out, nil
}

// entryAt returns the id of the entry at path p in tree root (zero when absent),
// reading only the trees on the path.
func (v *Vault) entryAt(root hash, p string) (hash, error) {
	cur := root
	for p != "" {
		name, rest, _ := strings.Cut(p, "/")
		data, err := v.objs.readTyped(cur, "tree")
		if err != nil {
			return zeroHash, err
		}
		kids, err := decodeTree(data)
		if err != nil {
			return zeroHash, err
		}
		found := zeroHash
		for _, k := range kids {
			if k.name == name && (rest == "") != k.isDir() {
				found = k.id
				break
			}
		}
		if found.isZero() {
			return zeroHash, nil
		}
		cur, p = found, rest
	}
	return cur, nil
}

// Diff lists the files that differ between two commits ("" from = the empty tree),
// descending only into folders whose tree ids differ.
func (v *Vault) Diff(ctx context.Context, from, to string) ([]FileChange, error) {
	var a, b hash
	if from != "" {
		id, err := v.ResolveCommit(from)
		if err != nil {
			return nil, err
		}
		c, err := v.readCommit(id)
		if err != nil {
			return nil, err
		}
		a = c.tree
	}
	tid, err := v.ResolveCommit(to)
	if err != nil {
		return nil, err
	}
	c, err := v.readCommit(tid)
	if err != nil {
		return nil, err
	}
	b = c.tree
	var out []FileChange
	err = v.diffTrees(a, b, "", &out)
	return out, err
}

func (v *Vault) treeKids(id hash) ([]*node, error) {
	if id.isZero() {
		return nil, nil
	}
	data, err := v.objs.readTyped(id, "tree")
	if err != nil {
		return nil, err
	}
	return decodeTree(data)
}

func (v *Vault) diffTrees(a, b hash, prefix string, out *[]FileChange) error {
	if a == b {
		return nil
	}
	ak, err := v.treeKids(a)
	if err != nil {
		return err
	}
	bk, err := v.treeKids(b)
	if err != nil {
		return err
	}
	join := func(name string) string {
		if prefix == "" {
			return name
		}
		return prefix + "/" + name
	}
	i, j := 0, 0
	for i < len(ak) || j < len(bk) {
		var x, y *node
		c := 0
		switch {
		case i >= len(ak):
			c = 1
		case j >= len(bk):
			c = -1
		default:
			c = gitCompare(ak[i].name, ak[i].isDir(), bk[j].name, bk[j].isDir())
		}
		if c <= 0 {
			x = ak[i]
			i++
		}
		if c >= 0 {
			y = bk[j]
			j++
		}
		switch {
		case x != nil && y != nil:
			if x.id == y.id && x.mode == y.mode {
				continue
			}
			if x.isDir() {
				if err := v.diffTrees(x.id, y.id, join(x.name), out); err != nil {
					return err
				}
				continue
			}
			*out = append(*out, FileChange{Kind: Put, Path: note.Path(join(x.name)), OldRevision: Revision(x.id.String()), Revision: Revision(y.id.String())})
		case x != nil:
			if x.isDir() {
				if err := v.diffTrees(x.id, zeroHash, join(x.name), out); err != nil {
					return err
				}
				continue
			}
			*out = append(*out, FileChange{Kind: Archive, Path: note.Path(join(x.name)), OldRevision: Revision(x.id.String())})
		default:
			if y.isDir() {
				if err := v.diffTrees(zeroHash, y.id, join(y.name), out); err != nil {
					return err
				}
				continue
			}
			*out = append(*out, FileChange{Kind: Put, Path: note.Path(join(y.name)), Revision: Revision(y.id.String())})
		}
	}
	return nil
}
