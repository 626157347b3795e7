package vault

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/ledger"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// ClaimRequest asserts Value for (Subject, Property, Scope), read from the note
// at Source: at its current revision, or at At (a revision of that note, or a
// commit-ish at which it existed).
type ClaimRequest struct {
	Subject, Property, Scope, Value string
	Source                          note.Path
	At                              string
	// ValidFrom and ValidTo bound when the value holds (zero: open).
	ValidFrom, ValidTo time.Time
	// Supersedes is the claim this one replaces: same subject, property and scope.
	Supersedes ledger.ClaimID
	// DryRun checks everything and writes nothing.
	DryRun bool
	// Now is the moment of assertion (zero: the clock).
	Now time.Time
}

// ClaimWrite is the claim written (or, for a dry run, that would be) and its
// commit.
type ClaimWrite struct {
	*repo.Result
	Claim BoundClaim
	Path  note.Path
}

// AssertClaim writes a claim as one file under .norn/claims/ in one commit
// (Norn-Op: claim) authored by a. The claims profile applies (ledger.Claim.Check:
// required fields, lengths, a window that is not empty), the source must be a
// note a may see, bound to its current revision or to At checked against the
// note's history, and a superseded claim must be about the same subject,
// property and scope and not already superseded.
//
// Errors: an *InputError or *ledger.ClaimError (repo.ErrInvalid) for a request
// that breaks a rule; repo.ErrNotFound for a source, revision or superseded claim
// that does not exist for a; a gate rejection (repo.ErrRejected). Nothing is
// written then.
func (v *Vault) AssertClaim(ctx context.Context, a Actor, r ClaimRequest) (*ClaimWrite, error) {
	w, err := v.assertClaim(ctx, a, r)
	if err != nil {
		return nil, fmt.Errorf("assert claim: %w", err)
	}
	return w, nil
}

func (v *Vault) assertClaim(ctx context.Context, a Actor, r ClaimRequest) (*ClaimWrite, error) {
	c, err := v.Viewer(ctx, a)
	if err != nil {
		return nil, err
	}
	if _, err := claimKeyArgs(r.Subject, r.Property, r.Scope); err != nil {
		return nil, err
	}
	src, err := c.bindSource(ctx, r.Source, r.At)
	if err != nil {
		return nil, err
	}
	cl := ledger.Claim{Kind: ledger.KindAssertion, Subject: r.Subject, Property: r.Property, Scope: r.Scope,
		Value: r.Value, Source: src, ValidFrom: r.ValidFrom.UTC(), ValidTo: r.ValidTo.UTC(), Supersedes: r.Supersedes,
		Private: v.sourcePrivate(ctx, c.cfg, src)}
	if r.ValidFrom.IsZero() {
		cl.ValidFrom = time.Time{}
	}
	if r.ValidTo.IsZero() {
		cl.ValidTo = time.Time{}
	}
	return v.writeClaim(ctx, a, c, cl, r.Now, r.DryRun)
}

// RetractRequest retracts the claim ID.
type RetractRequest struct {
	ID ledger.ClaimID
	// DryRun checks everything and writes nothing.
	DryRun bool
	// Now is the moment of retraction (zero: the clock).
	Now time.Time
}

// RetractClaim supersedes the claim r.ID with a retraction (a tombstone): the
// value is unknown from then on, and nothing is deleted. The claim must exist
// for a and not be superseded already.
func (v *Vault) RetractClaim(ctx context.Context, a Actor, r RetractRequest) (*ClaimWrite, error) {
	w, err := v.retractClaim(ctx, a, r.ID, r.DryRun, r.Now)
	if err != nil {
		return nil, fmt.Errorf("retract claim %s: %w", r.ID, err)
	}
	return w, nil
}

func (v *Vault) retractClaim(ctx context.Context, a Actor, id ledger.ClaimID, dryRun bool, now time.Time) (*ClaimWrite, error) {
	c, err := v.Viewer(ctx, a)
	if err != nil {
		return nil, err
	}
	rd, err := v.claimReader(ctx)
	if err != nil {
		return nil, err
	}
	old, _, err := c.claimByID(ctx, rd, id)
	if err != nil {
		return nil, err
	}
	cl := ledger.Claim{Kind: ledger.KindRetraction, Subject: old.Subject, Property: old.Property, Scope: old.Scope, Supersedes: id,
		Private: old.Private || v.sourcePrivate(ctx, c.cfg, old.Source)}
	return v.writeClaim(ctx, a, c, cl, now, dryRun)
}

// writeClaim checks cl's supersession, gives it an id and its asserter, and
// commits its file.
func (v *Vault) writeClaim(ctx context.Context, a Actor, c *Viewer, cl ledger.Claim, now time.Time, dryRun bool) (*ClaimWrite, error) {
	if now.IsZero() {
		now = time.Now()
	}
	cl.AssertedBy, cl.AssertedAt = a.Author, now.UTC().Round(0)
	cl.ID = ledger.NewClaimID(&cl)
	if cl.Supersedes != "" {
		if err := c.checkSupersedes(ctx, &cl); err != nil {
			return nil, err
		}
	}
	b, err := ledger.EncodeClaim(&cl)
	if err != nil {
		return nil, err
	}
	p := ledger.ClaimPath(cl.ID)
	what := "= " + cl.Value
	if cl.Kind == ledger.KindRetraction {
		what = "retracted (" + string(cl.Supersedes) + ")"
	}
	roles := append(slices.Clone(a.Roles), hooks.RoleMaintenance) // Norn writes its own records
	res, err := v.Apply(ctx, repo.Tx{Author: a.Author, Roles: roles, Op: repo.OpClaim, DryRun: dryRun,
		Message: repo.Subject(clipSubject(fmt.Sprintf("claim %s %s [%s] %s", cl.Subject, cl.Property, cl.Scope, what))),
		Changes: []repo.Change{{Kind: repo.Put, Path: p, Content: b}}})
	if err != nil {
		return nil, err
	}
	bound, err := c.bind(ctx, cl, false)
	if err != nil {
		return nil, err
	}
	return &ClaimWrite{Result: res, Claim: bound, Path: p}, nil
}

// clipSubject keeps a commit subject under repo.MaxSubjectBytes.
func clipSubject(s string) string {
	if len(s) <= repo.MaxSubjectBytes {
		return s
	}
	i := repo.MaxSubjectBytes - len("…")
	for i > 0 && s[i]&0xc0 == 0x80 {
		i--
	}
	return s[:i] + "…"
}

// checkSupersedes enforces supersession: the claim superseded exists for the
// viewer, is about the same subject, property and scope, and nothing it sees
// supersedes it already (supersede the newer claim instead).
func (c *Viewer) checkSupersedes(ctx context.Context, cl *ledger.Claim) error {
	rd, err := c.v.claimReader(ctx)
	if err != nil {
		return err
	}
	old, group, err := c.claimByID(ctx, rd, cl.Supersedes)
	if err != nil {
		return err
	}
	if !ledger.SameKey(old, cl) {
		return &ledger.ClaimError{Problems: []ledger.Problem{{Rule: "claim-supersedes-key", Field: "supersedes",
			Msg: fmt.Sprintf("claim %s is about subject %q, property %q, scope %q: a claim supersedes only a claim about the same subject, property and scope",
				old.ID, old.Subject, old.Property, old.Scope)}}}
	}
	for _, o := range group {
		if o.Supersedes == old.ID {
			return &InputError{Kind: repo.ErrInvalid, Msg: fmt.Sprintf("claim %s is already superseded by %s (%s): supersede that one instead (claim_history shows the chain)",
				old.ID, o.ID, o.Kind)}
		}
	}
	return nil
}

// bindSource resolves a claim's source: a note the viewer sees, at its current
// revision, or at at — a revision of that note in the history reachable from
// HEAD, or a commit-ish at which the note existed. Anything else is not found.
func (c *Viewer) bindSource(ctx context.Context, p note.Path, at string) (ledger.Source, error) {
	if p == "" {
		return ledger.Source{}, invalidf("source required: the note the value was read from")
	}
	if err := repo.ValidPath(string(p)); err != nil || !note.IsNote(p) || IsNornPath(p) {
		return ledger.Source{}, invalidf("source %q is not a note's path (a vault-relative .md path outside .norn/)", p)
	}
	at = strings.TrimSpace(at)
	if at == "" {
		rev := c.v.Revision(p)
		if rev == "" || !c.Visible(ctx, p) {
			return ledger.Source{}, errNoNote(p)
		}
		return ledger.Source{Path: p, Revision: rev}, nil
	}
	noRevision := missingf(p, "%s has no revision %s: give one of its revisions (history lists them) or a commit at which it existed", p, at)
	if c.v.Revision(p) != "" && !c.Visible(ctx, p) {
		return ledger.Source{}, noRevision // as for a note that never was
	}
	var rev repo.Revision
	if IsRevision(at) {
		was, err := c.v.RevisionWasAt(ctx, p, repo.Revision(strings.ToLower(at)))
		if err != nil {
			return ledger.Source{}, err
		}
		if was {
			rev = repo.Revision(strings.ToLower(at))
		}
	}
	if rev == "" {
		b, err := c.v.Read(ctx, p, at)
		if err != nil {
			if errors.Is(err, repo.ErrNotFound) || errors.Is(err, repo.ErrInvalid) {
				return ledger.Source{}, noRevision
			}
			return ledger.Source{}, err
		}
		rev = b.Revision
	}
	if !c.VisibleAt(ctx, p, rev) {
		return ledger.Source{}, noRevision
	}
	return ledger.Source{Path: p, Revision: rev}, nil
}

// sourcePrivate reports whether a claim's source is private (notePrivate): the
// revision it read, or the note at HEAD. Bytes that cannot be read count as
// private (fail closed).
func (v *Vault) sourcePrivate(ctx context.Context, cfg config.Config, s ledger.Source) bool {
	if s.Path == "" {
		return false
	}
	for _, rev := range []repo.Revision{s.Revision, v.Revision(s.Path)} {
		if rev == "" {
			continue
		}
		b, err := v.ReadRevision(ctx, rev)
		if err != nil || notePrivate(cfg, s.Path, b, nil, nil) {
			return true
		}
	}
	return false
}
