package repo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/norn-vault/norn/note"
)

// builtinIgnores are never committed as external edits: editor state that changes
// all the time and is no one's knowledge.
var builtinIgnores = []string{
	".DS_Store", "Thumbs.db", ".trash/", ".obsidian/workspace.json",
	".obsidian/workspace-mobile.json", ".obsidian/cache", "*.swp", "*~", TempPrefix + "*",
}

// Changes compares the working tree with HEAD and returns the edits a person made
// there: modified and new files as Put changes (ExpectedRevision = HEAD's), removed
// ones as Archive. Untracked files ignored by .gitignore (and editor state) are
// skipped; a tracked file counts whatever .gitignore says, as it does for git.
func (v *Vault) Changes(ctx context.Context) ([]Change, error) {
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
	idx := append([]idxEntry(nil), v.idx.entries...)
	written := v.idx.written
	v.idxMu.Unlock()
	byName := make(map[string]*idxEntry, len(idx))
	for i := range idx {
		byName[idx[i].name] = &idx[i]
	}
	ignored := v.ignored(snap)

	var out []Change
	seen := map[string]bool{}
	err := fs.WalkDir(v.wt.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // vanished while walking
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p == "." {
			return nil
		}
		if d.IsDir() {
			if p == ".git" || ignored(p, true) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || ignored(p, false) {
			return nil
		}
		seen[p] = true // even when skipped below: it is there, not deleted
		if ValidPath(p) != nil {
			v.log.Warn("skip file with an unusable name", "path", p)
			return nil
		}
		head := snap.root.lookup(p)
		if head != nil && head.mode != modeFile && head.mode != modeExec {
			// A symbolic link (or submodule) at HEAD, committed with git: Norn
			// writes only regular files, so it is git's to change.
			v.log.Warn("skip a path HEAD holds as a symbolic link or submodule; commit it with git", "path", p)
			return nil
		}
		if e := byName[p]; e != nil && head != nil && e.id == head.id {
			fi, err := d.Info()
			if err == nil && statMatches(e, fi) && fi.ModTime().Before(written.Add(-time.Second)) {
				return nil // stat-clean, and not racily so
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
		out = append(out, c)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scan working tree: %w", err)
	}
	if err := v.gitBusy(); err != nil {
		return nil, err // git began while the walk read its files
	}
	return append(out, v.deletions(snap, seen, ignored)...), nil
}

// ignored returns the rule of what Changes skips: editor state always; what
// .gitignore names unless it is tracked at snap's HEAD (an edit to a tracked file
// counts, as it does for git).
func (v *Vault) ignored(snap *snapshot) func(p string, dir bool) bool {
	userPatterns, _ := gitignore.ReadPatterns(osfs.New(v.dir), nil)
	user := gitignore.NewMatcher(append(globalIgnores(), userPatterns...)) // the vault's win
	var builtinPatterns []gitignore.Pattern
	for _, p := range builtinIgnores {
		builtinPatterns = append(builtinPatterns, gitignore.ParsePattern(p, nil))
	}
	builtin := gitignore.NewMatcher(builtinPatterns)
	return func(p string, dir bool) bool {
		parts := strings.Split(p, "/")
		match := func(m gitignore.Matcher) bool {
			for i := 1; i < len(parts); i++ {
				if m.Match(parts[:i], true) {
					return true
				}
			}
			return m.Match(parts, dir)
		}
		return match(builtin) || snap.root.lookup(p) == nil && match(user)
	}
}

// deletions returns an Archive change for each file of snap that the working tree
// walk did not see and a person deleted (not one Norn could not write there).
func (v *Vault) deletions(snap *snapshot, seen map[string]bool, ignored func(p string, dir bool) bool) []Change {
	var out []Change
	v.idxMu.Lock()
	unwritten := maps.Clone(v.unwritten)
	v.idxMu.Unlock()
	walkFiles(snap.root, "", func(p string, n *node) {
		if seen[p] || (n.mode != modeFile && n.mode != modeExec) {
			return
		}
		if ignored(p, false) && exists(v.dir+"/"+p) {
			return // tracked editor state, skipped by the walk
		}
		if ValidPath(p) != nil {
			// A name Norn refuses, committed with git: git's to delete too.
			v.log.Warn("skip the deletion of a file with an unusable name; commit it with git", "path", p)
			return
		}
		if unwritten[p] == n.id || nameTooLong(p) {
			// Norn committed the file but could not write it to the working tree
			// (writeWorktree logged why): no person deleted it.
			v.log.Warn("file committed but missing from the working tree because norn could not write it; not committing a deletion", "path", p)
			return
		}
		out = append(out, Change{Kind: Archive, Path: note.Path(p), ExpectedRevision: Revision(n.id.String())})
	})
	return out
}

// globalIgnores returns the person's own ignore patterns, which git applies to
// every repository: the file core.excludesFile names in ~/.gitconfig or
// /etc/gitconfig, else git's default, $XDG_CONFIG_HOME/git/ignore
// (~/.config/git/ignore).
func globalIgnores() []gitignore.Pattern {
	root := osfs.New("/")
	ps, _ := gitignore.LoadGlobalPatterns(root)
	if len(ps) == 0 {
		ps, _ = gitignore.LoadSystemPatterns(root)
	}
	if len(ps) > 0 {
		return ps
	}
	cfg := os.Getenv("XDG_CONFIG_HOME")
	if cfg == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil
		}
		cfg = filepath.Join(home, ".config")
	}
	b, err := os.ReadFile(filepath.Join(cfg, "git", "ignore"))
	if err != nil {
		return nil
	}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) != "" && !strings.HasPrefix(line, "#") {
			ps = append(ps, gitignore.ParsePattern(line, nil))
		}
	}
	return ps
}

// nameTooLong reports whether a path has a name no common file system can hold, so
// the file can never be in the working tree.
func nameTooLong(p string) bool {
	for _, part := range strings.Split(p, "/") {
		if len(part) > MaxNameBytes {
			return true
		}
	}
	return false
}

// CommitExternal commits the edits a person made in the working tree as one commit
// (Norn-Op: external, or op when given, authored by the vault owner). It returns nil
// and no error when there is nothing to commit. A note Norn changed meanwhile is a
// conflict; call it again.
func (v *Vault) CommitExternal(ctx context.Context, op Op, message string) (*Result, error) {
	message = strings.TrimSpace(message)
	if err := ValidSubject(message); err != nil {
		return nil, err
	}
	changes, err := v.Changes(ctx)
	if err != nil {
		return nil, err
	}
	if len(changes) == 0 {
		return nil, nil
	}
	if op == "" {
		op = OpExternal
	}
	if message == "" {
		message = fmt.Sprintf("%s: %d file(s) changed in the working tree", op, len(changes))
		if len(changes) == 1 {
			message = Subject(fmt.Sprintf("%s %s", op, changes[0].Path))
		}
	}
	tx := &Tx{Author: v.opts.Owner, Roles: []string{"owner"}, Op: op, Message: message, Changes: changes}
	return v.submit(ctx, &request{tx: tx, external: true})
}
