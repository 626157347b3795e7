package ledger

import (
	"cmp"
	"slices"
	"time"
)

// Status is claim_value's answer. There is no silent pick: two live claims that
// disagree are a conflict, a source that changed is an abstention.
type Status string

// The answers of claim_value.
const (
	// StatusCurrent: one value holds now, from a source that has not changed
	// since it was read.
	StatusCurrent Status = "current"
	// StatusStaleSource: the value's source note changed since the claim read it
	// (or is gone); the answer abstains.
	StatusStaleSource Status = "abstained_stale_source"
	// StatusConflict: live claims valid now disagree; the answer abstains.
	StatusConflict Status = "abstained_conflict"
	// StatusExpired: every live claim's window closed before the time asked.
	StatusExpired Status = "expired"
	// StatusNotYetValid: a live claim's window opens after the time asked.
	StatusNotYetValid Status = "not_yet_valid"
	// StatusUnknown: no live claim (none made, or the chain was retracted).
	StatusUnknown Status = "unknown"
)

// Resolution is the claims behind one claim_value answer.
type Resolution struct {
	Status Status
	// Claims are the claims the status is about, oldest first: the one whose
	// value is current (and any fresh claim agreeing with it), the stale claims,
	// the conflicting claims, the expired or not yet valid ones, or the live
	// retraction of an unknown.
	Claims []Claim
}

// Resolve answers claim_value for one subject, property and scope from every
// claim made about it (in any order): the live claims are those no other claim
// supersedes; of those, the assertions whose window holds at at decide. fresh
// reports whether a claim's source note still has the revision it was read at.
//
//   - no live assertion: unknown (with a live retraction, if any);
//   - none valid at at: not_yet_valid when one opens later, else expired;
//   - valid ones disagreeing on the value: abstained_conflict, all of them;
//   - agreeing, none fresh: abstained_stale_source;
//   - else current, with the fresh ones.
func Resolve(claims []Claim, at time.Time, fresh func(*Claim) bool) Resolution {
	superseded := make(map[ClaimID]bool, len(claims))
	for _, c := range claims {
		if c.Supersedes != "" {
			superseded[c.Supersedes] = true
		}
	}
	var live, retractions []Claim
	for _, c := range claims {
		switch {
		case superseded[c.ID]:
		case c.Kind == KindRetraction:
			retractions = append(retractions, c)
		default:
			live = append(live, c)
		}
	}
	if len(live) == 0 {
		return Resolution{Status: StatusUnknown, Claims: ordered(retractions)}
	}
	var valid, later, earlier []Claim
	for _, c := range live {
		switch {
		case !c.ValidFrom.IsZero() && at.Before(c.ValidFrom):
			later = append(later, c)
		case !c.ValidTo.IsZero() && !at.Before(c.ValidTo):
			earlier = append(earlier, c)
		default:
			valid = append(valid, c)
		}
	}
	switch {
	case len(valid) == 0 && len(later) > 0:
		return Resolution{Status: StatusNotYetValid, Claims: ordered(later)}
	case len(valid) == 0:
		return Resolution{Status: StatusExpired, Claims: ordered(earlier)}
	}
	valid = ordered(valid)
	for _, c := range valid[1:] {
		if c.Value != valid[0].Value {
			return Resolution{Status: StatusConflict, Claims: valid}
		}
	}
	var ok []Claim
	for i := range valid {
		if fresh(&valid[i]) {
			ok = append(ok, valid[i])
		}
	}
	if len(ok) == 0 {
		return Resolution{Status: StatusStaleSource, Claims: valid}
	}
	return Resolution{Status: StatusCurrent, Claims: ok}
}

// ordered sorts claims oldest first (by assertion time, then id).
func ordered(cs []Claim) []Claim {
	slices.SortFunc(cs, func(a, b Claim) int {
		return cmp.Or(a.AssertedAt.Compare(b.AssertedAt), cmp.Compare(a.ID, b.ID))
	})
	return cs
}

// Link is one claim of a history with what superseded it.
type Link struct {
	Claim
	// SupersededBy are the claims that supersede this one (more than one when two
	// agents superseded it at once: their values then conflict until one is
	// superseded in turn).
	SupersededBy []ClaimID `json:"superseded_by,omitempty"`
	// Live: nothing supersedes it.
	Live bool `json:"live"`
}

// Chain is the chain of claims about one subject, property and scope, oldest
// first, each with the claims that superseded it.
func Chain(claims []Claim) []Link {
	cs := ordered(slices.Clone(claims))
	by := map[ClaimID][]ClaimID{}
	for _, c := range cs {
		if c.Supersedes != "" {
			by[c.Supersedes] = append(by[c.Supersedes], c.ID)
		}
	}
	out := make([]Link, len(cs))
	for i, c := range cs {
		out[i] = Link{Claim: c, SupersededBy: by[c.ID], Live: len(by[c.ID]) == 0}
	}
	return out
}
