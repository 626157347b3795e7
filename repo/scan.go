package repo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/norn-vault/norn/note"
)

// Scope says which paths of the working tree a scan for hand edits looks at: all
// of them (Full), or only Paths (slash-separated, relative to the working tree),
// each a file or a folder taken with everything under it. A path that is gone
// stands for what HEAD holds there (its removal). A watcher of the working tree
// (Watcher) gives the paths that changed; a full scan is the fallback.
type Scope struct {
	Full  bool
	Paths []string
}

// Empty reports whether the scope names nothing.
func (s Scope) Empty() bool { return !s.Full && len(s.Paths) == 0 }

// Changes compares the working tree with HEAD and returns the edits a person made
// there: modified and new files as Put changes (ExpectedRevision = HEAD's), removed
// ones as Archive. Untracked files ignored by .gitignore (and editor state) are
// skipped; a tracked file counts whatever .gitignore says, as it does for git.
func (v *Vault) Changes(ctx context.Context) ([]Change, error) {
	return v.ChangesIn(ctx, Scope{Full: true})
}

// ChangesIn is Changes over the paths of scope only. As git status does, a file
// whose size and modification time match git's index entry for it (and that is not
// racily clean) is not read.
func (v *Vault) ChangesIn(ctx context.Context, scope Scope) ([]Change, error) {
	if scope.Empty() {
		return nil, nil
	}
	// While git works in the working tree (another branch checked out, a merge,
	// a running command) its files are git's, not a person's edits to the branch.
	if err := v.gitBusyWait(ctx); err != nil {
		return nil, err
	}
	// Under wtMu the working tree matches snap. Files the committer writes during
	// the walk are newer than snap: they come out as changes whose expected revision
	// is stale, which the commit refuses as a conflict, so nothing is reverted.
	v.wtMu.RLock()
	snap := v.snap.Load()
	v.wtMu.RUnlock()
	v.idxMu.Lock()
	written := v.idx.written
	unwritten := maps.Clone(v.unwritten)
	v.idxMu.Unlock()
	s := &scan{v: v, ctx: ctx, snap: snap, written: written, unwritten: unwritten,
		ign: v.ignoreRules(snap), seen: map[string]bool{}}
	var err error
	if scope.Full {
		err = s.full()
	} else {
		err = s.paths(scope.Paths)
	}
	if err != nil {
		return nil, fmt.Errorf("scan working tree: %w", err)
	}
	if err := v.gitBusy(); err != nil {
		return nil, err // git began while the walk read its files
	}
	return s.out, nil
}

// scan is one look at the working tree for hand edits.
type scan struct {
	v         *Vault
	ctx       context.Context
	snap      *snapshot
	written   time.Time
	unwritten map[string]hash
	ign       *ignoreRules
	// seen holds the regular files found (even those skipped): not deleted.
	seen map[string]bool
	// done holds the paths of a scope looked at.
	done map[string]bool
	out  []Change
}

// full walks the whole working tree, then reports HEAD's files it did not see.
func (s *scan) full() error {
	if err := s.walk("."); err != nil {
		return err
	}
	walkFiles(s.snap.root, "", s.deleted)
	return nil
}

// paths looks at each path of a scope: the file, or the folder with everything
// under it, and what HEAD holds there that is gone.
func (s *scan) paths(ps []string) error {
	s.done = map[string]bool{}
	ps = slices.Clone(ps)
	for i, p := range ps {
		ps[i] = path.Clean("/" + p)[1:]
	}
	slices.Sort(ps) // a folder comes before what is under it
	for _, p := range slices.Compact(ps) {
		if p == "" {
			return s.full() // the root itself: everything
		}
		if s.under(p) {
			continue // its folder was looked at whole
		}
		if err := s.ctx.Err(); err != nil {
			return err
		}
		s.done[p] = true
		if s.reachable(p) {
			fi, err := s.v.wt.Lstat(p)
			switch {
			case err == nil && fi.IsDir():
				if err := s.walk(p); err != nil {
					return err
				}
			case err == nil && fi.Mode().IsRegular() && !s.ign.ignored(p, false):
				if err := s.file(p, fs.FileInfoToDirEntry(fi)); err != nil {
					return err
				}
			}
		}
		if n := s.snap.root.lookup(p); n != nil {
			if n.isDir() {
				walkFiles(n, p, s.deleted)
			} else {
				s.deleted(p, n)
			}
		}
	}
	return nil
}

// under reports whether a folder above p was looked at already.
func (s *scan) under(p string) bool {
	for d := parentDir(p); d != ""; d = parentDir(d) {
		if s.done[d] {
			return true
		}
	}
	return false
}

// reachable reports whether a full walk would reach p: no folder above it is .git
// or skipped as ignored.
func (s *scan) reachable(p string) bool {
	if p == ".git" || strings.HasPrefix(p, ".git/") {
		return false
	}
	for d := parentDir(p); d != ""; d = parentDir(d) {
		if s.ign.ignored(d, true) {
			return false
		}
	}
	return true
}

// walk walks the working tree from root (a folder: "." is the whole tree).
func (s *scan) walk(root string) error {
	return fs.WalkDir(s.v.wt.FS(), root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // vanished while walking
		}
		if err := s.ctx.Err(); err != nil {
			return err
		}
		if p == "." {
			return nil
		}
		if d.IsDir() {
			if p == ".git" || s.ign.ignored(p, true) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || s.ign.ignored(p, false) {
			return nil
		}
		return s.file(p, d)
	})
}

// file looks at one regular file the scan found.
func (s *scan) file(p string, d fs.DirEntry) error {
	s.seen[p] = true // even when skipped below: it is there, not deleted
	v := s.v
	if ValidPath(p) != nil {
		v.log.Warn("skip file with an unusable name", "path", p)
		return nil
	}
	head := s.snap.root.lookup(p)
	if head != nil && head.mode != modeFile && head.mode != modeExec {
		// A symbolic link (or submodule) at HEAD, committed with git: Norn
		// writes only regular files, so it is git's to change.
		v.log.Warn("skip a path HEAD holds as a symbolic link or submodule; commit it with git", "path", p)
		return nil
	}
	if head != nil {
		if e, ok := v.indexEntry(p); ok && e.id == head.id {
			fi, err := d.Info()
			if err == nil && statMatches(&e, fi) && fi.ModTime().Before(s.written.Add(-time.Second)) {
				return nil // stat-clean, and not racily so
			}
		}
	}
	data, err := v.wt.ReadFile(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("read %s: %w", p, err)
	}
	if head != nil && sameText(data, head.id) {
		// Unchanged, or checked out by git with CRLF line endings
		// (core.autocrlf, eol=crlf): the same text, not an edit.
		return nil
	}
	c := Change{Kind: Put, Path: note.Path(p), Content: data}
	if head != nil {
		c.ExpectedRevision = Revision(head.id.String())
	}
	s.out = append(s.out, c)
	return nil
}

// indexEntry returns git's index entry for name.
func (v *Vault) indexEntry(name string) (idxEntry, bool) {
	v.idxMu.Lock()
	defer v.idxMu.Unlock()
	if i, ok := v.idx.find(name); ok {
		return v.idx.entries[i], true
	}
	return idxEntry{}, false
}

// deleted adds an Archive change for a file of HEAD the scan did not see when a
// person deleted it (not when Norn could not write it there).
func (s *scan) deleted(p string, n *node) {
	if s.seen[p] || (n.mode != modeFile && n.mode != modeExec) {
		return
	}
	v := s.v
	if s.ign.ignored(p, false) && exists(v.dir+"/"+p) {
		return // tracked editor state, skipped by the walk
	}
	if ValidPath(p) != nil {
		// A name Norn refuses, committed with git: git's to delete too.
		v.log.Warn("skip the deletion of a file with an unusable name; commit it with git", "path", p)
		return
	}
	if s.unwritten[p] == n.id || nameTooLong(p) {
		// Norn committed the file but could not write it to the working tree
		// (writeWorktree logged why): no person deleted it.
		v.log.Warn("file committed but missing from the working tree because norn could not write it; not committing a deletion", "path", p)
		return
	}
	s.out = append(s.out, Change{Kind: Archive, Path: note.Path(p), ExpectedRevision: Revision(n.id.String())})
}
