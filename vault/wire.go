package vault

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/ledger"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// ConfigPath is where a vault keeps its settings, committed with the notes.
const ConfigPath note.Path = ".norn/config.yaml"

// Settings follows a vault's .norn/config.yaml at HEAD and the gates built from it.
// It re-reads the file only when its revision changes. The zero value is not usable;
// call Bind once the vault is open.
type Settings struct {
	mu    sync.Mutex
	vault *repo.Vault
	rev   repo.Revision
	cfg   config.Config
	gates *hooks.Gates
	err   error
	// edges resolves typed edges for the edge-target rules (nil: skipped), hiding
	// the notes the writer may not see (nil: none).
	edges func([]hooks.Change, graph.Hidden) hooks.EdgeResolver
}

// NewSettings returns settings that hold the defaults until Bind.
func NewSettings() *Settings {
	cfg := config.Default()
	return &Settings{cfg: cfg, gates: hooks.New(cfg), rev: "unbound"}
}

// Bind attaches the settings to an open vault.
func (s *Settings) Bind(v *repo.Vault) {
	s.mu.Lock()
	s.vault = v
	s.rev = "unbound"
	s.mu.Unlock()
}

// resolveEdges makes the gates check that the typed edges a write adds name one
// note each (edge-target-missing, edge-target-ambiguous), with fn (an index).
func (s *Settings) resolveEdges(fn func([]hooks.Change, graph.Hidden) hooks.EdgeResolver) {
	s.mu.Lock()
	s.edges = fn
	s.mu.Unlock()
}

// Current returns the vault's settings at HEAD and their gates. A config file that
// does not parse gives the defaults together with the parse error.
func (s *Settings) Current(ctx context.Context) (config.Config, *hooks.Gates, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.current(ctx)
}

// current is Current with s.mu held.
func (s *Settings) current(ctx context.Context) (config.Config, *hooks.Gates, error) {
	if s.vault == nil {
		return s.cfg, s.gates, nil
	}
	rev := s.vault.Revision(ConfigPath)
	if rev == s.rev {
		return s.cfg, s.gates, s.err
	}
	s.rev, s.err = rev, nil
	cfg := config.Default()
	if rev != "" {
		b, err := s.vault.ReadRevision(ctx, rev)
		if err == nil {
			cfg, err = config.Parse(b)
		}
		if err != nil {
			s.err = fmt.Errorf("%s: %w", ConfigPath, err)
			cfg = config.Default()
		}
	}
	s.cfg, s.gates = cfg, hooks.New(cfg)
	return s.cfg, s.gates, s.err
}

// Ignored returns the per-machine settings the vault's .norn/config.yaml at HEAD
// names (ignored: config.Config.Ignored) and the file's revision, which changes
// with every version of the file ("" without one).
func (s *Settings) Ignored(ctx context.Context) (repo.Revision, []config.Warning) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cfg, _, _ := s.current(ctx)
	return s.rev, cfg.Ignored
}

// PathGate is a repo.GateFunc running the gates' path rules alone
// (hooks.Gates.CheckPaths); wire it as repo.Options.PathGate beside Gate.
func (s *Settings) PathGate(ctx context.Context, p *repo.Proposal) error {
	_, gates, _ := s.Current(ctx)
	return gates.CheckPaths(ctx, hooksProposal(p))
}

// hooksProposal is p as the gates take it.
func hooksProposal(p *repo.Proposal) hooks.Proposal {
	hp := hooks.Proposal{
		Writer:    hooks.Writer{Name: p.Author.Name, Roles: p.Roles},
		Op:        string(p.Op),
		IsSymlink: p.IsSymlink,
		Names:     p.Names,
		Twins:     p.Twins,
	}
	for _, c := range p.Changes {
		old := c.Old
		if old == nil && c.OldRevision != "" && c.Kind != repo.Move {
			old = []byte{} // an existing empty note: the gates take nil for "no note"
		}
		hp.Changes = append(hp.Changes, hooks.Change{Kind: hooks.Kind(c.Kind), Path: c.Path, From: c.From, Old: old, New: c.New})
	}
	return hp
}

// configViolations are the gate rules on new bytes of .norn/config.yaml: it must
// parse (config-invalid) and name no per-machine setting (config-machine-key: a
// committed file must never point a machine at a server nor hold a secret).
func configViolations(b []byte) []hooks.Violation {
	cfg, err := config.Parse(b)
	if err != nil {
		v := hooks.Violation{Rule: "config-invalid", Path: ConfigPath, Message: err.Error()}
		var ce *config.Error
		if errors.As(err, &ce) {
			v.Line = ce.Line
		}
		return []hooks.Violation{v}
	}
	var out []hooks.Violation
	for _, w := range cfg.Ignored {
		out = append(out, hooks.Violation{Rule: "config-machine-key", Path: ConfigPath, Line: w.Line, Message: w.Key + ": " + w.Msg})
	}
	return out
}

// errPrivacyUnknown refuses a write by a writer who may not see private notes
// while the vault's settings do not parse: which folders are private is then
// unknown, and the defaults could let it overwrite a private note. It names no
// part of the file (a folder's name may be private). A write that fixes the file
// passes.
var errPrivacyUnknown = hooks.Violation{Rule: "config-invalid", Path: ConfigPath,
	Message: "the vault's settings do not parse, so which notes are private is unknown: writes without the private scope wait until the vault's owner fixes " + string(ConfigPath) + " (norn doctor names every problem)"}

// Gate is a repo.GateFunc running the vault's write gates. A change to
// .norn/config.yaml must itself parse and name no per-machine setting
// (configViolations); one under .norn/claims/ must create a valid claim
// (claimViolations).
//
// The edge-target rules resolve an edge as its writer sees the vault: to a
// writer with neither the owner nor the private role a private note is not there,
// so an edge to one is edge-target-missing, as an edge to a note that does not
// exist (hiddenFrom).
func (s *Settings) Gate(ctx context.Context, p *repo.Proposal) error {
	cfg, gates, cfgErr := s.Current(ctx)
	hp := hooksProposal(p)
	var extra []hooks.Violation
	fixesConfig := false
	for _, c := range p.Changes {
		if c.Path == ConfigPath && c.New != nil {
			vs := configViolations(c.New)
			extra = append(extra, vs...)
			fixesConfig = len(vs) == 0
		}
		if ledger.IsRegistrationPath(c.Path) && c.New != nil {
			extra = append(extra, registrationViolations(c.Path, c.New)...)
		}
		extra = append(extra, claimViolations(c)...)
	}
	if cfgErr != nil && !fixesConfig && !hp.Writer.Has(hooks.RoleOwner) && !hp.Writer.Has(hooks.RolePrivate) {
		extra = append(extra, errPrivacyUnknown)
	}
	s.mu.Lock()
	edges := s.edges
	s.mu.Unlock()
	if edges != nil {
		hp.EdgeTargets = edges(hp.Changes, s.hiddenFrom(ctx, cfg, hp))
	}
	err := gates.Check(ctx, hp)
	if len(extra) == 0 {
		return err
	}
	rej := &hooks.Rejection{}
	if err != nil && !errors.As(err, &rej) {
		return err
	}
	rej.Violations = append(rej.Violations, extra...)
	// Keep the Rejection's order: path, line, rule.
	sort.SliceStable(rej.Violations, func(i, j int) bool {
		a, b := rej.Violations[i], rej.Violations[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Rule < b.Rule
	})
	return rej
}

// hiddenFrom is what the writer of hp may not see (nil: every note is visible to
// it): to a writer with neither the owner nor the private role, the private notes
// (by folder, or by `private: true`) of the vault as hp would leave it. A note hp
// writes is judged by its new bytes, any other by its bytes at HEAD; a note whose
// bytes cannot be read counts as private (fail closed).
func (s *Settings) hiddenFrom(ctx context.Context, cfg config.Config, hp hooks.Proposal) graph.Hidden {
	if hp.Writer.Has(hooks.RoleOwner) || hp.Writer.Has(hooks.RolePrivate) {
		return nil
	}
	s.mu.Lock()
	v := s.vault
	s.mu.Unlock()
	written := map[note.Path][]byte{}
	for _, c := range hp.Changes {
		if c.New != nil {
			written[c.Path] = c.New
		}
	}
	return func(p note.Path) bool {
		if cfg.IsPrivate(p, nil) || !note.IsNote(p) {
			return notePrivate(cfg, p, nil, nil, nil)
		}
		if b, ok := written[p]; ok {
			return notePrivate(cfg, p, b, nil, nil)
		}
		if v == nil {
			return true
		}
		rev := v.Revision(p)
		if rev == "" {
			return false
		}
		b, err := v.ReadRevision(ctx, rev)
		return err != nil || notePrivate(cfg, p, b, nil, nil)
	}
}
