package vault

import (
	"context"
	"errors"
	"log/slog"
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
