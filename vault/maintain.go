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
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if err := m.Round(ctx); err != nil && !errors.Is(err, context.Canceled) {
			log.Warn("vault maintenance", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Round does one round of maintenance and reports what it did.
func (m *Maintainer) Round(ctx context.Context) error {
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
	if !m.settled(ctx) {
		return nil
	}
	res, err := m.Vault.CommitExternal(ctx, "", "")
	if err != nil && !errors.Is(err, repo.ErrConflict) {
		return err // a conflict means Norn wrote the same note meanwhile: next round
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

// settled reports whether the working tree's edits may be committed now: there are
// none to wait for, Settle is zero, the newest changed file is at least Settle old,
// or the edits have waited MaxSettle already.
func (m *Maintainer) settled(ctx context.Context) bool {
	if m.Settle <= 0 {
		return true
	}
	changes, err := m.Vault.Changes(ctx)
	if err != nil || len(changes) == 0 {
		m.since = time.Time{}
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
	if now.Sub(m.since) >= maxSettle || now.Sub(newestChange(m.Vault.Dir(), changes)) >= m.Settle {
		m.since = time.Time{}
		return true
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
