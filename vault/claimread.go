package vault

import (
	"context"
	"time"

	"github.com/norn-vault/norn/ledger"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// ClaimQuery names what claims are about — a subject, a property and a scope —
// and the moment their validity windows are judged at (zero: now).
type ClaimQuery struct {
	Subject, Property, Scope string
	At                       time.Time
}

// BoundClaim is a claim with the state of its source now.
type BoundClaim struct {
	ledger.Claim
	// CurrentRevision is the source note's revision at HEAD ("" when the note is
	// no longer there, and for a retraction).
	CurrentRevision repo.Revision `json:"current_revision,omitempty"`
	// Fresh: the source note still has the revision the claim read.
	Fresh bool `json:"fresh"`
	// Diff is the size of the change since, for a stale claim whose source is
	// still there (claim_value's abstained_stale_source).
	Diff *ledger.DiffStat `json:"diff,omitempty"`
}

// ClaimAnswer is claim_value's answer: a status, never a silent pick, with the
// claims behind it (ledger.Resolve).
type ClaimAnswer struct {
	Status   ledger.Status `json:"status"`
	Subject  string        `json:"subject"`
	Property string        `json:"property"`
	Scope    string        `json:"scope"`
	At       time.Time     `json:"at"`
	// Value is the current value (status current only).
	Value string `json:"value,omitempty"`
	// Claims are the provenance: the current claim(s), the stale ones with both
	// revisions and the diff's size, the conflicting ones, the expired or not
	// yet valid ones, or the retraction that left the value unknown.
	Claims []BoundClaim `json:"claims"`
}

// ClaimValue answers what the claims about q's subject, property and scope say
// at q.At, from the claims the viewer may see (a claim whose source is hidden
// from it does not exist for it).
func (c *Viewer) ClaimValue(ctx context.Context, q ClaimQuery) (*ClaimAnswer, error) {
	key, err := claimKeyArgs(q.Subject, q.Property, q.Scope)
	if err != nil {
		return nil, err
	}
	at := q.At
	if at.IsZero() {
		at = time.Now()
	}
	rd, err := c.v.claimReader(ctx)
	if err != nil {
		return nil, err
	}
	claims, err := c.claimsAbout(ctx, rd, key)
	if err != nil {
		return nil, err
	}
	res := ledger.Resolve(claims, at, func(cl *ledger.Claim) bool { return c.v.Revision(cl.Source.Path) == cl.Source.Revision })
	out := &ClaimAnswer{Status: res.Status, At: at.UTC(), Claims: make([]BoundClaim, 0, len(res.Claims))}
	out.Subject, out.Property, out.Scope = splitKey(key)
	for _, cl := range res.Claims {
		b, err := c.bind(ctx, cl, res.Status == ledger.StatusStaleSource)
		if err != nil {
			return nil, err
		}
		out.Claims = append(out.Claims, b)
	}
	if res.Status == ledger.StatusCurrent {
		out.Value = res.Claims[0].Value
	}
	return out, nil
}

// bind adds the state of cl's source now, and with diff the size of its change.
func (c *Viewer) bind(ctx context.Context, cl ledger.Claim, diff bool) (BoundClaim, error) {
	b := BoundClaim{Claim: cl}
	if cl.Kind != ledger.KindAssertion {
		return b, nil
	}
	b.CurrentRevision = c.v.Revision(cl.Source.Path)
	b.Fresh = b.CurrentRevision == cl.Source.Revision
	if b.Fresh || !diff || b.CurrentRevision == "" {
		return b, nil
	}
	before, err := c.v.ReadRevision(ctx, cl.Source.Revision)
	if err != nil {
		return b, err
	}
	after, err := c.v.ReadRevision(ctx, b.CurrentRevision)
	if err != nil {
		return b, err
	}
	d := ledger.Diff(before, after)
	b.Diff = &d
	return b, nil
}

func splitKey(key string) (subject, property, scope string) {
	var parts [3]string
	i := 0
	start := 0
	for j := 0; j < len(key) && i < 2; j++ {
		if key[j] == 0 {
			parts[i] = key[start:j]
			i++
			start = j + 1
		}
	}
	parts[2] = key[start:]
	return parts[0], parts[1], parts[2]
}

// ClaimLink is one claim of a history: its source's state now and what
// superseded it.
type ClaimLink struct {
	BoundClaim
	// SupersededBy are the claims that supersede it (two when two agents
	// superseded it at once).
	SupersededBy []ledger.ClaimID `json:"superseded_by,omitempty"`
	// Live: nothing supersedes it.
	Live bool `json:"live"`
}

// ClaimHistory is the chain of claims about one subject, property and scope.
type ClaimHistory struct {
	Subject  string      `json:"subject"`
	Property string      `json:"property"`
	Scope    string      `json:"scope"`
	Claims   []ClaimLink `json:"claims"`
}

// ClaimHistory returns every claim about q's subject, property and scope the
// viewer may see, oldest first: who asserted and superseded what, when; or,
// with id set, those of the claim id's subject, property and scope.
func (c *Viewer) ClaimHistory(ctx context.Context, q ClaimQuery, id ledger.ClaimID) (*ClaimHistory, error) {
	var claims []ledger.Claim
	var key string
	rd, err := c.v.claimReader(ctx)
	if err != nil {
		return nil, err
	}
	if id != "" {
		cl, group, err := c.claimByID(ctx, rd, id)
		if err != nil {
			return nil, err
		}
		key, claims = cl.Key(), group
	} else {
		var err error
		if key, err = claimKeyArgs(q.Subject, q.Property, q.Scope); err != nil {
			return nil, err
		}
		if claims, err = c.claimsAbout(ctx, rd, key); err != nil {
			return nil, err
		}
	}
	out := &ClaimHistory{Claims: []ClaimLink{}}
	out.Subject, out.Property, out.Scope = splitKey(key)
	for _, l := range ledger.Chain(claims) {
		b, err := c.bind(ctx, l.Claim, false)
		if err != nil {
			return nil, err
		}
		out.Claims = append(out.Claims, ClaimLink{BoundClaim: b, SupersededBy: l.SupersededBy, Live: l.Live})
	}
	return out, nil
}

// MaxNoteClaims bounds the claims NoteClaims lists for one note.
const MaxNoteClaims = 50

// NoteClaims returns the live claims (superseded by none the viewer sees) read
// from the note at p, in key order, at most limit, with whether each is fresh,
// and how many there are in all. A note hidden from the viewer has none.
func (c *Viewer) NoteClaims(ctx context.Context, p note.Path, limit int) ([]BoundClaim, int, error) {
	rd, err := c.v.claimReader(ctx)
	if err != nil {
		return nil, 0, err
	}
	return c.noteClaims(ctx, rd, map[string][]ledger.Claim{}, p, limit)
}

// NotesClaims is NoteClaims for several notes (a page of search hits), reading
// the claims tables as of one HEAD: the notes that have live claims, each with
// at most limit of them.
func (c *Viewer) NotesClaims(ctx context.Context, paths []note.Path, limit int) (map[note.Path][]BoundClaim, error) {
	rd, err := c.v.claimReader(ctx)
	if err != nil {
		return nil, err
	}
	groups := map[string][]ledger.Claim{}
	out := map[note.Path][]BoundClaim{}
	for _, p := range paths {
		cs, _, err := c.noteClaims(ctx, rd, groups, p, limit)
		if err != nil {
			return nil, err
		}
		if len(cs) > 0 {
			out[p] = cs
		}
	}
	return out, nil
}

// noteClaims is NoteClaims over rd, with groups caching the claims of each
// subject, property and scope met.
func (c *Viewer) noteClaims(ctx context.Context, rd claimReader, groups map[string][]ledger.Claim, p note.Path, limit int) ([]BoundClaim, int, error) {
	if !note.IsNote(p) || IsNornPath(p) {
		return nil, 0, nil
	}
	rows, err := rd(ctx, tableClaimSource, []byte(string(p)+"\x00"))
	if err != nil || len(rows) == 0 {
		return nil, 0, err
	}
	bound, err := claimsOf(rows)
	if err != nil {
		return nil, 0, err
	}
	var out []BoundClaim
	total := 0
	for _, cl := range bound {
		if !c.all && (cl.Private || !c.sourceVisible(ctx, cl.Source, c.v.Revision(cl.Source.Path))) {
			continue
		}
		key := cl.Key()
		group, ok := groups[key]
		if !ok {
			if group, err = c.claimsAbout(ctx, rd, key); err != nil {
				return nil, 0, err
			}
			groups[key] = group
		}
		if supersededIn(group, cl.ID) {
			continue
		}
		total++
		if len(out) < limit {
			b, err := c.bind(ctx, cl, false)
			if err != nil {
				return nil, 0, err
			}
			out = append(out, b)
		}
	}
	return out, total, nil
}

func supersededIn(group []ledger.Claim, id ledger.ClaimID) bool {
	for _, o := range group {
		if o.Supersedes == id {
			return true
		}
	}
	return false
}
