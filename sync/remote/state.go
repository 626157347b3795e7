package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/norn-vault/norn/repo"
)

// stateFile holds, per machine (it is under .git, never committed), what each
// remote's syncs last did.
const stateFile = "norn/sync.json"

// staleStateLock: a lock on the state file older than this was left by a killed
// process (a write holds it for the milliseconds of one fsync).
const staleStateLock = 10 * time.Second

// Status is how the vault stands against one remote: commits ahead and behind
// its last fetched tip, the last successful fetch and push, and the last error
// with when the failures began (cleared by a sync that succeeds).
type Status struct {
	Remote    string        `json:"remote"`
	Tip       repo.CommitID `json:"tip,omitempty"` // the remote's tip at the last fetch
	Ahead     int           `json:"ahead"`
	Behind    int           `json:"behind"`
	LastFetch time.Time     `json:"last_fetch,omitzero"`
	LastPush  time.Time     `json:"last_push,omitzero"`
	LastSync  time.Time     `json:"last_sync,omitzero"`
	LastError string        `json:"last_error,omitempty"`
	// LastErrorCode is the last error's code (SyncOptions.Classify), "" without one.
	LastErrorCode string    `json:"last_error_code,omitempty"`
	ErrorSince    time.Time `json:"error_since,omitzero"`
	// Refused are the remote's paths the last sync that took commits in left out
	// (RefusedPath); they stay in the remote's commits.
	Refused []RefusedPath `json:"refused,omitempty"`
}

// Status reports how head (the vault's tip) stands against remote name, from
// what the last fetch brought and what the last syncs recorded. It does not
// reach the remote.
func (r *Remotes) Status(ctx context.Context, name string, head repo.CommitID) (Status, error) {
	if _, err := r.Get(name); err != nil {
		return Status{}, err
	}
	r.stateMu.Lock()
	all, err := r.readState()
	r.stateMu.Unlock()
	if err != nil {
		return Status{}, err
	}
	st := all[name]
	st.Remote = name
	tracking := plumbing.NewRemoteReferenceName(name, r.opts.Branch)
	r.mu.Lock()
	ref, err := r.storage().Reference(tracking)
	r.mu.Unlock()
	switch {
	case errors.Is(err, plumbing.ErrReferenceNotFound):
		st.Tip = ""
	case err != nil:
		return st, fmt.Errorf("status %s: read %s: %w", name, tracking, err)
	default:
		st.Tip = repo.CommitID(ref.Hash().String())
	}
	if st.Ahead, st.Behind, err = r.AheadBehind(ctx, head, st.Tip); err != nil {
		return st, fmt.Errorf("status %s: %w", name, err)
	}
	return st, nil
}

// State is what the syncs of remote name recorded: Status without the counts,
// with Tip the remote's tip as the last sync saw it (fetched or pushed; "" for
// an empty remote, or no sync yet). It reads only the state file, never waiting
// for a transfer under way.
func (r *Remotes) State(name string) (Status, error) {
	if _, err := r.Get(name); err != nil {
		return Status{}, err
	}
	r.stateMu.Lock()
	all, err := r.readState()
	r.stateMu.Unlock()
	if err != nil {
		return Status{}, err
	}
	st := all[name]
	st.Remote = name
	return st, nil
}

func (r *Remotes) statePath() string { return filepath.Join(r.gitDir, stateFile) }

func (r *Remotes) readState() (map[string]Status, error) {
	b, err := os.ReadFile(r.statePath())
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]Status{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read sync state: %w", err)
	}
	all := map[string]Status{}
	if err := json.Unmarshal(b, &all); err != nil {
		// A damaged file loses only history: start again.
		r.opts.Logger.Warn("sync state unreadable; starting afresh", "err", err)
		return map[string]Status{}, nil
	}
	return all, nil
}

// editState changes one remote's recorded status; a failure to record is logged,
// never the sync's error.
func (r *Remotes) editState(name string, edit func(*Status)) {
	r.stateMu.Lock()
	defer r.stateMu.Unlock()
	all, err := r.readState()
	if err != nil {
		r.opts.Logger.Error("record sync state", "remote", name, "err", err)
		return
	}
	st := all[name]
	edit(&st)
	st.Remote = name
	all[name] = st
	if err := os.MkdirAll(filepath.Dir(r.statePath()), 0o755); err != nil {
		r.opts.Logger.Error("record sync state", "remote", name, "err", err)
		return
	}
	err = withLockFile(r.statePath(), staleStateLock, func([]byte) ([]byte, error) { return json.MarshalIndent(all, "", "  ") })
	if err != nil {
		r.opts.Logger.Error("record sync state", "remote", name, "err", err)
	}
}

// Check fetches remote name (Fetch) and records what it brought as a sync's
// fetch does: the time and the remote's tip, so that Status (and norn status,
// sync_status) counts ahead and behind from it. A failed fetch records
// nothing: a check is not a sync, and its error is the caller's to show.
func (r *Remotes) Check(ctx context.Context, name string, now time.Time, progress Progress) (repo.CommitID, error) {
	tip, err := r.Fetch(ctx, name, progress)
	if err != nil {
		return "", err
	}
	r.editState(name, func(s *Status) { s.LastFetch, s.Tip = now, tip })
	return tip, nil
}

// record keeps a sync's end, with one write: the fetch and push times it saw;
// success clears the error, a failure keeps when the failures began.
func (r *Remotes) record(name string, now time.Time, res *SyncResult, err error, code string) {
	r.editState(name, func(s *Status) {
		if !res.fetched.IsZero() {
			s.LastFetch = res.fetched
		}
		if !res.pushed.IsZero() {
			s.LastPush = res.pushed
		}
		if !res.fetched.IsZero() || !res.pushed.IsZero() {
			s.Tip = res.tip
		}
		if len(res.Merges) > 0 || res.Outcome == FastForward {
			s.Refused = res.Refused
		}
		if err == nil {
			s.LastSync, s.LastError, s.LastErrorCode, s.ErrorSince = now, "", "", time.Time{}
			return
		}
		if s.LastError == "" {
			s.ErrorSince = now
		}
		s.LastError, s.LastErrorCode = err.Error(), code
	})
}
