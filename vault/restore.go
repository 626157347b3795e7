package vault

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// RestoreRequest asks to bring back at Path the bytes it had at commit From, or
// the blob Revision (exactly one of them).
type RestoreRequest struct {
	Path     note.Path
	From     string
	Revision repo.Revision
	Author   repo.Author
	Roles    []string
	Message  string
	DryRun   bool
	// Hidden hides notes the requester may not see (nil: none): a hidden note at
	// Path is never written over (an *InputError naming it).
	Hidden graph.Hidden
	// Readable reports whether the requester may read a note's bytes raw at path
	// p (nil: any). A source it may not read answers as one that does not exist.
	Readable func(p note.Path, raw []byte) bool
}

// RestoreNote restores r's source at r.Path in one commit (Norn-Op: restore). It
// never overwrites: an existing note at Path is a conflict.
func (v *Vault) RestoreNote(ctx context.Context, r RestoreRequest) (*NoteWrite, error) {
	p := r.Path
	if (r.From == "") == (r.Revision == "") {
		return nil, invalidf("give exactly one of from (a commit) and revision (a blob id)")
	}
	if err := v.restorable(ctx, r); err != nil {
		return nil, err
	}
	if v.hiddenAt(r.Hidden, p) {
		return nil, TakenBy(p) // a restore never overwrites
	}
	var rl []Relink
	if b := v.restoredBytes(ctx, r); b != nil && v.Revision(p) == "" {
		rl = v.Relinks(ctx, []repo.Change{{Kind: repo.Put, Path: p, Content: b}}, r.Hidden)
	}
	ch := repo.Change{Kind: repo.Restore, Path: p, FromCommit: r.From, FromRevision: r.Revision}
	res, err := v.Apply(ctx, repo.Tx{Author: r.Author, Roles: r.Roles, Op: repo.OpRestore, Message: strings.TrimSpace(r.Message), DryRun: r.DryRun, Changes: []repo.Change{ch}})
	if err != nil {
		return nil, fmt.Errorf("restore %s: %w", p, err)
	}
	out := noteWrite(p, res, "", rl)
	return out, nil
}

// restoredBytes returns the bytes a restore would bring back (nil when they cannot
// be read: Apply then says why).
func (v *Vault) restoredBytes(ctx context.Context, r RestoreRequest) []byte {
	if r.Revision != "" {
		if !IsRevision(string(r.Revision)) {
			return nil
		}
		b, _ := v.ReadRevision(ctx, r.Revision)
		return b
	}
	blob, err := v.Read(ctx, r.Path, r.From)
	if err != nil {
		return nil
	}
	return blob.Content
}

// restorable refuses, for a requester with a Readable, a restore whose source it
// could not read: bytes that were not at path p itself in the history reachable
// from HEAD (a blob id names bytes, not a place, so any blob, a private note's
// included, would otherwise be copied to p), or that it may not read there.
// Either answers exactly as a source that does not exist does, so neither a
// blob's existence nor a private note's past is told.
func (v *Vault) restorable(ctx context.Context, r RestoreRequest) error {
	p := r.Path
	if r.Readable == nil || v.Revision(p) != "" && !v.hiddenAt(r.Hidden, p) {
		return nil // an existing (visible) path is a conflict, whatever the source
	}
	if r.Revision != "" {
		if !IsRevision(string(r.Revision)) {
			return nil // Apply refuses a malformed id as invalid, as for anyone
		}
		was, err := v.RevisionWasAt(ctx, p, r.Revision)
		if err != nil {
			return fmt.Errorf("restore %s: %w", p, err)
		}
		var b []byte
		if was {
			if b, err = v.ReadRevision(ctx, r.Revision); err != nil && !errors.Is(err, repo.ErrNotFound) {
				return fmt.Errorf("restore %s: %w", p, err)
			}
		}
		if !was || b == nil || !r.Readable(p, b) {
			return missingf(p, "no revision %s of %s in its history: take one from history path=%s or diff", r.Revision, p, p)
		}
		return nil
	}
	blob, err := v.Read(ctx, p, r.From)
	if errors.Is(err, repo.ErrNotFound) {
		return MissingAt(p, r.From)
	}
	if err != nil {
		return fmt.Errorf("restore %s: %w", p, err)
	}
	if !r.Readable(p, blob.Content) {
		return MissingAt(p, r.From)
	}
	return nil
}

// MissingAt is the error for a note missing (or hidden) at a commit ("": HEAD).
func MissingAt(p note.Path, at string) *InputError {
	if at == "" {
		return missingf(p, "no note %s: check the path with list_notes or search", p)
	}
	return missingf(p, "no note %s at %s: check the path and the commit (history path=%s)", p, at, p)
}

// IsRevision reports whether s is a 40-character hex object id.
func IsRevision(s string) bool {
	if len(s) != 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
