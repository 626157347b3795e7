package vault

import (
	"context"
	"fmt"
	"sync"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/errcode"
	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/ledger"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// Actor is who asks the vault for something: the commit author of its writes, the
// gate roles it writes with, and whether it may see private notes. The surfaces
// make one from their own idea of a caller (a token's principal, the person at the
// command line).
type Actor struct {
	Author repo.Author
	Roles  []string
	// Private: the actor may see (and write) private notes.
	Private bool
}

// ErrPrivacyUnknown: the vault's settings do not parse, so which notes are private
// is unknown, and the actor may not see private notes (Vault.Viewer). It names no
// part of the file (a folder's name may be private).
var ErrPrivacyUnknown = errcode.New(errcode.Forbidden, "privacy unknown")

// Viewer is what one actor may see of the vault, for one request: every read,
// search, listing and notification decides with its methods, which all come down
// to notePrivate. It caches the notes private at HEAD for the request, so make a
// new one per request.
type Viewer struct {
	v   *Vault
	cfg config.Config
	// all: the actor may see private notes and sees every note.
	all bool

	once       sync.Once
	private    map[note.Path]bool // notes at HEAD whose frontmatter makes them private
	privCommit repo.CommitID      // the HEAD private is of
	privErr    error
}

// Viewer returns what a sees of the vault. While the vault's settings do not parse,
// an actor that may not see private notes is refused (ErrPrivacyUnknown): under the
// defaults a note in a private folder of the broken file would show.
func (v *Vault) Viewer(ctx context.Context, a Actor) (*Viewer, error) {
	cfg, _, cfgErr := v.Settings.Current(ctx)
	if cfgErr != nil && !a.Private {
		return nil, fmt.Errorf("%w: %s does not parse", ErrPrivacyUnknown, ConfigPath)
	}
	return &Viewer{v: v, cfg: cfg, all: a.Private}, nil
}

// Config is the vault's settings the viewer judges by.
func (c *Viewer) Config() config.Config { return c.cfg }

// SeesAll reports whether the viewer sees every note (it may see private notes).
func (c *Viewer) SeesAll() bool { return c.all }

// PrivateAtHead returns the notes at HEAD private by their content (frontmatter or a private tag; nil for a
// viewer that sees everything).
func (c *Viewer) PrivateAtHead(ctx context.Context) (map[note.Path]bool, error) {
	if c.all {
		return nil, nil
	}
	c.once.Do(func() { c.private, c.privCommit, c.privErr = c.v.priv.get(ctx, c.v.repo, c.cfg.Privacy) })
	return c.private, c.privErr
}

// Visible reports whether the viewer may see the note at p as it is at HEAD (a
// path that does not exist there is judged by its folder alone). It fails closed.
func (c *Viewer) Visible(ctx context.Context, p note.Path) bool {
	if c.all {
		return true
	}
	if privatePath(c.cfg, p) {
		return false
	}
	set, err := c.PrivateAtHead(ctx)
	if err != nil {
		return false
	}
	return !set[p]
}

// VisibleContent reports whether the viewer may see the note at p with bytes raw
// (any revision).
func (c *Viewer) VisibleContent(p note.Path, raw []byte) bool {
	return c.all || !notePrivate(c.cfg, p, raw, nil, nil)
}

// VisibleParsed is VisibleContent for bytes raw already parsed: n and err are
// what note.Parse made of them.
func (c *Viewer) VisibleParsed(p note.Path, n *note.Note, err error, raw []byte) bool {
	return c.all || !notePrivate(c.cfg, p, raw, n, err)
}

// VisibleAt reports whether the viewer may see the note at p at revision rev,
// using the HEAD set when rev is p's revision at HEAD and reading the bytes
// otherwise.
func (c *Viewer) VisibleAt(ctx context.Context, p note.Path, rev repo.Revision) bool {
	if c.all {
		return true
	}
	if privatePath(c.cfg, p) {
		return false
	}
	if ledger.IsClaimPath(p) { // judged by its bytes (notePrivate)
		b, err := c.v.ReadRevision(ctx, rev)
		return err == nil && c.VisibleContent(p, b)
	}
	if !note.IsNote(p) {
		return true
	}
	if rev == "" || c.v.Revision(p) == rev {
		return c.Visible(ctx, p)
	}
	b, err := c.v.ReadRevision(ctx, rev)
	if err != nil {
		return false
	}
	return c.VisibleContent(p, b)
}

// Hidden is what the viewer may not see, for graph queries and the write
// requests' Hidden (nil: it sees all).
func (c *Viewer) Hidden(ctx context.Context) graph.Hidden {
	if c.all {
		return nil
	}
	return func(p note.Path) bool { return !c.Visible(ctx, p) }
}

// ReadAt reads p at HEAD, at a commit-ish, or by revision (a blob id). For a
// viewer that may not see private notes, a revision is read only when it was p's
// blob in the history reachable from HEAD: a blob id names bytes, not a place,
// and read at a public path any blob (a private folder's note) would pass as
// public. Any other id is taken as a commit, which it is not: not found, as for an
// id that names nothing. Whether the viewer may see the bytes read is the
// caller's to ask (VisibleParsed).
func (c *Viewer) ReadAt(ctx context.Context, p note.Path, at string) (*repo.Blob, error) {
	if IsRevision(at) {
		ok := c.all
		if !ok {
			was, err := c.v.RevisionWasAt(ctx, p, repo.Revision(at))
			if err != nil {
				return nil, err
			}
			ok = was
		}
		if ok {
			if b, err := c.v.ReadRevision(ctx, repo.Revision(at)); err == nil {
				return &repo.Blob{Path: p, Revision: repo.Revision(at), Content: b}, nil
			}
		}
	}
	return c.v.Read(ctx, p, at)
}

// PublicAt reports whether the note at p with the bytes of revision rev ("": by
// its path alone) may be shown to an actor who may not see private notes: the
// privacy rule for a surface that judges one revision at a time, such as the
// change feed. Settings that do not parse or bytes that cannot be read count as
// private (fail closed).
func (v *Vault) PublicAt(ctx context.Context, p note.Path, rev repo.Revision) bool {
	cfg, _, err := v.Settings.Current(ctx)
	if err != nil {
		return false
	}
	var b []byte
	if rev != "" {
		if b, err = v.ReadRevision(ctx, rev); err != nil {
			return false
		}
	}
	return !notePrivate(cfg, p, b, nil, nil)
}
