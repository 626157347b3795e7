package vault

import (
	"context"
	"time"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/ledger"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// The answers of a synthesis status.
const (
	// SynthesisCurrent: every source, at every depth, is at its registered
	// revision.
	SynthesisCurrent = "current"
	// SynthesisStale: at least one source drifted (Drifted names each found).
	SynthesisStale = "stale"
	// SynthesisIncomplete: the budget ran out before every source was checked and
	// none checked had drifted. Never current.
	SynthesisIncomplete = "incomplete"
	// SynthesisUnregistered: the note has no registration.
	SynthesisUnregistered = "unregistered"
)

// The scopes a status is judged in.
const (
	// ScopeAll: the viewer sees every note, so every source was judged.
	ScopeAll = "all"
	// ScopeVisible: the viewer may not see private notes, so the status is
	// judged on the sources it sees alone. Every answer to such a viewer says so,
	// whether or not a source is hidden: a private source is never named,
	// counted, or allowed to change the answer.
	ScopeVisible = "visible"
)

// SynthesisBudget is what one response may spend judging summaries: every
// summary it evaluates (synthesis_status's, read_note's, each search hit's)
// draws on the same budget. Checks counts sources compared with their current
// revisions, Bytes the registrations read, and Deadline is cooperative: the walk
// stops at the next check past it. Make one per response (Viewer.SynthesisBudget).
type SynthesisBudget struct {
	Checks     int     `json:"checks"`
	Bytes      int     `json:"bytes"`
	DeadlineMS float64 `json:"deadline_ms"`
	// UsedChecks and UsedBytes are what the response spent.
	UsedChecks int `json:"used_checks"`
	UsedBytes  int `json:"used_bytes"`
	// Exhausted names what ran out first: checks, bytes or deadline ("" when
	// nothing did).
	Exhausted string `json:"exhausted,omitempty"`

	deadline time.Time
	now      func() time.Time
}

// SynthesisBudget returns a fresh budget under the vault's settings
// (config.Synthesis), its deadline running from now.
func (c *Viewer) SynthesisBudget() *SynthesisBudget {
	s := c.cfg.Synthesis
	d := time.Duration(s.Deadline)
	return &SynthesisBudget{Checks: s.Checks, Bytes: s.Bytes, DeadlineMS: float64(d.Microseconds()) / 1000,
		deadline: time.Now().Add(d), now: time.Now}
}

// spend takes one check; false (and Exhausted set) when the budget has run out.
func (b *SynthesisBudget) spend() bool {
	switch {
	case b.Exhausted != "":
		return false
	case b.UsedChecks >= b.Checks:
		b.Exhausted = "checks"
	case b.UsedBytes >= b.Bytes:
		b.Exhausted = "bytes"
	case b.now != nil && b.now().After(b.deadline):
		b.Exhausted = "deadline"
	default:
		b.UsedChecks++
		return true
	}
	return false
}

// SynthesisDrift is one source that drifted from its registered revision.
type SynthesisDrift struct {
	Path note.Path `json:"path"`
	// Via are the registered summaries from the one asked about down to the one
	// that names Path as a source (the one asked about alone for a direct
	// source).
	Via []note.Path `json:"via"`
	// OldRevision is the registered revision, NewRevision the one at HEAD (""
	// when no note is at Path any more: archived, or moved).
	OldRevision repo.Revision `json:"old_revision"`
	NewRevision repo.Revision `json:"new_revision,omitempty"`
	// MovedTo is where the registered bytes are now, when the note was moved
	// without changing them.
	MovedTo note.Path `json:"moved_to,omitempty"`
}

// SynthesisStatus is whether a summary is still faithful to its sources.
type SynthesisStatus struct {
	Summary note.Path `json:"summary"`
	// Status is current, stale, incomplete or unregistered.
	Status string `json:"status"`
	// Scope is all or visible (ScopeVisible).
	Scope string `json:"scope"`
	// Drifted lists every drifted source found, at any depth ([] when none).
	Drifted []SynthesisDrift `json:"drifted"`
	// Checked counts the sources this summary's walk compared.
	Checked int `json:"checked"`
	// Complete: every source at every depth was checked. A stale status can be
	// incomplete too: drift was found before the budget ran out.
	Complete bool `json:"complete"`
	// Depth is how many levels of registered summaries the walk went down.
	Depth int `json:"depth"`
}

// SynthesisStatus walks the sources of summary, and the sources of any source
// that is itself a registered summary, under budget b (shared by everything
// one response evaluates; nil: a fresh one). A path that cannot name a note is
// an *InputError wrapping repo.ErrInvalid; a summary the viewer may not see
// answers as one that does not exist (*InputError, repo.ErrNotFound).
func (c *Viewer) SynthesisStatus(ctx context.Context, summary note.Path, b *SynthesisBudget) (*SynthesisStatus, error) {
	if msg := ledger.NotePathProblem(summary); msg != "" {
		return nil, invalidf("synthesis status of %q: %s", summary, msg)
	}
	if c.v.Revision(summary) == "" || !c.Visible(ctx, summary) {
		return nil, MissingAt(summary, "")
	}
	if b == nil {
		b = c.SynthesisBudget()
	}
	return c.synthesisWalk(ctx, c.v.Index.graphNow(), summary, b)
}

// SynthesisFreshness is a note's synthesis status for read_note and search
// hits: nil when the note is no registered summary (or the viewer may not see
// it), under budget b shared by the response. With the index unavailable, a
// note is looked up in the files at HEAD.
func (c *Viewer) SynthesisFreshness(ctx context.Context, p note.Path, b *SynthesisBudget) (*SynthesisStatus, error) {
	if !note.IsNote(p) || IsNornPath(p) || !c.Visible(ctx, p) {
		return nil, nil
	}
	st, err := c.synthesisWalk(ctx, c.v.Index.graphNow(), p, b)
	if err != nil || st.Status == SynthesisUnregistered {
		return nil, err
	}
	return st, nil
}

// walkItem is a registered summary waiting to be expanded, with the summaries
// above it.
type walkItem struct {
	reg *ledger.Registration
	via []note.Path
}

// synthesisWalk is the breadth-first walk of SynthesisStatus. Each summary is
// expanded once (so cycles end); each visible source costs one check; a source
// the viewer may not see costs nothing and is never named.
func (c *Viewer) synthesisWalk(ctx context.Context, ix *graph.Index, top note.Path, b *SynthesisBudget) (*SynthesisStatus, error) {
	st := &SynthesisStatus{Summary: top, Scope: ScopeVisible, Drifted: []SynthesisDrift{}}
	if c.all {
		st.Scope = ScopeAll
	}
	reg, n, err := c.v.registration(ctx, ix, top)
	if err != nil {
		return nil, err
	}
	if reg == nil {
		st.Status, st.Complete = SynthesisUnregistered, true
		return st, nil
	}
	b.UsedBytes += n
	expanded := map[note.Path]bool{top: true}
	queue := []walkItem{{reg: reg, via: []note.Path{top}}}
	complete := true
	var moved map[repo.Revision]note.Path
walk:
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		it := queue[0]
		queue = queue[1:]
		st.Depth = max(st.Depth, len(it.via))
		for _, s := range it.reg.Sources {
			cur := c.v.Revision(s.Path)
			if !c.sourceVisible(ctx, s, cur) {
				continue
			}
			if !b.spend() {
				complete = false
				break walk
			}
			st.Checked++
			if cur != s.Revision {
				d := SynthesisDrift{Path: s.Path, Via: it.via, OldRevision: s.Revision, NewRevision: cur}
				if cur == "" {
					moved = c.movedBlobs(ctx, moved)
					d.MovedTo = moved[s.Revision]
				}
				st.Drifted = append(st.Drifted, d)
			}
			if cur == "" || expanded[s.Path] {
				continue
			}
			sub, n, err := c.v.registration(ctx, ix, s.Path)
			if err != nil {
				return nil, err
			}
			b.UsedBytes += n
			if sub != nil {
				expanded[s.Path] = true
				queue = append(queue, walkItem{reg: sub, via: append(it.via[:len(it.via):len(it.via)], s.Path)})
			}
		}
	}
	st.Complete = complete && len(queue) == 0
	switch {
	case len(st.Drifted) > 0:
		st.Status = SynthesisStale
	case st.Complete:
		st.Status = SynthesisCurrent
	default:
		st.Status = SynthesisIncomplete
	}
	return st, nil
}

// movedBlobs maps the revisions of the notes at HEAD the viewer sees to their
// paths, once per walk (m when already built), to find where a source that left
// its path went with its bytes unchanged.
func (c *Viewer) movedBlobs(ctx context.Context, m map[repo.Revision]note.Path) map[repo.Revision]note.Path {
	if m != nil {
		return m
	}
	m = map[repo.Revision]note.Path{}
	files, _, err := c.v.Files(ctx, "")
	if err != nil {
		return m
	}
	for _, f := range NotesOnly(files) {
		if _, taken := m[f.Revision]; !taken && !IsNornPath(f.Path) && c.Visible(ctx, f.Path) {
			m[f.Revision] = f.Path
		}
	}
	return m
}
