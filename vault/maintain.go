package vault

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/norn-vault/norn/repo"
)

// Maintainer keeps a served vault tidy in the background: it takes in commits other
// processes made (Vault.Refresh), takes the search index up again when it was
// out of use for a passing reason (Indexer.Reopen), applies a changed search section
// of .norn/config.yaml (Indexer.Reconfigure), commits edits a person makes in
// the working tree (Norn-Op: external) and runs gc once there are more loose objects
// (gc.loose_objects) or packs (gc.packs; then every pack is rolled into one) than
// the settings allow.
type Maintainer struct {
	Vault  *Vault
	Logger *slog.Logger
	// Every is the pause between rounds (default 2 s).
	Every time.Duration
	// Settle is how long the working tree's edits must rest before a round commits
	// them: while a file changed less than Settle ago, the round waits, so a burst
	// of saves (an editor's autosave, Obsidian rewriting its settings) becomes one
	// external commit. Zero commits at once. A burst that never rests is committed
	// anyway once its first edit is MaxSettle old (default 10 × Settle).
	Settle    time.Duration
	MaxSettle time.Duration
	// Watch makes Run follow the working tree's file events (repo.Vault.Watch):
	// a round then looks only at the paths that changed, and a hand edit is
	// committed once it has rested Settle, without waiting for the next round.
	// The whole tree is scanned at the start, after lost events, and every Rescan
	// (default 10 minutes) as a safety net. Round alone (without Run) scans it all.
	Watch bool
	// WatchOptions configure the watcher (Watch).
	WatchOptions repo.WatchOptions
	Rescan       time.Duration

	// watcher is Run's when Watch is set; pending is what it reported that no
	// round has dealt with yet, lastFull when the whole tree was last scanned.
	watcher  *repo.Watcher
	pending  map[string]struct{}
	full     bool
	lastFull time.Time
	// wake is when a round is due for edits resting now (zero: none).
	wake time.Time

	// since is when the round first saw the edits it has not committed yet.
	since time.Time

	// busy is why the last round left the working tree alone ("" when it did not).
	busy string
	// warned is the revision of .norn/config.yaml whose ignored per-machine
	// settings were last logged.
	warned repo.Revision
}

// Run works until ctx is done; it returns nil then.
func (m *Maintainer) Run(ctx context.Context) error {
	every := m.Every
	if every <= 0 {
		every = 2 * time.Second
	}
	log := m.Logger
	if log == nil {
		log = slog.Default()
	}
	if m.Watch {
		opts := m.WatchOptions
		if opts.Logger == nil {
			opts.Logger = log
		}
		m.watcher = m.Vault.Watch(opts)
		defer func() {
			m.watcher.Close()
			m.watcher = nil
		}()
	}
	t := time.NewTicker(every)
	defer t.Stop()
	next := roundFull
	for {
		var err error
		if next == roundFull {
			err = m.Round(ctx)
		} else {
			err = m.catchUp(ctx, log)
		}
		if err != nil && !errors.Is(err, context.Canceled) {
			log.Warn("vault maintenance", "err", err)
		}
		if next = m.wait(ctx, t.C); next == roundNone {
			return nil
		}
	}
}

// What wait asks Run to do next.
const (
	roundNone    = iota // ctx is done: stop
	roundFull           // a whole Round
	roundCatchUp        // take in a commit another process made (Vault.Refresh) only
)

// catchUp takes in at once a commit another process made, as the watcher saw the
// branch move: a hand `git commit` leaves nothing in the working tree to settle, so
// it waits for neither Settle nor the next round. A move by this process's own write
// (the committer took it in and caught the index up) costs a read of the ref.
//
// Refresh runs only when the branch on disk is ahead of the vault's snapshot; it
// queues behind a batch of writes being published, so after it the snapshot and the
// index's catch-up from OnCommit are that batch's. The index is then caught up only
// when it is still behind HEAD (its catch-up in OnCommit never waits: a rebuild or
// another catch-up may have held it).
func (m *Maintainer) catchUp(ctx context.Context, log *slog.Logger) error {
	start := time.Now()
	from := m.Vault.Head()
	if m.Vault.Behind() {
		if err := m.Vault.Refresh(ctx); err != nil {
			return err
		}
	}
	head := m.Vault.Head()
	if commit, _ := m.Vault.Index.Status(); commit == "" || commit == string(head) {
		if head != from {
			log.Debug("took in a moved branch", "from", from, "to", head, "took", time.Since(start))
		}
		return nil // at HEAD, or no index to catch up
	}
	if err := m.Vault.Index.CatchUp(ctx); err != nil {
		return err
	}
	log.Debug("took in a moved branch", "from", from, "to", head, "took", time.Since(start), "index_caught_up", true)
	return nil
}

// wait waits for the next round: the tick, or edits the watcher reports once
// they may have rested Settle (m.wake), or — at once — the branch moved by
// another process (roundCatchUp).
func (m *Maintainer) wait(ctx context.Context, tick <-chan time.Time) int {
	var changed <-chan struct{}
	if m.watcher != nil {
		changed = m.watcher.Changed()
	}
	for {
		var due <-chan time.Time
		var timer *time.Timer
		if !m.wake.IsZero() {
			timer = time.NewTimer(time.Until(m.wake))
			due = timer.C
		}
		next := roundNone
		select {
		case <-ctx.Done():
			return roundNone
		case <-tick:
			next = roundFull
		case <-due:
			next = roundFull
		case <-changed:
			moved := m.watcher.TakeMoved()
			switch {
			case m.Settle <= 0:
				next = roundFull
			case moved:
				next = roundCatchUp
			}
			// The same signal may carry working-tree edits too: they rest Settle
			// before a round commits them (a spare wake finds nothing to do).
			if m.Settle > 0 && m.wake.IsZero() {
				m.wake = time.Now().Add(m.Settle)
			}
		}
		if timer != nil {
			timer.Stop()
		}
		if next != roundNone {
			return next
		}
	}
}

// Round does one round of maintenance and reports what it did.
func (m *Maintainer) Round(ctx context.Context) error {
	m.wake = time.Time{}
	// First take in what other processes committed (a `norn` command, git pull),
	// so their files are not mistaken for a person's edits.
	if err := m.Vault.Refresh(ctx); err != nil {
		return err
	}
	cfg, _, _ := m.Vault.Settings.Current(ctx)
	m.noteIgnored(ctx)
	if err := m.Vault.Index.Reopen(ctx); err != nil && ctx.Err() == nil && m.Logger != nil {
		m.Logger.Warn("search index still out of use", "err", err)
	}
	// A changed search section of .norn/config.yaml applies from this round.
	if err := m.Vault.Index.Reconfigure(ctx, SearchOptionsFrom(cfg, m.Logger)); err != nil && m.Logger != nil {
		m.Logger.Warn("search settings", "err", err)
	}
	m.noteBusy(m.Vault.Busy())
	scope := m.scope()
	if !m.settled(ctx, scope) {
		return nil
	}
	res, err := m.Vault.CommitExternalIn(ctx, scope, "", "")
	if err != nil && !errors.Is(err, repo.ErrConflict) {
		return err // a conflict means Norn wrote the same note meanwhile: next round
	}
	if err == nil {
		m.dealt(scope)
	}
	if res != nil && m.Logger != nil {
		m.Logger.Info("committed external edits", "commit", res.Commit, "files", len(res.Changes))
	}
	cfg, _, _ = m.Vault.Settings.Current(ctx)
	loose, packs := cfg.GC.LooseObjects, cfg.GC.Packs
	if (loose > 0 && m.Vault.LooseObjects() > loose) || (packs > 0 && m.Vault.Packs() > packs) {
		if _, err := m.Vault.GC(ctx, repo.GCOptions{PackLimit: packs}); err != nil {
			return err
		}
	}
	return nil
}

// DefaultSettle is the Settle of the maintainer norn serve runs.
const DefaultSettle = time.Second

// scope returns what this round looks at: everything without a watcher; with
// one, the paths it reported that no round has dealt with yet, or everything at
// the start, after lost events and every Rescan.
func (m *Maintainer) scope() repo.Scope {
	if m.watcher == nil {
		return repo.Scope{Full: true}
	}
	rescan := m.Rescan
	if rescan <= 0 {
		rescan = 10 * time.Minute
	}
	got := m.watcher.Take()
	if got.Full || time.Since(m.lastFull) >= rescan {
		m.full = true
	}
	if m.pending == nil {
		m.pending = map[string]struct{}{}
	}
	for _, p := range got.Paths {
		m.pending[p] = struct{}{}
	}
	if m.full {
		return repo.Scope{Full: true}
	}
	s := repo.Scope{Paths: make([]string, 0, len(m.pending))}
	for p := range m.pending {
		s.Paths = append(s.Paths, p)
	}
	return s
}

// dealt records that a round looked at scope and committed what it found there.
func (m *Maintainer) dealt(scope repo.Scope) {
	if scope.Full {
		m.full, m.lastFull = false, time.Now()
	}
	for _, p := range scope.Paths {
		delete(m.pending, p)
	}
	if scope.Full {
		clear(m.pending)
	}
}

// settled reports whether the working tree's edits in scope may be committed now:
// there are none to wait for, Settle is zero, the newest changed file is at least
// Settle old, or the edits have waited MaxSettle already. While they rest, m.wake
// is when they will have.
func (m *Maintainer) settled(ctx context.Context, scope repo.Scope) bool {
	if m.Settle <= 0 {
		return true
	}
	changes, err := m.Vault.ChangesIn(ctx, scope)
	if err != nil || len(changes) == 0 {
		m.since = time.Time{}
		if err == nil {
			m.dealt(scope)
		}
		return err != nil // let CommitExternal meet (and report) the error
	}
	now := time.Now()
	if m.since.IsZero() {
		m.since = now
	}
	maxSettle := m.MaxSettle
	if maxSettle <= 0 {
		maxSettle = 10 * m.Settle
	}
	newest := newestChange(m.Vault.Dir(), changes)
	if now.Sub(m.since) >= maxSettle || now.Sub(newest) >= m.Settle {
		m.since = time.Time{}
		return true
	}
	m.wake = newest.Add(m.Settle)
	if cap := m.since.Add(maxSettle); cap.Before(m.wake) {
		m.wake = cap
	}
	return false
}

// newestChange is the latest modification time of the changed files still in the
// working tree (a removed file has none; with only removals it is the zero time).
func newestChange(dir string, changes []repo.Change) time.Time {
	var newest time.Time
	for _, c := range changes {
		fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(string(c.Path))))
		if err != nil {
			continue // removed (or unreadable): no mtime to wait on
		}
		if t := fi.ModTime(); t.After(newest) {
			newest = t
		}
	}
	return newest
}

// noteIgnored logs, once per version of .norn/config.yaml, the per-machine
// settings it names that are ignored (config.Config.Ignored).
func (m *Maintainer) noteIgnored(ctx context.Context) {
	rev, ignored := m.Vault.Settings.Ignored(ctx)
	if rev == m.warned {
		return
	}
	m.warned = rev
	if m.Logger == nil {
		return
	}
	for _, w := range ignored {
		m.Logger.Warn("committed config names a per-machine setting: ignored", "file", ConfigPath, "revision", rev, "line", w.Line, "key", w.Key,
			"fix", "move it to .git/norn/machine.yaml or the environment and remove it from the committed file")
	}
}

// noteBusy logs when git takes the working tree (another branch checked out, a
// merge stopped on conflicts) and when it gives it back: in between, hand edits are
// not committed and writes are refused as conflicts.
func (m *Maintainer) noteBusy(err error) {
	why := ""
	var busy *repo.BusyError
	if errors.As(err, &busy) && !busy.Locked { // a lock is usually a moment's
		why = err.Error()
	}
	if why == m.busy || m.Logger == nil {
		m.busy = why
		return
	}
	if why != "" {
		m.Logger.Warn("working tree in git's hands: edits there are not committed and writes are refused until it is back", "why", why)
	} else {
		m.Logger.Warn("working tree back with the vault: committing edits and accepting writes again")
	}
	m.busy = why
}
