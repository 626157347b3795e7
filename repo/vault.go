package repo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/norn-vault/norn/note"
)

// GateFunc checks a proposed transaction before it becomes a commit. A non-nil
// error rejects the whole transaction; the vault wraps it so that it matches
// ErrRejected (the gate's own error stays reachable with errors.As).
type GateFunc func(ctx context.Context, p *Proposal) error

// Proposal is what a gate sees: the writer and every change with the bytes before
// (Old, nil when the path does not exist) and after (New, nil for archive).
type Proposal struct {
	Author  Author
	Roles   []string
	Op      Op
	Changes []ProposedChange
	// IsSymlink reports whether a path (file or folder prefix) is a symlink in the
	// working tree or in HEAD's tree.
	IsSymlink func(p string) bool
	// Names yields the entries of a folder ("" is the root) of the tree the
	// transaction applies to, each with whether it is a folder; nothing when folder
	// is not a folder there. Twins yields those whose names fold to key
	// (note.Fold): gates compare the paths a change creates with the names beside
	// them that differ only in case or Unicode normalisation. The folds are cached
	// in the tree, so Twins costs a string compare per entry of the folder.
	Names func(folder string) iter.Seq2[string, bool]
	Twins func(folder, key string) iter.Seq2[string, bool]
}

// ProposedChange is one change as a gate sees it.
type ProposedChange struct {
	Kind        ChangeKind
	Path        note.Path
	From        note.Path
	Old         []byte
	OldRevision Revision
	New         []byte
}

// CommitFunc is told that the branch moved to head (Norn's batch, or commits
// another process made), once the commits are durable and the working tree
// matches them, before the writes are acknowledged. It runs on the committer,
// in step with the commits (the search index catches up here): it must be quick.
// Observers of what each commit changed subscribe to events (Options.OnEvent,
// Vault.Subscribe), which run off the committer.
type CommitFunc func(head CommitID)

// Options configure a vault handle. The zero value is usable.
type Options struct {
	Logger *slog.Logger
	// Gate, when set, checks every transaction (not external edits or imports).
	Gate GateFunc
	// PathGate, when set, classifies a path the vault refuses before staging (an
	// unsafe path, a name too long for the file system or starting with TempPrefix,
	// a path through a symlink): it is called with the transaction's paths alone (no
	// bytes) and its error, wrapped to match ErrRejected, is returned instead of the
	// vault's ErrInvalid. It should apply the gates' path rules (hooks'
	// Gates.CheckPaths). When it passes, or is nil, the refusal stays ErrInvalid.
	PathGate GateFunc
	// Now is the clock for commit times (tests pin it); default time.Now.
	Now func() time.Time
	// Committer signs every commit as committer; default "norn <norn@localhost>".
	Committer Author
	// Owner authors external edits and imports; default the git identity of the
	// vault (repository config, then global config), else "owner".
	Owner Author
	// MaxBatch caps how many queued transactions one group commit takes (default 256).
	MaxBatch int
	// MaxNoteBytes is the hard limit on one change's bytes (default 64 MiB); gates
	// usually set a smaller one.
	MaxNoteBytes int
	// OnCommit is told, in step with the committer, that the branch moved (see
	// CommitFunc).
	OnCommit CommitFunc
	// OnEvent, when set, is the first observer of commit events, registered before
	// any commit (see Vault.Subscribe).
	OnEvent func(Event)
	// Lean opens the vault for one command in a short-lived process (a CLI write):
	// HEAD's tree is read folder by folder as the command goes through it, not
	// whole, and Open does not cross-check git's index and the working tree
	// against HEAD unless a writer died mid-update (its marker is there). Reads and
	// writes behave as with a full open; a walk of the whole tree (Files, a
	// catch-up) reads every folder it meets.
	Lean bool
	// MaxEventLag is how many moves of the branch may queue for slow observers
	// (default 1024); past it the queue collapses into one range read from git
	// again (see dispatcher).
	MaxEventLag int
}

// Vault is an open vault. Its methods are safe for concurrent use: reads are served
// from an immutable snapshot of HEAD's tree; writes queue for the one committer
// goroutine, which group-commits them.
type Vault struct {
	dir    string
	gitDir string
	branch string
	opts   Options
	log    *slog.Logger
	objs   *objectStore
	wt     *os.Root
	// wlock serialises writers across processes; the committer holds it for each
	// batch (see exclusive), Open for recovery.
	wlock *writerLock
	// marked is set while the worktree marker exists (see markWorktree).
	marked bool

	snap atomic.Pointer[snapshot]
	// lastAt is the last snapshot of another commit than HEAD read (see at).
	lastAt atomic.Pointer[snapshot]
	// walks keeps what history walks read, for the next one (pathwalk.go).
	walks walkCache
	// wtMu is held by the committer from publishing a snapshot until the working
	// tree matches it (see Changes).
	wtMu sync.RWMutex

	reqs chan *request
	// events fans commit events out off the committer (see dispatcher).
	events  *dispatcher
	closing chan struct{}
	done    chan struct{}
	closeMu sync.Once
	// unlinks feeds the unlinker goroutine superseded git index files.
	unlinks  chan string
	unlinked chan struct{}

	// idx is git's index; only the committer changes it, under idxMu.
	idxMu sync.Mutex
	idx   *gitIndex
	// pendingStat holds files Norn wrote whose stat data the index lacks yet.
	pendingStat map[string]fs.FileInfo
	// unwritten holds the working-tree files Norn failed to write (path → the blob
	// HEAD has there), under idxMu: their absence is Norn's failure, not a person's
	// deletion, so Changes does not report it.
	unwritten map[string]hash
	// away is set when git's index or the working tree was found to be git's (see
	// gitBusy): the committer reads git's index again once they are the branch's.
	away atomic.Bool
	// mendLater: Open found git busy and left recovery for when it is done;
	// idxDirty: Norn's copy of git's index could not be written (git held the
	// lock) and is to be written again. Both are the committer's (and Open's).
	mendLater, idxDirty bool
	// gitSeen is when the committer last saw git at work (see gitQuiet); the
	// committer's.
	gitSeen time.Time
	// busyMarks are the paths gitBusy looks for (busyMarkPaths).
	busyMarks []string
	// treeSeen is the cache tree root last read from git's index (indexForOtherTree).
	treeSeen atomic.Pointer[indexTreeSeen]
	// logRefs: write reflogs even where none exist yet (core.logAllRefUpdates,
	// read at Open; see logRefUpdate).
	logRefs bool
}

// snapshot is HEAD at one commit: immutable once published.
type snapshot struct {
	commit hash
	root   *node
}

// Dir returns the vault's working-tree folder.
func (v *Vault) Dir() string { return v.dir }

// GitDir returns the vault's .git folder.
func (v *Vault) GitDir() string { return v.gitDir }

// Branch returns the branch the vault writes to ("refs/heads/main").
func (v *Vault) Branch() string { return v.branch }

// Owner returns the identity that authors external edits and imports.
func (v *Vault) Owner() Author { return v.opts.Owner }

// Head returns the commit HEAD is at ("" for a vault with no commits yet).
func (v *Vault) Head() CommitID {
	s := v.snap.Load()
	if s.commit.isZero() {
		return ""
	}
	return CommitID(s.commit.String())
}

// Open opens the vault whose working tree is dir. It finishes any working-tree update
// a crash interrupted, so that the working tree and git's index match HEAD (edits a
// person made are kept and show up as external changes).
func Open(ctx context.Context, dir string, opts Options) (*Vault, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open vault %s: %w", dir, err)
	}
	gitDir := filepath.Join(abs, ".git")
	fi, err := os.Stat(gitDir)
	if err != nil || !fi.IsDir() {
		if err == nil {
			return nil, fmt.Errorf("open vault %s: %w: .git is a file (a linked worktree or a submodule); Norn keeps its state in a repository's .git folder: use the main working tree", abs, ErrNotVault)
		}
		return nil, fmt.Errorf("open vault %s: %w: no .git folder (run `norn init` first)", abs, ErrNotVault)
	}
	branch, err := readSymbolicHead(gitDir)
	if err != nil {
		// A rebase detaches HEAD while it runs: say so, not "not a vault".
		if busy := stoppedOp(busyMarkPaths(gitDir), "then run norn again"); busy != nil {
			return nil, fmt.Errorf("open vault %s: %w", abs, busy)
		}
		return nil, fmt.Errorf("open vault %s: %w", abs, err)
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Committer.Name == "" {
		opts.Committer = Author{Name: "norn", Email: "norn@localhost"}
	}
	if opts.Owner.Name == "" {
		opts.Owner = GitIdentity(abs)
	}
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = 256
	}
	if opts.MaxNoteBytes <= 0 {
		opts.MaxNoteBytes = 64 << 20
	}
	if opts.MaxEventLag <= 0 {
		opts.MaxEventLag = 1024
	}
	wt, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("open vault %s: %w", abs, err)
	}
	v := &Vault{
		dir: abs, gitDir: gitDir, branch: branch, opts: opts, log: opts.Logger, busyMarks: busyMarkPaths(gitDir),
		logRefs: logAllRefUpdates(gitDir),
		objs:    newObjectStore(gitDir), wt: wt,
		reqs: make(chan *request, 1024), closing: make(chan struct{}), done: make(chan struct{}),
		unlinks: make(chan string, 64), unlinked: make(chan struct{}),
	}
	v.events = newDispatcher(v, opts.MaxEventLag)
	if err := os.MkdirAll(filepath.Join(gitDir, "norn"), 0o755); err != nil {
		v.closeFiles()
		return nil, fmt.Errorf("open vault %s: %w", abs, err)
	}
	if v.wlock, err = openWriterLock(gitDir); err != nil {
		v.closeFiles()
		return nil, fmt.Errorf("open vault %s: %w", abs, err)
	}
	// Under the writer lock another process's batch is either wholly done or not
	// begun: HEAD, git's index and the working tree read here belong together.
	if err := v.wlock.lock(); err != nil {
		v.closeFiles()
		return nil, fmt.Errorf("open vault %s: %w", abs, err)
	}
	err = v.load(ctx)
	v.wlock.unlock()
	if err != nil {
		v.closeFiles()
		return nil, fmt.Errorf("open vault %s: %w", abs, err)
	}
	go v.unlinker()
	go v.events.run()
	go v.run()
	return v, nil
}

// load reads HEAD and git's index and finishes an interrupted working-tree update.
func (v *Vault) load(ctx context.Context) error {
	if err := v.loadHead(); err != nil {
		return err
	}
	idx, err := loadGitIndex(v.gitDir, v.opts.Lean, nil)
	if err != nil {
		return err
	}
	v.idx = idx
	v.idx.drop = v.unlinks
	v.pendingStat = map[string]fs.FileInfo{}
	v.unwritten = map[string]hash{}
	if idx.lean != nil && !exists(v.markerPath()) {
		// Every Norn writer leaves git's index and the working tree in step with
		// the branch before it lets go of the writer lock (held here), or leaves
		// its marker: there is nothing to recover. An index a lean open could not
		// read lean (missing, damaged, not split) is checked whole.
		return nil
	}
	v.idx.materialize() // recover compares every entry with HEAD
	if err := v.recover(ctx); err != nil {
		return fmt.Errorf("recover working tree: %w", err)
	}
	return nil
}

// loadHead reads the branch tip and its whole tree into a fresh snapshot.
func (v *Vault) loadHead() error {
	id, err := readRef(v.gitDir, v.branch)
	if err != nil {
		return err
	}
	s := &snapshot{commit: id, root: &node{mode: modeDir}}
	if !id.isZero() {
		c, err := v.readCommit(id)
		if err != nil {
			return err
		}
		if v.opts.Lean {
			s.root = v.objs.lazyFolder("", c.tree)
		} else {
			// A commit another process made (Refresh) shares the folders it left
			// alone with the snapshot before it.
			var prev *node
			if old := v.snap.Load(); old != nil {
				prev = old.root
			}
			root, err := v.objs.loadTreeFrom(c.tree, prev)
			if err != nil {
				return err
			}
			s.root = root
		}
	}
	v.snap.Store(s)
	return nil
}

// Close stops the committer after the queued writes finish, then the event
// goroutine once it has delivered every queued event, and releases the vault.
func (v *Vault) Close() error {
	v.closeMu.Do(func() {
		close(v.closing)
		<-v.done
		v.events.stop()
		close(v.unlinks)
		<-v.unlinked
		v.closeFiles()
	})
	return nil
}

// unlinker removes superseded git index files so that freeing their blocks (about
// 1 ms for a 10,000-note index) stays off the write path.
func (v *Vault) unlinker() {
	defer close(v.unlinked)
	for p := range v.unlinks {
		os.Remove(p)
	}
}

func (v *Vault) closeFiles() {
	if v.idx != nil {
		v.idx.release()
	}
	v.objs.close()
	v.wt.Close()
	if v.wlock != nil {
		v.wlock.close()
	}
}

// GitIdentity returns the git identity configured for the repository at dir
// (repository config, then the global one), or "owner" when none is set.
func GitIdentity(dir string) Author {
	a := gitConfigIdentity(dir)
	if a.Name == "" {
		a.Name = "owner"
	}
	if a.Email == "" {
		a.Email = "owner@localhost"
	}
	return a
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return !errors.Is(err, fs.ErrNotExist)
}
