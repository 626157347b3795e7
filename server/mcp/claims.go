package mcp

import (
	"context"
	"strings"
	"time"

	"github.com/norn-vault/norn/ledger"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/vault"
)

// addClaimTools registers the claims tools (docs/ledger.md).
func (t *mcpTools) addClaimTools() {
	addTool(t, toolDef{name: "assert_claim", title: "Assert a claim", scope: auth.ScopeWrite,
		desc: "Record a claim: value for (subject, property, scope), read from a source note. It binds to the note's " +
			"current revision (or at: a revision or commit of that note, checked against its history), so claim_value can " +
			"tell when the source changed since. valid_from/valid_to (RFC 3339 or YYYY-MM-DD) bound when it holds; " +
			"supersedes replaces a claim about the same subject, property and scope. One YAML file under .norn/claims/ in " +
			"one commit authored by you; claims never collide. Returns the claim with its id."}, t.assertClaim)
	addTool(t, toolDef{name: "claim_value", title: "Ask a claim's value", scope: auth.ScopeRead, readOnly: true, idempotent: true,
		desc: "What the claims about (subject, property, scope) say now (or at a time): status current with the value and " +
			"its provenance (claim id, source note and revision, who, when); abstained_stale_source when the source note " +
			"changed since (both revisions and the diff's size: re-read it and assert again); abstained_conflict when live " +
			"claims disagree (all of them: supersede the wrong one); expired; not_yet_valid; unknown (none, or retracted). " +
			"Never a silent pick."}, t.claimValue)
	addTool(t, toolDef{name: "claim_history", title: "Claim history", scope: auth.ScopeRead, readOnly: true, idempotent: true,
		desc: "The chain of claims about (subject, property, scope), or about a claim id's: every claim oldest first with " +
			"who asserted it when, its value and source, whether the source is still at that revision, what superseded it " +
			"and whether it is live."}, t.claimHistory)
	addTool(t, toolDef{name: "retract_claim", title: "Retract a claim", scope: auth.ScopeWrite, destructive: true, idempotent: true,
		desc: "Retract a live claim by id: a tombstone claim supersedes it, so its value becomes unknown and nothing is " +
			"deleted (claim_history keeps it). One commit authored by you. Returns the tombstone."}, t.retractClaim)
}

// AssertClaimArgs are assert_claim's arguments.
type AssertClaimArgs struct {
	Subject    string `json:"subject" jsonschema:"what the claim is about, e.g. payments-service"`
	Property   string `json:"property" jsonschema:"which property of the subject, e.g. owner"`
	Scope      string `json:"scope" jsonschema:"where the value holds, e.g. prod, eu, global"`
	Value      string `json:"value" jsonschema:"the value asserted"`
	Source     string `json:"source" jsonschema:"the note the value was read from (path)"`
	At         string `json:"at,omitempty" jsonschema:"bind to this revision of the source (or the source at this commit); default its current revision"`
	ValidFrom  string `json:"valid_from,omitempty" jsonschema:"the value holds from this time (RFC 3339 or YYYY-MM-DD)"`
	ValidTo    string `json:"valid_to,omitempty" jsonschema:"the value holds until this time (RFC 3339 or YYYY-MM-DD)"`
	Supersedes string `json:"supersedes,omitempty" jsonschema:"the id of the claim this one replaces (same subject, property and scope)"`
	DryRun     bool   `json:"dry_run,omitempty" jsonschema:"check everything, write nothing"`
	WaitArg
}

// ClaimWriteResult is what assert_claim and retract_claim did.
type ClaimWriteResult struct {
	WriteResult
	Claim ClaimOut `json:"claim"`
}

// ClaimOut is a claim as the claims tools give it: the record, the state of its
// source now, and in a history what superseded it.
type ClaimOut struct {
	ID         ledger.ClaimID   `json:"id"`
	Kind       ledger.ClaimKind `json:"kind" jsonschema:"assertion, or retraction (a tombstone)"`
	Subject    string           `json:"subject"`
	Property   string           `json:"property"`
	Scope      string           `json:"scope"`
	Value      string           `json:"value,omitempty"`
	Source     *ledger.Source   `json:"source,omitempty" jsonschema:"the note read and the revision read (assertions)"`
	ValidFrom  string           `json:"valid_from,omitempty"`
	ValidTo    string           `json:"valid_to,omitempty"`
	Supersedes ledger.ClaimID   `json:"supersedes,omitempty"`
	AssertedBy repo.Author      `json:"asserted_by"`
	AssertedAt string           `json:"asserted_at"`
	// CurrentRevision is the source's revision at HEAD ("" when it is gone).
	CurrentRevision repo.Revision    `json:"current_revision,omitempty" jsonschema:"the source note's revision now (absent when it is gone)"`
	Fresh           bool             `json:"fresh" jsonschema:"the source note still has the revision read"`
	Diff            *ledger.DiffStat `json:"diff,omitempty" jsonschema:"how much the source changed since (stale claims)"`
	SupersededBy    []ledger.ClaimID `json:"superseded_by,omitempty"`
	Live            *bool            `json:"live,omitempty" jsonschema:"nothing supersedes it (histories)"`
}

func claimOut(b vault.BoundClaim) ClaimOut {
	c := b.Claim
	o := ClaimOut{ID: c.ID, Kind: c.Kind, Subject: c.Subject, Property: c.Property, Scope: c.Scope, Value: c.Value,
		ValidFrom: stamp(c.ValidFrom), ValidTo: stamp(c.ValidTo), Supersedes: c.Supersedes, AssertedBy: c.AssertedBy,
		AssertedAt: stamp(c.AssertedAt), CurrentRevision: b.CurrentRevision, Fresh: b.Fresh, Diff: b.Diff}
	if c.Source != (ledger.Source{}) {
		s := c.Source
		o.Source = &s
	}
	return o
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// timeArg parses a time argument: RFC 3339, or a date (midnight UTC); "" is zero.
func timeArg(name, s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, errInput("%s %q: want RFC 3339 (2026-01-02T15:04:05Z) or a date (2026-01-02)", name, s)
}

func claimIDArg(name, s string, required bool) (ledger.ClaimID, error) {
	if strings.TrimSpace(s) == "" {
		if required {
			return "", errInput("%s is required: a claim id (claim_history lists them)", name)
		}
		return "", nil
	}
	id, err := ledger.ParseClaimID(s)
	if err != nil {
		return "", errInput("%s: %v", name, err)
	}
	return id, nil
}

func (t *mcpTools) assertClaim(ctx context.Context, c *caller, in AssertClaimArgs) (*ClaimWriteResult, error) {
	r := vault.ClaimRequest{Subject: in.Subject, Property: in.Property, Scope: in.Scope, Value: in.Value,
		Source: note.Path(in.Source), At: in.At, DryRun: in.DryRun, Now: t.now()}
	var err error
	if r.ValidFrom, err = timeArg("valid_from", in.ValidFrom); err != nil {
		return nil, err
	}
	if r.ValidTo, err = timeArg("valid_to", in.ValidTo); err != nil {
		return nil, err
	}
	if r.Supersedes, err = claimIDArg("supersedes", in.Supersedes, false); err != nil {
		return nil, err
	}
	w, err := t.v.AssertClaim(ctx, c.p.Actor(), r)
	if err != nil {
		return nil, err
	}
	return &ClaimWriteResult{WriteResult: writeResult(w.Path, w.Result), Claim: claimOut(w.Claim)}, nil
}

// RetractClaimArgs are retract_claim's arguments.
type RetractClaimArgs struct {
	ID     string `json:"id" jsonschema:"the claim to retract"`
	DryRun bool   `json:"dry_run,omitempty" jsonschema:"check everything, write nothing"`
	WaitArg
}

func (t *mcpTools) retractClaim(ctx context.Context, c *caller, in RetractClaimArgs) (*ClaimWriteResult, error) {
	id, err := claimIDArg("id", in.ID, true)
	if err != nil {
		return nil, err
	}
	w, err := t.v.RetractClaim(ctx, c.p.Actor(), vault.RetractRequest{ID: id, DryRun: in.DryRun, Now: t.now()})
	if err != nil {
		return nil, err
	}
	return &ClaimWriteResult{WriteResult: writeResult(w.Path, w.Result), Claim: claimOut(w.Claim)}, nil
}

// ClaimValueArgs are claim_value's arguments.
type ClaimValueArgs struct {
	Subject  string `json:"subject"`
	Property string `json:"property"`
	Scope    string `json:"scope"`
	At       string `json:"at,omitempty" jsonschema:"judge the validity windows at this time (RFC 3339 or YYYY-MM-DD; default now)"`
}

// ClaimValueResult is claim_value's answer.
type ClaimValueResult struct {
	Status   ledger.Status `json:"status" jsonschema:"current, abstained_stale_source, abstained_conflict, expired, not_yet_valid or unknown"`
	Subject  string        `json:"subject"`
	Property string        `json:"property"`
	Scope    string        `json:"scope"`
	At       string        `json:"at" jsonschema:"the time the windows were judged at"`
	Value    string        `json:"value,omitempty" jsonschema:"the value (status current only)"`
	Claims   []ClaimOut    `json:"claims" jsonschema:"the provenance: the current, stale, conflicting, expired or not yet valid claims, or the retraction"`
}

func (t *mcpTools) claimValue(ctx context.Context, c *caller, in ClaimValueArgs) (*ClaimValueResult, error) {
	at, err := timeArg("at", in.At)
	if err != nil {
		return nil, err
	}
	if at.IsZero() {
		at = t.now()
	}
	ans, err := c.ClaimValue(ctx, vault.ClaimQuery{Subject: in.Subject, Property: in.Property, Scope: in.Scope, At: at})
	if err != nil {
		return nil, err
	}
	out := &ClaimValueResult{Status: ans.Status, Subject: ans.Subject, Property: ans.Property, Scope: ans.Scope,
		At: stamp(ans.At), Value: ans.Value, Claims: make([]ClaimOut, 0, len(ans.Claims))}
	for _, b := range ans.Claims {
		out.Claims = append(out.Claims, claimOut(b))
	}
	return out, nil
}

// ClaimHistoryArgs are claim_history's arguments.
type ClaimHistoryArgs struct {
	Subject  string `json:"subject,omitempty"`
	Property string `json:"property,omitempty"`
	Scope    string `json:"scope,omitempty"`
	ID       string `json:"id,omitempty" jsonschema:"instead of subject, property and scope: the chain of this claim"`
}

// ClaimHistoryResult is claim_history's answer.
type ClaimHistoryResult struct {
	Subject  string     `json:"subject"`
	Property string     `json:"property"`
	Scope    string     `json:"scope"`
	Claims   []ClaimOut `json:"claims" jsonschema:"oldest first"`
}

func (t *mcpTools) claimHistory(ctx context.Context, c *caller, in ClaimHistoryArgs) (*ClaimHistoryResult, error) {
	id, err := claimIDArg("id", in.ID, false)
	if err != nil {
		return nil, err
	}
	if id != "" && (in.Subject != "" || in.Property != "" || in.Scope != "") {
		return nil, errInput("give either id or subject, property and scope, not both")
	}
	h, err := c.ClaimHistory(ctx, vault.ClaimQuery{Subject: in.Subject, Property: in.Property, Scope: in.Scope}, id)
	if err != nil {
		return nil, err
	}
	out := &ClaimHistoryResult{Subject: h.Subject, Property: h.Property, Scope: h.Scope, Claims: make([]ClaimOut, 0, len(h.Claims))}
	for _, l := range h.Claims {
		o := claimOut(l.BoundClaim)
		live := l.Live
		o.SupersededBy, o.Live = l.SupersededBy, &live
		out.Claims = append(out.Claims, o)
	}
	return out, nil
}

// NoteClaim is a live claim read from a note, as read_note and search hits carry
// it: what it says, the revision it read and whether the note is still at it.
type NoteClaim struct {
	ID       ledger.ClaimID `json:"id"`
	Subject  string         `json:"subject"`
	Property string         `json:"property"`
	Scope    string         `json:"scope"`
	Value    string         `json:"value"`
	Revision repo.Revision  `json:"revision" jsonschema:"the note's revision the claim read"`
	Fresh    bool           `json:"fresh" jsonschema:"the note is still at that revision (else claim_value abstains: re-read and assert again)"`
}

// maxHitClaims bounds the claims a search hit carries.
const maxHitClaims = 5

func noteClaims(bs []vault.BoundClaim) []NoteClaim {
	out := make([]NoteClaim, 0, len(bs))
	for _, b := range bs {
		out = append(out, NoteClaim{ID: b.ID, Subject: b.Subject, Property: b.Property, Scope: b.Scope, Value: b.Value,
			Revision: b.Source.Revision, Fresh: b.Fresh})
	}
	return out
}

// readClaims adds to out the live claims read from its note (a read at HEAD).
func (c *caller) readClaims(ctx context.Context, out *ReadNoteResult) error {
	cs, total, err := c.NoteClaims(ctx, out.Path, vault.MaxNoteClaims)
	if err != nil || total == 0 {
		return err
	}
	out.Claims, out.ClaimsTotal = noteClaims(cs), total
	return nil
}

// hitClaims adds to each hit the live claims read from its note, at most
// maxHitClaims each.
func (c *caller) hitClaims(ctx context.Context, hits []SearchHit) error {
	paths := make([]note.Path, len(hits))
	for i, h := range hits {
		paths[i] = h.Path
	}
	m, err := c.NotesClaims(ctx, paths, maxHitClaims)
	if err != nil {
		return err
	}
	for i := range hits {
		if cs := m[hits[i].Path]; len(cs) > 0 {
			hits[i].Claims = noteClaims(cs)
		}
	}
	return nil
}
