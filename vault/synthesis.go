package vault

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/ledger"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// SynthesisRequest registers Summary as written from Sources at their current
// revisions (Viewer.RegisterSynthesis).
type SynthesisRequest struct {
	Summary note.Path
	Sources []note.Path
	// Author is the registering agent: the commit's author.
	Author repo.Author
	Roles  []string
}

// SynthesisRegistered is what a registration recorded.
type SynthesisRegistered struct {
	Summary note.Path `json:"summary"`
	// Revision is the summary's revision when it was registered.
	Revision repo.Revision   `json:"revision"`
	Sources  []ledger.Source `json:"sources"`
	// File is the registration's file (under .norn/synthesis/).
	File   note.Path     `json:"file"`
	Commit repo.CommitID `json:"commit,omitempty"`
	// Unchanged: the same sources at the same revisions were registered already,
	// so nothing was committed.
	Unchanged bool `json:"unchanged,omitempty"`
}

// RegisterSynthesis records r.Sources, at their revisions at HEAD, as the sources
// of r.Summary: one YAML file per summary (ledger.RegistrationPath), written in
// one commit authored by r.Author (Norn-Op: claim — a registration is a claim
// about which revisions a summary was written from, so it shares the ledger's
// trailer with claims). Registering again replaces the sources in a new commit;
// history keeps the old ones.
//
// Every argument is checked before anything is written: 1 to ledger.MaxSources
// sources, each a note (not the summary, named once), summary and sources
// existing at HEAD. A note the registering actor may not see answers exactly as
// one that does not exist. A refusal is an *InputError; nothing is written.
func (c *Viewer) RegisterSynthesis(ctx context.Context, r SynthesisRequest) (*SynthesisRegistered, error) {
	reg, err := c.newRegistration(ctx, r.Summary, r.Sources)
	if err != nil {
		return nil, err
	}
	b, err := ledger.EncodeRegistration(reg)
	if err != nil {
		return nil, invalidf("register synthesis of %s: %v", r.Summary, err)
	}
	file := ledger.RegistrationPath(reg.Summary)
	roles := append(slices.Clone(r.Roles), hooks.RoleMaintenance) // Norn writes its own record under .norn/
	msg := fmt.Sprintf("synthesis: register %s (%d sources)", cutSubject(string(reg.Summary)), len(reg.Sources))
	head := c.v.Head()
	res, err := c.v.Apply(ctx, repo.Tx{Author: r.Author, Roles: roles, Op: repo.OpClaim, Message: msg, Base: head,
		Changes: []repo.Change{{Kind: repo.Put, Path: file, Content: b, ExpectedRevision: c.v.Revision(file)}}})
	if err != nil {
		return nil, fmt.Errorf("register synthesis of %s: %w", reg.Summary, err)
	}
	return &SynthesisRegistered{Summary: reg.Summary, Revision: c.v.Revision(reg.Summary), Sources: reg.Sources,
		File: file, Commit: res.Commit, Unchanged: res.Unchanged}, nil
}

// cutSubject shortens a path for a commit subject.
func cutSubject(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// newRegistration checks a registration's arguments as c sees the vault and
// binds each source to its revision at HEAD.
func (c *Viewer) newRegistration(ctx context.Context, summary note.Path, sources []note.Path) (*ledger.Registration, error) {
	switch n := len(sources); {
	case n == 0:
		return nil, invalidf("register synthesis of %s: name 1 to %d source notes", summary, ledger.MaxSources)
	case n > ledger.MaxSources:
		return nil, invalidf("register synthesis of %s: %d sources, at most %d: summarise in layers (register intermediate summaries and name those)",
			summary, n, ledger.MaxSources)
	}
	if err := c.registeredNote(ctx, "summary", summary); err != nil {
		return nil, err
	}
	seen := map[note.Path]bool{}
	out := make([]ledger.Source, 0, len(sources))
	for _, p := range sources {
		switch {
		case p == summary:
			return nil, invalidf("register synthesis of %s: the summary cannot be its own source", summary)
		case seen[p]:
			return nil, invalidf("register synthesis of %s: source %s named twice", summary, p)
		}
		seen[p] = true
		if err := c.registeredNote(ctx, "source", p); err != nil {
			return nil, err
		}
		out = append(out, ledger.Source{Path: p, Revision: c.v.Revision(p)})
	}
	reg, err := ledger.NewRegistration(summary, out)
	if err != nil {
		return nil, invalidf("register synthesis of %s: %v", summary, err)
	}
	return reg, nil
}

// registeredNote refuses p as a registration's summary or source (what) unless
// it is a note at HEAD that c sees.
func (c *Viewer) registeredNote(ctx context.Context, what string, p note.Path) error {
	if msg := ledger.NotePathProblem(p); msg != "" {
		return invalidf("%s %q: %s", what, p, msg)
	}
	if c.v.Revision(p) == "" || !c.Visible(ctx, p) {
		return MissingAt(p, "")
	}
	return nil
}

// synthesisTable is the index's table of registrations: the summary's path →
// its sources (encodeSources), or, for a registration that does not decode, a
// '!' and why.
const synthesisTable = "synthesis"

// encodeSources is a registration's row value: "<revision> <path>\n" per source.
func encodeSources(r *ledger.Registration) []byte {
	var b bytes.Buffer
	for _, s := range r.Sources {
		b.WriteString(string(s.Revision))
		b.WriteByte(' ')
		b.WriteString(string(s.Path))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// decodeSources reads a row value back (decodeRow checks the summary).
func decodeSources(summary note.Path, v []byte) (*ledger.Registration, error) {
	if len(v) > 0 && v[0] == '!' {
		return nil, badRegistration(summary, string(v[1:]))
	}
	r := &ledger.Registration{Summary: summary}
	for line := range bytes.Lines(v) {
		rev, p, ok := bytes.Cut(bytes.TrimSuffix(line, []byte("\n")), []byte(" "))
		if !ok {
			return nil, fmt.Errorf("synthesis row of %s: %w", summary, graph.ErrCorrupt)
		}
		r.Sources = append(r.Sources, ledger.Source{Path: note.Path(p), Revision: repo.Revision(rev)})
	}
	return r, nil
}

// badRegistration is the error for a registration file that does not decode (a
// hand edit, a pull): registering again replaces it.
func badRegistration(summary note.Path, why string) error {
	return &InputError{Kind: repo.ErrInvalid, Path: summary,
		Msg: fmt.Sprintf("the registration of %s (%s) does not decode: %s; register its sources again (register_synthesis)", summary, ledger.RegistrationPath(summary), why)}
}

// decodeRegistrationFile decodes the registration file at p holding b: the
// summary it is of, and the registration or why it does not decode.
func decodeRegistrationFile(p note.Path, b []byte) (note.Path, *ledger.Registration, error) {
	summary, ok := ledger.SummaryOf(p)
	if !ok {
		return "", nil, fmt.Errorf("%w: %s is not a registration's path (.norn/synthesis/<summary>.md.yaml)", ledger.ErrInvalidRegistration, p)
	}
	r, err := ledger.DecodeRegistration(b)
	if err == nil && r.Summary != summary {
		err = fmt.Errorf("%w: the file of %s registers %s", ledger.ErrInvalidRegistration, summary, r.Summary)
	}
	return summary, r, err
}

// registrationRow is the row for the registration file at p with bytes b (ok
// false for a file under .norn/synthesis/ that is no registration's path).
func registrationRow(p note.Path, b []byte) (graph.Row, bool) {
	summary, r, err := decodeRegistrationFile(p, b)
	if summary == "" {
		return graph.Row{}, false
	}
	row := graph.Row{Table: synthesisTable, Key: []byte(summary)}
	if err != nil {
		row.Value = []byte("!" + strings.TrimPrefix(err.Error(), ledger.ErrInvalidRegistration.Error()+": "))
	} else {
		row.Value = encodeSources(r)
	}
	return row, true
}

// synthesisDeriver keeps the synthesis table in step with the registration
// files: a rebuild reads every one at HEAD, a catch-up the ones a diff changes.
type synthesisDeriver struct{}

func (synthesisDeriver) AllRows(ctx context.Context, v *repo.Vault, head repo.CommitID, files []repo.File) iter.Seq2[graph.Row, error] {
	return func(yield func(graph.Row, error) bool) {
		for _, f := range files {
			if !ledger.IsRegistrationPath(f.Path) {
				continue
			}
			b, err := v.ReadRevision(ctx, f.Revision)
			if err != nil {
				yield(graph.Row{}, fmt.Errorf("read %s: %w", f.Path, err))
				return
			}
			if row, ok := registrationRow(f.Path, b); ok && !yield(row, nil) {
				return
			}
		}
	}
}

func (synthesisDeriver) ChangedRows(ctx context.Context, v *repo.Vault, from, to repo.CommitID, changes []repo.FileChange) ([]graph.Row, error) {
	var rows []graph.Row
	drop := func(p note.Path) {
		if s, ok := ledger.SummaryOf(p); ok {
			rows = append(rows, graph.Row{Table: synthesisTable, Key: []byte(s), Delete: true})
		}
	}
	for _, c := range changes {
		if c.Kind == repo.Move && ledger.IsRegistrationPath(c.From) {
			drop(c.From)
		}
		if !ledger.IsRegistrationPath(c.Path) {
			continue
		}
		if c.Kind == repo.Archive {
			drop(c.Path)
			continue
		}
		b, err := v.ReadRevision(ctx, c.Revision)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", c.Path, err)
		}
		if row, ok := registrationRow(c.Path, b); ok {
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// registration returns the registration of summary at HEAD and the bytes read
// for it (nil, 0 when there is none): from the index's synthesis table when ix
// is at HEAD, else from the file at HEAD. Both give the same answer.
func (v *Vault) registration(ctx context.Context, ix *graph.Index, summary note.Path) (*ledger.Registration, int, error) {
	if ix != nil {
		val, ok, err := ix.LookupRow(synthesisTable, []byte(summary))
		if err == nil {
			if !ok {
				return nil, 0, nil
			}
			r, err := decodeSources(summary, val)
			return r, len(val), err
		}
		if !errors.Is(err, graph.ErrClosed) {
			return nil, 0, fmt.Errorf("synthesis of %s: %w", summary, err)
		}
	}
	file := ledger.RegistrationPath(summary)
	rev := v.Revision(file)
	if rev == "" {
		return nil, 0, nil
	}
	b, err := v.ReadRevision(ctx, rev)
	if err != nil {
		return nil, 0, fmt.Errorf("synthesis of %s: %w", summary, err)
	}
	_, r, err := decodeRegistrationFile(file, b)
	if err != nil {
		return nil, len(b), badRegistration(summary, strings.TrimPrefix(err.Error(), ledger.ErrInvalidRegistration.Error()+": "))
	}
	return r, len(b), nil
}

// registrationViolations are the gate rules on a registration file's new bytes
// (rule synthesis-invalid): whoever writes it (a hand edit, a pull), it must
// decode and register the summary its path names.
func registrationViolations(p note.Path, b []byte) []hooks.Violation {
	if _, _, err := decodeRegistrationFile(p, b); err != nil {
		return []hooks.Violation{{Rule: "synthesis-invalid", Path: p, Message: err.Error() + "; register sources with register_synthesis (docs/ledger.md)"}}
	}
	return nil
}
