package vault

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/norn-vault/norn/errcode"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/sync/remote"
)

// Syncer is the vault's side of sync, the one place every surface goes through:
// it syncs with a remote (Sync), reports how the vault stands against its
// remotes as a viewer may see it (Status, the data of `norn status` and the MCP
// tool sync_status), says whether a write is on the remote (WriteRemote,
// WaitPushed), and runs the periodic sync of `norn serve` (Run). Syncs of one
// Syncer run one at a time.
type Syncer struct {
	v  *Vault
	rs *remote.Remotes
	o  SyncerOptions

	// turn holds one token: a sync takes it, so syncs run one at a time, and a
	// caller waiting for its turn gives up when its context ends.
	turn chan struct{}

	mu   sync.Mutex // guards what follows
	loop map[string]*loopState
	// ended is closed (and replaced) when a sync ends: WaitPushed and tests
	// wait on it.
	ended chan struct{}
	syncs int // syncs ended
	// vis remembers which commits viewers that may not see private notes see
	// (visibleBetween).
	vis map[visKey]bool
}

// SyncerOptions configure a Syncer.
type SyncerOptions struct {
	// Machine names this machine in conflict siblings (remote.SyncOptions.Machine).
	Machine string
	// Logger receives the loop's lines; nil: slog.Default().
	Logger *slog.Logger
	// Now dates conflict siblings and the recorded state; nil: time.Now.
	Now func() time.Time
	// WaitBound bounds WaitPushed (default DefaultWaitBound).
	WaitBound time.Duration
}

// DefaultWaitBound is how long WaitPushed waits for a write to reach the remote.
const DefaultWaitBound = 30 * time.Second

// maxWriteScan bounds the commits a write's answer examines to count, for a
// viewer that may not see private notes, those it may see (WriteRemote): a
// write stays cheap however far the vault is ahead.
const maxWriteScan = 200

// NewSyncer returns the Syncer of v over its remotes rs.
func NewSyncer(v *Vault, rs *remote.Remotes, o SyncerOptions) *Syncer {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.WaitBound <= 0 {
		o.WaitBound = DefaultWaitBound
	}
	return &Syncer{v: v, rs: rs, o: o, loop: map[string]*loopState{}, ended: make(chan struct{}), vis: map[visKey]bool{},
		turn: make(chan struct{}, 1)}
}

// Remotes are the remotes the Syncer syncs with.
func (s *Syncer) Remotes() *remote.Remotes { return s.rs }

// DefaultRemote is the remote a sync without a name uses: the vault's only
// remote, else "origin" when it has one; "" when there is none to pick.
func (s *Syncer) DefaultRemote() (string, error) {
	list, err := s.rs.List()
	if err != nil {
		return "", err
	}
	if len(list) == 1 {
		return list[0].Name, nil
	}
	for _, r := range list {
		if r.Name == "origin" {
			return r.Name, nil
		}
	}
	return "", nil
}

// Sync syncs the vault with remote name (remote.Remotes.Sync), recording the
// outcome, with its error's code, for Status. It waits for a sync under way
// (the periodic one) as long as ctx lets it.
func (s *Syncer) Sync(ctx context.Context, name string) (*remote.SyncResult, error) {
	select {
	case s.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("sync %s: waiting for the sync under way: %w", name, ctx.Err())
	}
	defer func() { <-s.turn }()
	res, err := s.rs.Sync(ctx, s.v, name, remote.SyncOptions{Machine: s.o.Machine, Now: s.o.Now,
		Classify: func(err error) string { return string(errcode.Classify(err)) }})
	s.mu.Lock()
	s.syncs++
	close(s.ended)
	s.ended = make(chan struct{})
	s.mu.Unlock()
	return res, err
}

// SyncStatus is how the vault stands against its remotes.
type SyncStatus struct {
	// Head is the vault's tip (empty to a viewer that may not see private notes).
	Head    repo.CommitID  `json:"head,omitempty"`
	Remotes []RemoteStatus `json:"remotes"`
}

// RemoteStatus is how the vault stands against one remote (remote.Status), as
// one viewer may see it, with what the periodic sync is doing.
type RemoteStatus struct {
	Remote string `json:"remote"`
	// Tip is the remote's tip at the last fetch (empty to a viewer that may not
	// see private notes).
	Tip repo.CommitID `json:"tip,omitempty"`
	// Ahead and Behind count the commits on this vault's branch the remote's
	// last fetched tip does not have, and the other way round. To a viewer that
	// may not see private notes, commits that changed only private notes are not
	// counted (as the history does not list them).
	Ahead  int `json:"ahead"`
	Behind int `json:"behind"`
	// Partial: more commits lay apart than a count for such a viewer examines
	// (maxLogScan on each side); Ahead and Behind count the first of them.
	Partial       bool      `json:"partial,omitempty"`
	LastFetch     time.Time `json:"last_fetch,omitzero"`
	LastPush      time.Time `json:"last_push,omitzero"`
	LastSync      time.Time `json:"last_sync,omitzero"`
	LastError     string    `json:"last_error,omitempty"`
	LastErrorCode string    `json:"last_error_code,omitempty"`
	ErrorSince    time.Time `json:"error_since,omitzero"`
	// Refused are the remote's paths the last sync that took commits in left
	// out, with why (remote.RefusedPath); to a viewer that may not see private
	// notes, those in private folders are left out.
	Refused []remote.RefusedPath `json:"refused,omitempty"`
	// Loop is the periodic sync's progress, when this process runs one for the
	// remote (norn serve --sync-interval).
	Loop *LoopProgress `json:"loop,omitempty"`
}

// Status reports how the vault stands against each of names (nil: every
// remote) as vw sees it, without reaching the remotes. A viewer that may not
// see private notes learns nothing of them: commits that changed only private
// notes are not counted, the commit ids are left out, and the last error is
// reduced to its code's text (an error may name a private path).
func (s *Syncer) Status(ctx context.Context, vw *Viewer, names []string) (*SyncStatus, error) {
	if names == nil {
		list, err := s.rs.List()
		if err != nil {
			return nil, err
		}
		for _, r := range list {
			names = append(names, r.Name)
		}
	}
	head := s.v.Head()
	out := &SyncStatus{Head: head, Remotes: []RemoteStatus{}}
	for _, n := range names {
		st, err := s.remoteState(ctx, n, head)
		if err != nil {
			return nil, err
		}
		rs, err := s.remoteStatus(ctx, vw, head, st, maxLogScan)
		if err != nil {
			return nil, err
		}
		out.Remotes = append(out.Remotes, rs)
	}
	if !vw.SeesAll() {
		out.Head = ""
	}
	return out, nil
}

// remoteState is remote.Status for remote name against head, from what the
// syncs recorded (remote.Remotes.State: the remote's tip as the last sync saw
// it, else its remote-tracking ref) and counted with the vault's own reader, so
// that it never waits for a transfer under way (a write's answer asks it).
func (s *Syncer) remoteState(ctx context.Context, name string, head repo.CommitID) (remote.Status, error) {
	st, err := s.rs.State(name)
	if err != nil {
		return st, err
	}
	if st.Tip == "" {
		tracking := "refs/remotes/" + name + "/" + strings.TrimPrefix(s.v.Branch(), "refs/heads/")
		if tip, err := s.v.ResolveCommit(tracking); err == nil {
			st.Tip = tip
		}
	}
	if st.Ahead, err = s.apart(ctx, st.Tip, head); err != nil {
		return st, fmt.Errorf("status %s: %w", name, err)
	}
	if st.Behind, err = s.apart(ctx, head, st.Tip); err != nil {
		return st, fmt.Errorf("status %s: %w", name, err)
	}
	return st, nil
}

// apart counts the commits reachable from b and not from a ("" for none), as
// git rev-list --count a..b does.
func (s *Syncer) apart(ctx context.Context, a, b repo.CommitID) (int, error) {
	if b == "" || a == b {
		return 0, nil
	}
	cms, err := s.v.repo.CommitsOnly(ctx, a, b, 0)
	return len(cms), err
}

// remoteStatus is st as vw sees it; for a viewer that may not see private
// notes, counting the commits apart examines at most scan on each side.
func (s *Syncer) remoteStatus(ctx context.Context, vw *Viewer, head repo.CommitID, st remote.Status, scan int) (RemoteStatus, error) {
	rs := RemoteStatus{Remote: st.Remote, Tip: st.Tip, Ahead: st.Ahead, Behind: st.Behind,
		LastFetch: st.LastFetch, LastPush: st.LastPush, LastSync: st.LastSync,
		LastError: st.LastError, LastErrorCode: st.LastErrorCode, ErrorSince: st.ErrorSince,
		Refused: st.Refused, Loop: s.progress(st.Remote)}
	if !vw.SeesAll() {
		if err := s.hideFrom(ctx, vw, head, &rs, scan); err != nil {
			return RemoteStatus{}, err
		}
	}
	return rs, nil
}

// hideFrom makes rs what a viewer that may not see private notes sees (Status).
func (s *Syncer) hideFrom(ctx context.Context, vw *Viewer, head repo.CommitID, rs *RemoteStatus, scan int) error {
	var partA, partB bool
	var err error
	if rs.Ahead > 0 {
		if rs.Ahead, partA, err = s.visibleBetween(ctx, vw, rs.Tip, head, scan); err != nil {
			return err
		}
	}
	if rs.Behind > 0 {
		if rs.Behind, partB, err = s.visibleBetween(ctx, vw, head, rs.Tip, scan); err != nil {
			return err
		}
	}
	rs.Partial = partA || partB
	rs.Tip = ""
	var refused []remote.RefusedPath
	for _, r := range rs.Refused {
		if !vw.Config().IsPrivate(note.Path(r.Path), nil) {
			refused = append(refused, r)
		}
	}
	rs.Refused = refused
	if rs.LastError != "" {
		code := errcode.Code(rs.LastErrorCode)
		if code == "" {
			code = errcode.Internal
		}
		rs.LastError = hiddenError(code)
	}
	return nil
}

// hiddenError is the text of a failed sync's error for a viewer that may not
// see private notes: its code and what the code means.
func hiddenError(c errcode.Code) string {
	return fmt.Sprintf("%s (the details may name private notes: ask the vault's owner, or see norn status): %s", c, c.Hint())
}

// visKey keys the cache of whether a viewer that may not see private notes sees
// a commit (commitInfo): that depends on the commit and on the vault's settings
// (their privacy folders), named by the settings file's revision at HEAD.
type visKey struct {
	commit   repo.CommitID
	settings repo.Revision
}

// maxVisCache bounds the visibility cache; past it, it starts afresh.
const maxVisCache = 100000

// visibleBetween counts the commits reachable from to and not from from ("" for
// none) that vw, a viewer that may not see private notes, may see (commitInfo,
// remembered per commit), examining at most scan of them, oldest first
// (partial when there were more).
func (s *Syncer) visibleBetween(ctx context.Context, vw *Viewer, from, to repo.CommitID, scan int) (n int, partial bool, err error) {
	if to == "" {
		return 0, false, nil
	}
	cms, err := s.v.repo.CommitsOnly(ctx, from, to, scan+1)
	if err != nil {
		return 0, false, fmt.Errorf("count commits: %w", err)
	}
	if partial = len(cms) > scan; partial {
		cms = cms[:scan]
	}
	settings := s.v.Revision(ConfigPath)
	for _, cm := range cms {
		k := visKey{cm.ID, settings}
		s.mu.Lock()
		vis, ok := s.vis[k]
		s.mu.Unlock()
		if !ok {
			_, vis = vw.commitInfo(ctx, cm)
			s.mu.Lock()
			if len(s.vis) >= maxVisCache {
				clear(s.vis)
			}
			s.vis[k] = vis
			s.mu.Unlock()
		}
		if vis {
			n++
		}
	}
	return n, partial, nil
}

// WriteRemote is where a write stands against the vault's default remote: on
// it (Pushed: the remote's last known tip contains the write's commit) or not
// yet, with how many commits the vault is ahead and the last sync's error.
// Pushed is true only when the remote is known to hold the commit: a push that
// fails never moves the tip it is judged by.
type WriteRemote struct {
	Remote string `json:"remote"`
	Pushed bool   `json:"pushed"`
	Ahead  int    `json:"ahead"`
	// AheadPartial: for a viewer that may not see private notes, Ahead counts
	// the visible commits among the first maxWriteScan ahead only.
	AheadPartial  bool   `json:"ahead_partial,omitempty"`
	LastError     string `json:"last_error,omitempty"`
	LastErrorCode string `json:"last_error_code,omitempty"`
}

// WriteRemote reports where commit stands against the default remote, as vw
// sees it; nil when the vault has no remote to sync with (or commit is empty:
// nothing was committed).
func (s *Syncer) WriteRemote(ctx context.Context, vw *Viewer, commit repo.CommitID) (*WriteRemote, error) {
	name, err := s.DefaultRemote()
	if err != nil || name == "" || commit == "" {
		return nil, err
	}
	head := s.v.Head()
	st, err := s.remoteState(ctx, name, head)
	if err != nil {
		return nil, err
	}
	rs, err := s.remoteStatus(ctx, vw, head, st, maxWriteScan)
	if err != nil {
		return nil, err
	}
	out := &WriteRemote{Remote: name, Ahead: rs.Ahead, AheadPartial: rs.Partial, LastError: rs.LastError, LastErrorCode: rs.LastErrorCode}
	switch {
	case st.Tip == "":
	case commit == head:
		out.Pushed = st.Ahead == 0
	default:
		ahead, err := s.apart(ctx, st.Tip, commit)
		if err != nil {
			return nil, err
		}
		out.Pushed = ahead == 0
	}
	return out, nil
}

// WaitPushed syncs with the default remote until commit is on it, for at most
// the Syncer's WaitBound, and reports where it stands (WriteRemote). A sync that
// fails ends the wait: the answer says why (LastError, LastErrorCode) and is not
// an error, since the write itself is done. nil without a remote.
func (s *Syncer) WaitPushed(ctx context.Context, vw *Viewer, commit repo.CommitID) (*WriteRemote, error) {
	name, err := s.DefaultRemote()
	if err != nil || name == "" || commit == "" {
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, s.o.WaitBound)
	defer cancel()
	var syncErr error
	for range 3 { // a sync that ends with the commit behind a newer remote tip goes again
		wr, err := s.WriteRemote(ctx, vw, commit)
		if err != nil || wr.Pushed {
			return wr, err
		}
		if _, syncErr = s.Sync(wctx, name); syncErr != nil {
			break
		}
	}
	wr, err := s.WriteRemote(ctx, vw, commit)
	if err != nil || wr.Pushed {
		return wr, err
	}
	if syncErr == nil {
		syncErr = errors.New("the sync ended without the write on the remote")
	}
	if errors.Is(syncErr, context.DeadlineExceeded) && ctx.Err() == nil {
		syncErr = fmt.Errorf("not on the remote after %s: %w", s.o.WaitBound, syncErr)
	}
	code := errcode.Classify(syncErr)
	wr.LastError, wr.LastErrorCode = syncErr.Error(), string(code)
	if !vw.SeesAll() {
		wr.LastError = hiddenError(code)
	}
	return wr, nil
}
