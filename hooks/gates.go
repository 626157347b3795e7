package hooks

import (
	"context"
	"fmt"
	"strings"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/note"
)

// Gates checks proposals against a vault's settings. It is immutable after New and
// safe for concurrent use.
type Gates struct {
	cfg      config.Config
	profile  config.Profile
	maxBytes int
	types    map[string]bool
}

// New returns the gates for cfg, which should come from config.Parse or
// config.Default. A zero gates.profile counts as "default" and a profile New does not
// know as "strict" (fail closed); a gates.max_note_bytes ≤ 0 counts as the default
// 1 MiB. Everything else is used as given: an empty edges.types allows no typed edge.
func New(cfg config.Config) *Gates {
	g := &Gates{cfg: cfg, profile: cfg.Gates.Profile, maxBytes: cfg.Gates.MaxNoteBytes}
	switch g.profile {
	case "":
		g.profile = config.ProfileDefault
	case config.ProfileDefault, config.ProfileStrict, config.ProfileOff:
	default:
		g.profile = config.ProfileStrict
	}
	if g.maxBytes <= 0 {
		g.maxBytes = config.Default().Gates.MaxNoteBytes
	}
	g.types = make(map[string]bool, len(cfg.Edges.Types))
	for _, t := range cfg.Edges.Types {
		g.types[t] = true
	}
	return g
}

// Check runs every gate over every change of p. It returns nil when all pass, a
// *Rejection (errors.Is(err, ErrRejected)) holding every violation of every change,
// sorted by path, line and rule, when any fails; an error matching
// ErrInvalidProposal when p itself is malformed; or ctx's error. It never writes.
func (g *Gates) Check(ctx context.Context, p Proposal) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	for i, c := range p.Changes {
		if err := validChange(c); err != nil {
			return fmt.Errorf("check change %d (%s): %w", i, c.Path, err)
		}
	}
	var vs []Violation
	var created []note.Path
	for i, c := range p.Changes {
		if i%64 == 63 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		cvs, fresh := g.change(p, c)
		vs = append(vs, cvs...)
		if fresh {
			created = append(created, c.Path)
		}
	}
	vs = append(vs, caseCollisions(p, created)...)
	return reject(vs)
}

// CheckPaths runs path safety alone over every path of p (each change's Path, and a
// move's From): path-invalid, path-absolute, path-dotdot, path-git-dir,
// path-norn-dir (with p's writer), path-not-markdown and path-symlink-escape (with
// p.IsSymlink). The changes' bytes are ignored. It returns nil or a *Rejection, like
// Check. Package repo calls it (through its PathGate option) for a path it refuses
// before it could read the bytes Check needs, so that every path refusal is a
// rejection naming its rule.
func (g *Gates) CheckPaths(ctx context.Context, p Proposal) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var vs []Violation
	for _, c := range p.Changes {
		vs = append(vs, g.pathRules(p, string(c.Path), c.Kind != KindArchive)...)
		if c.Kind == KindMove {
			vs = append(vs, g.pathRules(p, string(c.From), false)...)
		}
	}
	return reject(vs)
}

// Lint runs the content rules alone over a note's bytes, as Check would for a put of
// raw at p: content-nul, the size limit, the note codec's rules, the profile's rules
// and the typed edge rules. It skips path safety, protected blocks and private notes,
// which need a writer and a previous revision (LintPaths judges existing paths).
// `norn doctor` reports its result as warnings over existing notes. The violations
// are sorted; nil means none.
func (g *Gates) Lint(p note.Path, raw []byte) []Violation {
	vs := g.size(p, raw)
	if len(vs) == 0 {
		vs = append(vs, g.content(p, raw)...)
	}
	vs = append(vs, nulViolations(p, raw, nil)...)
	if len(vs) == 0 {
		return nil
	}
	sortViolations(vs)
	return vs
}

// validChange reports a malformed change (a bug in the caller).
func validChange(c Change) error {
	switch c.Kind {
	case KindPut, KindRestore:
		if c.From != "" {
			return fmt.Errorf("%w: a %s has no From", ErrInvalidProposal, c.Kind)
		}
	case KindMove:
		if c.From == "" {
			return fmt.Errorf("%w: a move needs From", ErrInvalidProposal)
		}
	case KindArchive:
		if c.From != "" || c.New != nil {
			return fmt.Errorf("%w: an archive has no From and no New", ErrInvalidProposal)
		}
	default:
		return fmt.Errorf("%w: unknown change kind %q (want put, archive, move or restore)", ErrInvalidProposal, c.Kind)
	}
	return nil
}

// change runs every gate over one change. fresh reports a path the change creates
// that is safe to compare with the tree (for path-case-collision).
func (g *Gates) change(p Proposal, c Change) (vs []Violation, fresh bool) {
	existing := c.Path // where Old is
	if c.Kind == KindMove {
		existing = c.From
	}
	vs = g.pathRules(p, string(c.Path), c.Kind != KindArchive)
	if creates(c) && safeForLookup(vs) {
		vs = append(vs, portableViolations(c.Path)...)
		fresh = true
	}
	if c.Kind == KindMove {
		vs = append(vs, g.pathRules(p, string(c.From), false)...)
	}
	if c.Kind != KindArchive {
		vs = append(vs, nulViolations(c.Path, c.New, c.Old)...)
		size := g.size(c.Path, c.New)
		vs = append(vs, size...)
		// A note over the limit is not parsed: its size is the one thing to fix, and
		// parsing it would let a writer make the gates do unbounded work.
		if len(size) == 0 && isNotePath(string(c.Path)) {
			cvs, n := g.changeContent(c, existing)
			vs = append(vs, cvs...)
			if n != nil && p.EdgeTargets != nil && (c.Kind == KindPut || c.Kind == KindMove) {
				vs = append(vs, g.edgeTargets(p.EdgeTargets, c, n)...)
			}
		}
	}
	if c.Old != nil {
		vs = append(vs, g.protectedBlocks(p.Writer, c, existing)...)
		vs = append(vs, g.privateNote(p.Writer, c, existing)...)
	}
	return vs, fresh
}

// creates reports whether c adds its path to the tree: a put of a note that does
// not exist (no Old), a move's new path, a restore. Only such paths are judged by
// path-portable and path-case-collision.
func creates(c Change) bool {
	return c.Kind == KindMove || c.Kind == KindRestore || c.Kind == KindPut && c.Old == nil
}

// pathRules applies path safety to one path, with the writer's roles and the
// repository's symlinks; written says the change creates a file at path (see
// ValidPath).
func (g *Gates) pathRules(p Proposal, path string, written bool) []Violation {
	vs := pathViolations(path, written)
	if inNornDir(path) && !p.Writer.Has(RoleMaintenance) && !p.Writer.Has(RoleAdmin) && !p.Writer.Has(RoleOwner) {
		vs = append(vs, Violation{Rule: RulePathNornDir, Path: note.Path(path),
			Message: "only Norn itself (the maintenance role), an admin or the vault's owner may write under .norn/; write notes elsewhere"})
	}
	if p.IsSymlink != nil && safeForLookup(vs) {
		if link, ok := symlinkOn(path, p.IsSymlink); ok {
			what := "the folder " + link
			if link == path {
				what = "the file itself"
			}
			vs = append(vs, Violation{Rule: RulePathSymlinkEscape, Path: note.Path(path),
				Message: fmt.Sprintf("%s is a symbolic link, so the write could land outside the vault; write to the real path instead", what)})
		}
	}
	return vs
}

// safeForLookup reports whether a path is well-formed enough to hand to IsSymlink.
func safeForLookup(vs []Violation) bool {
	for _, v := range vs {
		switch v.Rule {
		case RulePathInvalid, RulePathAbsolute, RulePathDotDot, RulePathGitDir:
			return false
		}
	}
	return true
}

// symlinkOn returns the first folder prefix of path, or path itself, that isLink
// reports as a symlink.
func symlinkOn(path string, isLink func(string) bool) (string, bool) {
	for i := 0; i < len(path); i++ {
		if path[i] == '/' && isLink(path[:i]) {
			return path[:i], true
		}
	}
	if isLink(path) {
		return path, true
	}
	return "", false
}

// isNotePath reports whether the content rules apply to path: a Markdown note, not a
// file under .norn/.
func isNotePath(path string) bool {
	return !inNornDir(path) && note.IsNote(note.Path(path))
}

// size applies note-too-large.
func (g *Gates) size(p note.Path, b []byte) []Violation {
	if len(b) <= g.maxBytes {
		return nil
	}
	return []Violation{{Rule: RuleNoteTooLarge, Path: p,
		Message: fmt.Sprintf("the file is %d bytes; the limit (gates.max_note_bytes) is %d bytes (%s): split it into smaller notes that link to each other",
			len(b), g.maxBytes, human(g.maxBytes))}}
}

// human formats a byte count: "1 MiB", "1.5 KiB", "900 bytes".
func human(n int) string {
	switch {
	case n >= 1<<20:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/(1<<20))) + " MiB"
	case n >= 1<<10:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/(1<<10))) + " KiB"
	}
	return fmt.Sprintf("%d bytes", n)
}

func trimZero(s string) string { return strings.TrimSuffix(s, ".0") }
