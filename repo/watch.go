package repo

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/fsnotify/fsnotify"
)

// WatchOptions configure a Watcher. The zero value is usable.
type WatchOptions struct {
	// MaxFolders caps how many folders the watcher asks the operating system to
	// watch (each costs an inotify watch, a per-user resource:
	// fs.inotify.max_user_watches); past it, as when the system refuses one, the
	// watcher gives up and every Take asks for a full scan. Zero is no cap.
	MaxFolders int
	// Logger gets the watcher's warnings (default the vault's).
	Logger *slog.Logger
}

// Watcher follows the working tree through the operating system's file events
// (fsnotify: inotify on Linux), so that a scan for hand edits looks only at the
// paths that changed (ChangesIn) instead of walking every file. It watches every
// folder of the working tree but .git and the folders a scan skips as ignored, and
// adds new folders as they appear. Take says what changed since it was last
// called: the paths, or a full scan when events may have been lost (at the start,
// after the kernel's queue overflowed or an error) or when the watcher could not
// watch the whole tree and fell back to polling. Its one goroutine is waited for
// by Close.
type Watcher struct {
	v    *Vault
	log  *slog.Logger
	opts WatchOptions
	fsw  *fsnotify.Watcher
	// changed is signalled (never blocking) when Take has something new.
	changed chan struct{}
	done    chan struct{}

	mu      sync.Mutex
	paths   map[string]struct{}
	full    bool
	polling bool
	// moved is set when the branch's ref, HEAD or packed-refs changed on disk
	// (a commit another process made); TakeMoved clears it.
	moved bool
	// refDirs are the git folders watched for ref changes (gitDir, and the
	// folder of the branch's ref file), absolute.
	refDirs []string
	// dirs are the folders watched (only the watcher's goroutine, and Watch
	// before it starts, change it).
	dirs map[string]struct{}
}

// Watch starts watching the working tree; Close stops it. When the operating
// system cannot watch it (no inotify instance left, too many folders for
// fs.inotify.max_user_watches), the watcher logs a warning and polls: every Take
// asks for a full scan.
func (v *Vault) Watch(opts WatchOptions) *Watcher {
	w := &Watcher{v: v, log: v.log, opts: opts, changed: make(chan struct{}, 1), done: make(chan struct{}),
		paths: map[string]struct{}{}, full: true, dirs: map[string]struct{}{}}
	if opts.Logger != nil {
		w.log = opts.Logger
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		w.fallBack(fmt.Errorf("start watching: %w", err))
		close(w.done)
		return w
	}
	w.fsw = fsw
	w.addTree("")
	w.addRefs()
	go w.run()
	return w
}

// addRefs watches the git directory (HEAD, packed-refs) and the folder of the
// branch's ref file, so that a commit made by another process (the git CLI, a
// `norn` command) is reported at once (TakeMoved) instead of at the next round.
// A folder that cannot be watched is only logged: rounds still take such commits
// in.
func (w *Watcher) addRefs() {
	ref := filepath.Join(w.v.gitDir, filepath.FromSlash(w.v.branch))
	for _, d := range []string{w.v.gitDir, filepath.Dir(ref)} {
		if err := w.fsw.Add(d); err != nil {
			w.log.Debug("cannot watch git's refs: commits by other processes wait for the next round", "dir", d, "err", err)
			continue
		}
		w.refDirs = append(w.refDirs, d)
	}
}

// refEvent reports whether name (absolute) is in one of the git folders watched
// for refs, and records when it is the branch's ref, HEAD or packed-refs
// moving (a lock file's name is not: git renames it onto the ref when done).
func (w *Watcher) refEvent(name string) bool {
	dir := filepath.Dir(name)
	if !slices.Contains(w.refDirs, dir) {
		return false
	}
	if name == filepath.Join(w.v.gitDir, filepath.FromSlash(w.v.branch)) ||
		(dir == w.v.gitDir && (filepath.Base(name) == "HEAD" || filepath.Base(name) == "packed-refs")) {
		w.mu.Lock()
		w.moved = true
		w.mu.Unlock()
		w.signal()
	}
	return true
}

// TakeMoved reports whether the branch's ref, HEAD or packed-refs changed on
// disk since the last TakeMoved (a commit to take in with Refresh), and forgets it.
func (w *Watcher) TakeMoved() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	m := w.moved
	w.moved = false
	return m
}

// Changed is signalled when something changed since the last Take.
func (w *Watcher) Changed() <-chan struct{} { return w.changed }

// Polling reports whether the watcher gave up watching: every Take is a full scan.
func (w *Watcher) Polling() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.polling
}

// Take returns what changed in the working tree since the last Take and forgets
// it: the paths, or a full scan (after lost events, or when polling).
func (w *Watcher) Take() Scope {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.full || w.polling {
		w.full = false
		clear(w.paths)
		return Scope{Full: true}
	}
	if len(w.paths) == 0 {
		return Scope{}
	}
	s := Scope{Paths: make([]string, 0, len(w.paths))}
	for p := range w.paths {
		s.Paths = append(s.Paths, p)
	}
	clear(w.paths)
	return s
}

// Close stops watching and waits for the watcher's goroutine.
func (w *Watcher) Close() error {
	if w.fsw != nil {
		w.fsw.Close()
	}
	<-w.done
	return nil
}

func (w *Watcher) run() {
	defer close(w.done)
	for {
		select {
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			w.event(ev)
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			w.lost(err)
		}
	}
}

// event records the path of one file event, and watches a new folder.
func (w *Watcher) event(ev fsnotify.Event) {
	if w.refEvent(ev.Name) {
		return
	}
	rel, err := filepath.Rel(w.v.dir, ev.Name)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return
	}
	if w.Polling() {
		return // every round scans the whole tree anyway
	}
	p := filepath.ToSlash(rel)
	if p == ".git" || strings.HasPrefix(p, ".git/") || builtinMatcher.Match(strings.Split(p, "/"), false) {
		return // git's own files, editor state: never a hand edit
	}
	if ev.Has(fsnotify.Rename) || ev.Has(fsnotify.Remove) {
		w.unwatch(p)
	}
	if ev.Has(fsnotify.Create) || (ev.Has(fsnotify.Write) && filepath.Base(p) == ".gitignore") {
		// A new folder (made, or moved in) is watched, and scanned whole: files
		// may have been put in it before the watch began. A changed .gitignore
		// may show folders it hid: they are watched, and its folder scanned.
		if filepath.Base(p) == ".gitignore" {
			p = parentDir(p)
		}
		if fi, err := w.v.wt.Lstat(orDot(p)); err == nil && fi.IsDir() {
			w.addTree(p)
		}
	}
	w.note(p)
}

// unwatch drops the watches of folder p and those under it, moved away or removed.
// A folder's watch follows it when it is moved (the kernel's watch is on the
// folder, not its name): left in place, its events would carry the old name, and
// the watch could not be taken again under the new one.
func (w *Watcher) unwatch(p string) {
	for d := range w.dirs {
		if d == p || strings.HasPrefix(d, p+"/") || p == "" {
			w.fsw.Remove(filepath.Join(w.v.dir, filepath.FromSlash(d))) // gone already: nothing to drop
			delete(w.dirs, d)
		}
	}
}

// lost handles an error from the event queue: events may have been lost (the
// kernel's queue overflowed), so the next Take is a full scan.
func (w *Watcher) lost(err error) {
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		w.log.Warn("file events overflowed: the next round scans the whole working tree", "err", err)
	} else {
		w.log.Warn("watching the working tree", "err", err)
	}
	w.mu.Lock()
	w.full = true
	w.mu.Unlock()
	w.signal()
}

// note records that p changed.
func (w *Watcher) note(p string) {
	w.mu.Lock()
	w.paths[p] = struct{}{}
	w.mu.Unlock()
	w.signal()
}

func (w *Watcher) signal() {
	select {
	case w.changed <- struct{}{}:
	default:
	}
}

// addTree watches folder root ("" is the working tree) and the folders under it,
// but .git and those a scan skips as ignored. When the system refuses a watch for
// want of resources, or MaxFolders is reached, the watcher falls back to polling.
func (w *Watcher) addTree(root string) {
	ign := w.v.ignoreRules(w.v.snap.Load())
	err := fs.WalkDir(w.v.wt.FS(), orDot(root), func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil // vanished meanwhile; files need no watch of their own
		}
		if p != "." && (p == ".git" || ign.ignored(p, true)) {
			return fs.SkipDir
		}
		return w.add(p)
	})
	if err != nil {
		w.fallBack(err)
	}
}

// add watches one folder.
func (w *Watcher) add(p string) error {
	if w.Polling() {
		return fs.SkipAll
	}
	if p == "." {
		p = ""
	}
	if _, ok := w.dirs[p]; ok {
		return nil
	}
	if n := len(w.dirs); w.opts.MaxFolders > 0 && n >= w.opts.MaxFolders {
		return fmt.Errorf("watch %s: %d folders watched already (the cap)", orDot(p), n)
	}
	err := w.fsw.Add(filepath.Join(w.v.dir, filepath.FromSlash(p)))
	switch {
	case err == nil:
		w.dirs[p] = struct{}{}
		return nil
	case errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENOMEM):
		return fmt.Errorf("watch %s: %w (raise fs.inotify.max_user_watches)", p, err)
	default:
		return nil // gone meanwhile, or unreadable: its parent's events still say it changed
	}
}

// fallBack gives up watching: every Take is a full scan from now on.
func (w *Watcher) fallBack(err error) {
	w.mu.Lock()
	was := w.polling
	w.polling = true
	w.mu.Unlock()
	if !was {
		w.log.Warn("cannot watch the working tree: scanning all of it every round instead", "err", err)
	}
}

// orDot is p, or "." for the root.
func orDot(p string) string {
	if p == "" {
		return "."
	}
	return p
}
