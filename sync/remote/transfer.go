package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	gitcfg "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/norn-vault/norn/repo"
)

// Progress receives the remote's progress lines ("Counting objects: 40% (4/10)")
// while a transfer runs. It is called from the transfer's goroutine.
type Progress func(line string)

// Fetch brings the remote's branch and its objects into the vault, updating only
// refs/remotes/NAME/BRANCH, and returns the remote's branch tip: "" when the
// remote is empty or has no such branch (the first push will create it). Nothing
// of the vault's own branch, working tree or index changes. It first repairs what
// a killed fetch of an older version left (repair.go). The tracking ref never
// names a commit the vault lacks: a fetch that ends without the tip in the
// object store is ErrFetchIncomplete, the ref left where it was.
func (r *Remotes) Fetch(ctx context.Context, name string, progress Progress) (repo.CommitID, error) {
	rem, err := r.Get(name)
	if err != nil {
		return "", err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	start := time.Now()
	r.opts.Logger.DebugContext(ctx, "fetch", "remote", rem.Name, "url", rem.URL, "kind", rem.Kind)
	s, err := newSession(rem, r.opts.Credentials(rem.Name))
	if err != nil {
		return "", fmt.Errorf("fetch %s: %w", rem.Name, err)
	}
	defer s.close()
	r.repairIndexes(ctx)
	st := r.storage()
	tracking := plumbing.NewRemoteReferenceName(rem.Name, r.opts.Branch)
	old, err := r.checkTracking(ctx, st, tracking)
	if err != nil {
		return "", fmt.Errorf("fetch %s: %w", rem.Name, err)
	}
	spec := gitcfg.RefSpec(fmt.Sprintf("+%s:%s", plumbing.NewBranchReferenceName(r.opts.Branch), tracking))
	pw := newProgressWriter(progress)
	err = git.NewRemote(st, r.gitRemote(rem)).FetchContext(ctx, &git.FetchOptions{
		RemoteName: rem.Name,
		RefSpecs:   []gitcfg.RefSpec{spec},
		Auth:       s.auth,
		Progress:   pw,
		Tags:       git.NoTags,
	})
	pw.flush()
	var noRef git.NoMatchingRefSpecError
	switch {
	case err == nil, errors.Is(err, git.NoErrAlreadyUpToDate):
	case errors.Is(err, transport.ErrEmptyRemoteRepository), errors.As(err, &noRef):
		r.opts.Logger.DebugContext(ctx, "fetched", "remote", rem.Name, "tip", "", "duration", time.Since(start))
		return "", nil
	default:
		return "", fmt.Errorf("fetch %s: %w", rem.Name, s.explain(ctxErr(ctx, err)))
	}
	ref, err := st.Reference(tracking)
	if err != nil {
		return "", fmt.Errorf("fetch %s: read %s: %w", rem.Name, tracking, err)
	}
	tip := repo.CommitID(ref.Hash().String())
	if err := arrived(st, ref.Hash()); err != nil {
		// go-git moves the ref even when it fetched nothing because it could not
		// list the packs (its wants are computed ignoring that error): put the ref
		// back, so it never names a commit the vault lacks.
		if old != nil {
			err = errors.Join(err, st.SetReference(old))
		} else {
			err = errors.Join(err, st.RemoveReference(tracking))
		}
		return "", fmt.Errorf("fetch %s: %w: %s: %v", rem.Name, ErrFetchIncomplete, tip.Short(), err)
	}
	r.opts.Logger.DebugContext(ctx, "fetched", "remote", rem.Name, "tip", tip.Short(), "duration", time.Since(start))
	return tip, nil
}

// Push sets the remote's branch to local, which must be a commit of the vault,
// only if the remote's branch is at expected ("" for a remote without the branch,
// as an empty remote's first push). A remote elsewhere is ErrRemoteMoved, nothing
// changed there: fetch, merge and push again. local not descending from expected
// is ErrNotFastForward. Pushing the tip the remote already has is a success. The
// remote's own check of the old value (receive-pack's ref lock) closes the race
// with another pusher between our look and its update.
func (r *Remotes) Push(ctx context.Context, name string, local, expected repo.CommitID, progress Progress) error {
	rem, err := r.Get(name)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.storage()
	localHash, err := commitHash(st, local)
	if err != nil {
		return fmt.Errorf("push %s: local: %w", rem.Name, err)
	}
	start := time.Now()
	r.opts.Logger.DebugContext(ctx, "push", "remote", rem.Name, "url", rem.URL, "kind", rem.Kind,
		"local", local.Short(), "expected", expected.Short())
	s, err := newSession(rem, r.opts.Credentials(rem.Name))
	if err != nil {
		return fmt.Errorf("push %s: %w", rem.Name, err)
	}
	defer s.close()
	branch := plumbing.NewBranchReferenceName(r.opts.Branch)
	gr := git.NewRemote(st, r.gitRemote(rem))
	opts := &git.PushOptions{
		RemoteName: rem.Name,
		RefSpecs:   []gitcfg.RefSpec{gitcfg.RefSpec(localHash.String() + ":" + branch.String())},
		Auth:       s.auth,
	}
	if expected == "" {
		// go-git cannot require a ref to be absent: look first. A branch created
		// between the look and the push is only taken over if local descends
		// from it (the fast-forward check), so nothing is lost.
		tip, err := remoteTip(ctx, gr, s.auth, branch)
		if err != nil {
			return fmt.Errorf("push %s: %w", rem.Name, s.explain(ctxErr(ctx, err)))
		}
		if tip != "" {
			return fmt.Errorf("push %s: %w: the remote's %s is at %s, not absent", rem.Name, ErrRemoteMoved, r.opts.Branch, tip.Short())
		}
	} else {
		if _, err := plumbingHash(expected); err != nil {
			return fmt.Errorf("push %s: expected: %w", rem.Name, err)
		}
		opts.RequireRemoteRefs = []gitcfg.RefSpec{gitcfg.RefSpec(string(expected) + ":" + branch.String())}
	}
	if progress != nil {
		pw := newProgressWriter(progress)
		defer pw.flush()
		opts.Progress = pw
	}
	err = gr.PushContext(ctx, opts)
	if err = r.pushError(ctx, s, err); err != nil {
		return fmt.Errorf("push %s: %w", rem.Name, err)
	}
	r.opts.Logger.DebugContext(ctx, "pushed", "remote", rem.Name, "tip", local.Short(), "duration", time.Since(start))
	return nil
}

// pushError classifies go-git's push outcome. go-git reports these cases as
// unexported fmt.Errorf texts (and receive-pack's per-ref status as text), so this
// one boundary matches on their wording; everything past it uses our sentinels.
// receive-pack's "failed to update ref" is also what a remote out of disk space
// says: taken as a moved remote, the caller's bounded fetch-and-retry ends it.
func (r *Remotes) pushError(ctx context.Context, s *session, err error) error {
	if err == nil || errors.Is(err, git.NoErrAlreadyUpToDate) {
		return nil
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "required to be"):
		// go-git's RequireRemoteRefs: the advertised tip is not the expected one.
		return fmt.Errorf("%w: %s", ErrRemoteMoved, strings.TrimPrefix(msg, "remote ref "))
	case strings.HasPrefix(msg, "non-fast-forward update"):
		return fmt.Errorf("%w: merge the remote's tip first", ErrNotFastForward)
	case strings.HasPrefix(msg, "command error on"):
		// receive-pack's status for the ref: a lost race on its lock, or a hook.
		if containsAny(msg, "failed to lock", "cannot lock", "stale info", "fetch first", "non-fast-forward", "failed to update ref") {
			return fmt.Errorf("%w: %s", ErrRemoteMoved, redact(err, s.secrets...))
		}
		return fmt.Errorf("%w: %s", ErrRejected, redact(err, s.secrets...))
	}
	return s.explain(ctxErr(ctx, err))
}

// remoteTip lists the remote's refs and returns the branch's tip ("" if absent).
func remoteTip(ctx context.Context, gr *git.Remote, auth transport.AuthMethod, branch plumbing.ReferenceName) (repo.CommitID, error) {
	refs, err := gr.ListContext(ctx, &git.ListOptions{Auth: auth})
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	for _, ref := range refs {
		if ref.Name() == branch && ref.Type() == plumbing.HashReference {
			return repo.CommitID(ref.Hash().String()), nil
		}
	}
	return "", nil
}

// storage is go-git's view of the vault's git directory, through gitFS.
func (r *Remotes) storage() *filesystem.Storage {
	fs := osfs.New(r.gitDir)
	return filesystem.NewStorageWithOptions(gitFS{fs}, cache.NewObjectLRUDefault(), filesystem.Options{AlternatesFS: fs})
}

// arrived checks that commit id is in the object store, reading the pack list
// again before it says no.
func arrived(st *filesystem.Storage, id plumbing.Hash) error {
	_, err := st.EncodedObject(plumbing.CommitObject, id)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		st.Reindex()
		_, err = st.EncodedObject(plumbing.CommitObject, id)
	}
	return err
}

func (r *Remotes) gitRemote(rem Remote) *gitcfg.RemoteConfig {
	return &gitcfg.RemoteConfig{
		Name:  rem.Name,
		URLs:  []string{rem.URL},
		Fetch: []gitcfg.RefSpec{gitcfg.RefSpec("+refs/heads/*:refs/remotes/" + rem.Name + "/*")},
	}
}

// ctxErr prefers the context's error when it ended the transfer.
func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	return err
}

// progressWriter turns go-git's progress stream into lines ('\r' or '\n' ended).
type progressWriter struct {
	fn  Progress
	buf bytes.Buffer
}

func newProgressWriter(fn Progress) *progressWriter { return &progressWriter{fn: fn} }

func (w *progressWriter) Write(p []byte) (int, error) {
	if w.fn == nil {
		return len(p), nil
	}
	w.buf.Write(p)
	for {
		b := w.buf.Bytes()
		i := bytes.IndexAny(b, "\r\n")
		if i < 0 {
			return len(p), nil
		}
		line := strings.TrimSpace(string(b[:i]))
		w.buf.Next(i + 1)
		if line != "" {
			w.fn(line)
		}
	}
}

func (w *progressWriter) flush() {
	if line := strings.TrimSpace(w.buf.String()); line != "" && w.fn != nil {
		w.fn(line)
	}
	w.buf.Reset()
}
