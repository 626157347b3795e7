package vault

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/ledger"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// notePrivate is the privacy rule, stated once: the note at p with bytes raw is
// private when it is private by its path (privatePath: under one of cfg's
// privacy folders, or a synthesis registration), or when it is a note
// whose frontmatter says `private: true` (or yes/on), or that carries one of
// cfg's private tags (frontmatter `tags` or an inline #tag). Bytes that do not
// parse but mention "private" or a private tag count as private (fail closed). A
// principal without the private scope sees no private note, anywhere: every
// tool, resource, gate and notification decides with this function (the set of
// notes private at HEAD, privacySet, caches its content half). n and err, when
// either is set, are what note.Parse made of raw. A claim record under
// .norn/claims/ is private as its source note was when the claim was made (its
// `private: true`), and when its source is in a private folder now; one that
// does not decode counts as private (fail closed).
func notePrivate(cfg config.Config, p note.Path, raw []byte, n *note.Note, err error) bool {
	pv := cfg.Privacy
	if privatePath(cfg, p) {
		return true
	}
	if ledger.IsClaimPath(p) {
		c, err := ledger.DecodeClaim(p, raw)
		return err != nil || c.Private || c.Source.Path != "" && cfg.IsPrivate(c.Source.Path, nil)
	}
	if !note.IsNote(p) {
		return false
	}
	if n == nil && err == nil {
		return pv.ContentPrivate(p, raw)
	}
	return pv.ParsedPrivate(n, err, raw)
}

// privatePath reports whether the file at p is private by its path alone: under
// one of cfg's privacy folders, or a synthesis registration (.norn/synthesis/),
// which names its summary in its path and its sources, any of which may be
// private, in its bytes. A caller without the private scope learns of
// registrations only through synthesis_status, which judges each note named.
func privatePath(cfg config.Config, p note.Path) bool {
	return cfg.IsPrivate(p, nil) || ledger.IsRegistrationPath(p)
}

// privacySet follows the notes at HEAD whose content makes them private (their
// frontmatter, or a private tag), for callers without the private scope: built
// once by reading every note, then caught up by a tree diff as HEAD moves, and
// built again when the private tags change. Privacy by folder is not cached (it
// follows the settings).
type privacySet struct {
	mu     sync.Mutex
	ok     bool
	commit repo.CommitID
	tags   string             // the Fingerprint of the settings the set was judged under
	paths  map[note.Path]bool // never changed once published
}

// get returns the notes private by their content at HEAD under pv.
func (s *privacySet) get(ctx context.Context, v *repo.Vault, pv config.Privacy) (map[note.Path]bool, repo.CommitID, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	head := v.Head()
	if s.ok && s.tags != pv.Fingerprint() {
		s.ok = false // judged under other private tags: every note again
	}
	if s.ok && s.commit == head {
		return s.paths, s.commit, nil
	}
	if s.ok && s.commit != "" && head != "" {
		changes, err := v.Diff(ctx, string(s.commit), string(head))
		if err == nil {
			next := maps.Clone(s.paths)
			for _, ch := range changes {
				if !note.IsNote(ch.Path) {
					continue
				}
				delete(next, ch.Path)
				if ch.Kind == repo.Archive {
					continue
				}
				b, err := v.ReadRevision(ctx, ch.Revision)
				if err != nil {
					return nil, "", fmt.Errorf("privacy of %s: %w", ch.Path, err)
				}
				if pv.ContentPrivate(ch.Path, b) {
					next[ch.Path] = true
				}
			}
			s.commit, s.paths = head, next
			return next, head, nil
		}
		if !errors.Is(err, repo.ErrNotFound) {
			return nil, "", fmt.Errorf("privacy: %w", err)
		}
	}
	files, commit, err := v.Files(ctx, "")
	if err != nil {
		return nil, "", fmt.Errorf("privacy: %w", err)
	}
	set := map[note.Path]bool{}
	for _, f := range NotesOnly(files) {
		if err := ctx.Err(); err != nil {
			return nil, "", err
		}
		b, err := v.ReadRevision(ctx, f.Revision)
		if err != nil {
			return nil, "", fmt.Errorf("privacy of %s: %w", f.Path, err)
		}
		if pv.ContentPrivate(f.Path, b) {
			set[f.Path] = true
		}
	}
	s.ok, s.commit, s.tags, s.paths = true, commit, pv.Fingerprint(), set
	return set, commit, nil
}
