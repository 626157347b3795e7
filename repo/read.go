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
// at names (the forms ResolveCommit accepts). A missing note is
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
// sub-folders first, then files, each group by name. The folder is checked like a
// note's path (ErrInvalid: absolute, "..", ".git", …); a trailing "/" is allowed.
func (v *Vault) List(ctx context.Context, folder string, at string) ([]Entry, error) {
	snap, err := v.at(at)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", folder, err)
	}
	// A trailing "/" names the folder; a leading one makes the path absolute,
	// which ValidPath refuses, as Read does.
	folder = strings.TrimRight(folder, "/")
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
	for _, k := range n.entries() {
		p := k.name
		if folder != "" {
			p = folder + "/" + k.name
		}
		if k.isDir() {
			dirs = append(dirs, Entry{Path: note.Path(p), Dir: true, Revision: Revision(k.id.String())})
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
	// Readers of an older commit read many notes at it (a move planned at the
	// commit its index reflected, while writes land): load its tree once.
	if last := v.lastAt.Load(); last != nil && last.commit == id {
		return last, nil
	}
	c, err := v.readCommit(id)
	if err != nil {
		return nil, err
	}
	root, err := v.objs.loadTree(c.tree)
	if err != nil {
		return nil, err
	}
	s := &snapshot{commit: id, root: root}
	v.lastAt.Store(s)
	return s, nil
}

// ResolveCommit turns a commit-ish into a commit id. It accepts only these forms
// (see docs/cli.md): a commit id, full or abbreviated to 4 or more hex digits; a
// branch name (refs/heads/NAME); HEAD; each optionally followed by a chain of ~N
// (the Nth first-parent ancestor, ~ alone is ~1) and ^N (the Nth parent, ^ alone is
// ^1, ^0 the commit itself), e.g. HEAD~2, main^2~1. Anything else git's revision
// syntax has (REV^{/regex}, REV:path, REV@{n}, A..B, …) is ErrInvalid: some of it
// searches or reads beyond the commit named. A well-formed commit-ish that names
// nothing is ErrNotFound.
func (v *Vault) ResolveCommit(at string) (hash, error) {
	if id, ok := parseHash(at); ok {
		if _, err := v.readCommit(id); err != nil {
			// Another object's id (a blob's) names no commit: answering "not a
			// commit" would say that a blob with that id exists.
			var wt *wrongTypeError
			if errors.Is(err, ErrNotFound) || errors.As(err, &wt) {
				return zeroHash, notFoundf("no commit %s", at)
			}
			return zeroHash, err
		}
		return id, nil
	}
	base, steps, err := parseCommitish(at)
	if err != nil {
		return zeroHash, err
	}
	id, err := v.resolveBase(base)
	if err != nil {
		return zeroHash, err
	}
	for _, st := range steps {
		c, err := v.readCommit(id)
		if err != nil {
			return zeroHash, fmt.Errorf("resolve %s: %w", at, err)
		}
		switch {
		case st.parent && st.n == 0:
		case st.parent:
			if st.n > len(c.parents) {
				return zeroHash, notFoundf("no commit %s: a commit on the way has %d parent(s)", at, len(c.parents))
			}
			id = c.parents[st.n-1]
		default:
			for i := 0; i < st.n; i++ {
				if len(c.parents) == 0 {
					return zeroHash, notFoundf("no commit %s: history is shorter", at)
				}
				id = c.parents[0]
				if i+1 < st.n {
					if c, err = v.readCommit(id); err != nil {
						return zeroHash, fmt.Errorf("resolve %s: %w", at, err)
					}
				}
			}
		}
	}
	if _, err := v.readCommit(id); err != nil {
		var wt *wrongTypeError
		if errors.Is(err, ErrNotFound) || errors.As(err, &wt) {
			return zeroHash, notFoundf("no commit %s", at)
		}
		return zeroHash, fmt.Errorf("resolve %s: %w", at, err)
	}
	return id, nil
}

// commitStep is one ~N (first parent, n times) or ^N (parent n) of a commit-ish.
type commitStep struct {
	parent bool
	n      int
}

// maxCommitStep bounds N in ~N and ^N.
const maxCommitStep = 1 << 20

// parseCommitish splits a commit-ish of the forms ResolveCommit accepts into its
// base (hex, HEAD or a branch name) and its ~N / ^N steps; any other form is
// ErrInvalid.
func parseCommitish(at string) (string, []commitStep, error) {
	bad := func(why string) error {
		return invalidf("%q is not a commit Norn accepts (%s): give a commit id (full, or abbreviated to 4+ hex digits), a branch name or HEAD, optionally followed by ~N or ^N (e.g. HEAD~2, main^2)", at, why)
	}
	if at == "" {
		return "", nil, bad("empty")
	}
	if len(at) > 256 {
		return "", nil, bad("too long")
	}
	i := strings.IndexAny(at, "~^")
	if i < 0 {
		i = len(at)
	}
	base, rest := at[:i], at[i:]
	if err := checkCommitBase(base); err != "" {
		return "", nil, bad(err)
	}
	var steps []commitStep
	for rest != "" {
		st := commitStep{parent: rest[0] == '^'}
		rest = rest[1:]
		j := 0
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		st.n = 1
		if j > 0 {
			if j > 7 {
				return "", nil, bad("a step count over " + fmt.Sprint(maxCommitStep))
			}
			n := 0
			for _, d := range rest[:j] {
				n = n*10 + int(d-'0')
			}
			if n > maxCommitStep {
				return "", nil, bad("a step count over " + fmt.Sprint(maxCommitStep))
			}
			st.n = n
		}
		rest = rest[j:]
		if rest != "" && rest[0] != '~' && rest[0] != '^' {
			return "", nil, bad(fmt.Sprintf("%q after a ~ or ^", rest[:1]))
		}
		steps = append(steps, st)
	}
	return base, steps, nil
}

// checkCommitBase says what is wrong with the base of a commit-ish ("" when it is
// HEAD, hex, or a branch name git allows).
func checkCommitBase(b string) string {
	switch {
	case b == "":
		return "no commit before the ~ or ^"
	case b == "HEAD", isHex(b):
		return ""
	case b == "@":
		return "@ is not accepted, use HEAD"
	case strings.Contains(b, ".."):
		return "ranges (..) are not accepted"
	case strings.Contains(b, "@{"):
		return "reflog forms (@{…}) are not accepted"
	case strings.HasPrefix(b, "-"), strings.HasPrefix(b, "/"), strings.HasSuffix(b, "/"),
		strings.HasSuffix(b, "."), strings.Contains(b, "//"), strings.Contains(b, "/."),
		strings.HasPrefix(b, "."), strings.HasSuffix(b, ".lock"), strings.Contains(b, ".lock/"):
		return "not a branch name"
	}
	for _, r := range b {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(" :?*[\\{}", r) {
			return fmt.Sprintf("%q is not accepted", r)
		}
	}
	return ""
}

// isHex reports whether s is 4 to 40 lowercase or uppercase hex digits.
func isHex(s string) bool {
	if len(s) < 4 || len(s) > 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// resolveBase resolves HEAD, a (possibly abbreviated) commit id or a branch name
// (refs/heads/NAME) to a commit id. Hex is tried as an id first, then as a branch,
// as git does.
func (v *Vault) resolveBase(b string) (hash, error) {
	if isHex(b) {
		// An id or a prefix of one, with Norn's own readers first (go-git's pack
		// list can lag behind packs Norn merged and deleted). Before go-git's lock:
		// readCommit falls back to go-git, which takes it.
		var commits []hash
		for _, id := range v.objs.withPrefix(strings.ToLower(b)) {
			if _, err := v.readCommit(id); err == nil {
				commits = append(commits, id)
			}
		}
		switch {
		case len(commits) == 1:
			return commits[0], nil
		case len(commits) > 1:
			return zeroHash, invalidf("%s is ambiguous: %d commits start with it; give more digits", b, len(commits))
		}
	}
	g := v.objs.lockGit()
	defer v.objs.mu.Unlock()
	r, err := git.Open(g, nil)
	if err != nil {
		return zeroHash, fmt.Errorf("resolve %s: %w", b, err)
	}
	if b == "HEAD" {
		ref, err := r.Reference(plumbing.HEAD, true)
		if err != nil {
			return zeroHash, notFoundf("no commit HEAD (the branch has no commits)")
		}
		return hash(ref.Hash()), nil
	}
	if isHex(b) {
		// Then go-git, which also reads packs Norn cannot (and tries ref names).
		if h, err := r.ResolveRevision(plumbing.Revision(b)); err == nil {
			return hash(*h), nil
		}
	}
	ref, err := r.Reference(plumbing.NewBranchReferenceName(b), true)
	if err != nil {
		return zeroHash, notFoundf("no commit or branch %s", b)
	}
	return hash(ref.Hash()), nil
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
	if p != "" {
		if err := ValidPath(string(p)); err != nil {
			return nil, fmt.Errorf("log %s: %w", p, err)
		}
	}
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
	look := v.pathLookup(string(p))
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
		mine, err := look.at(it.c.tree)
		if err != nil {
			return nil, err
		}
		touched := len(parents) == 0 && !mine.isZero()
		if len(parents) > 0 {
			touched = true
			for _, pc := range parents {
				theirs, err := look.at(pc.tree)
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

// RevisionWasAt reports whether rev was the blob at path p in some commit reachable
// from HEAD (HEAD included). It walks the whole history when it was not, reading
// only the trees on p's path, each once (pathLookup).
func (v *Vault) RevisionWasAt(ctx context.Context, p note.Path, rev Revision) (bool, error) {
	want, ok := parseHash(string(rev))
	if !ok {
		return false, invalidf("revision %q is not a 40-character hex id", rev)
	}
	if err := ValidPath(string(p)); err != nil {
		return false, err
	}
	if v.Revision(p) == rev {
		return true, nil
	}
	head := v.snap.Load().commit
	if head.isZero() || want.isZero() { // pathLookup answers zero for "absent"
		return false, nil
	}
	look := v.pathLookup(string(p))
	seen := map[hash]bool{head: true}
	queue := []hash{head}
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		id := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		c, err := v.readCommit(id)
		if err != nil {
			return false, fmt.Errorf("history of %s: %w", p, err)
		}
		for _, pid := range c.parents {
			if !seen[pid] {
				seen[pid] = true
				queue = append(queue, pid)
			}
		}
		got, err := look.at(c.tree)
		if err != nil {
			return false, fmt.Errorf("history of %s: %w", p, err)
		}
		if got == want {
			return true, nil
		}
	}
	return false, nil
}

// pathLookup finds one path's entry in many trees (a walk over history): a tree
// looked at once at a depth is not read again, so commits that left the path's
// folders alone cost one root-tree read.
type pathLookup struct {
	v     *Vault
	parts []string
	memo  []map[hash]hash // per depth: tree id → the path's entry under it
}

func (v *Vault) pathLookup(p string) *pathLookup {
	parts := strings.Split(p, "/")
	memo := make([]map[hash]hash, len(parts))
	for i := range memo {
		memo[i] = map[hash]hash{}
	}
	return &pathLookup{v: v, parts: parts, memo: memo}
}

// at returns the id of the path's entry in tree root, zero when absent.
func (l *pathLookup) at(root hash) (hash, error) {
	cur := root
	var trail [8]hash
	trees := trail[:0]
	found := zeroHash
	for depth, name := range l.parts {
		if got, ok := l.memo[depth][cur]; ok {
			found = got
			break
		}
		trees = append(trees, cur)
		data, err := l.v.objs.readTyped(cur, "tree")
		if err != nil {
			return zeroHash, err
		}
		id, err := treeEntry(data, name, depth < len(l.parts)-1)
		if err != nil {
			return zeroHash, err
		}
		if id.isZero() || depth == len(l.parts)-1 {
			found = id
			break
		}
		cur = id
	}
	for depth, t := range trees {
		l.memo[depth][t] = found
	}
	return found, nil
}

// treeEntry returns the id of the entry called name in a tree object's data (a
// folder when dir, else a file), zero when there is none, without decoding the
// other entries.
func treeEntry(data []byte, name string, dir bool) (hash, error) {
	var id hash
	err := scanTree(data, func(mode uint32, n, eid []byte) bool {
		if (mode == modeDir) == dir && string(n) == name {
			copy(id[:], eid)
			return false
		}
		return true
	})
	return id, err
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

// EntryKind is what a path holds in a tree.
type EntryKind string

// The kinds of entry KindAt reports.
const (
	KindNone      EntryKind = ""          // nothing at the path (or a prefix is a file)
	KindFile      EntryKind = "file"      // a regular file (executable or not)
	KindDir       EntryKind = "dir"       // a folder
	KindSymlink   EntryKind = "symlink"   // a symbolic link
	KindSubmodule EntryKind = "submodule" // a gitlink (another repository's commit)
)

// KindAt reports what p holds at commit-ish at ("" for HEAD), without judging
// the path (a name the vault would refuse is looked up as it is): the sync uses
// it on trees other machines made.
func (v *Vault) KindAt(ctx context.Context, p note.Path, at string) (EntryKind, error) {
	snap, err := v.at(at)
	if err != nil {
		return KindNone, fmt.Errorf("kind of %s: %w", p, err)
	}
	n := snap.root.lookup(string(p))
	switch {
	case n == nil:
		return KindNone, nil
	case n.mode == modeDir:
		return KindDir, nil
	case n.mode == modeSymlink:
		return KindSymlink, nil
	case n.mode == modeGitlink:
		return KindSubmodule, nil
	}
	return KindFile, nil
}
