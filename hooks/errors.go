package hooks

import "errors"

// ErrRejected is matched (errors.Is) by every *Rejection: a proposal broke at least
// one write gate and nothing may be written.
var ErrRejected = errors.New("rejected by a write gate")

// ErrInvalidProposal means the caller built a Proposal wrongly (an unknown Kind, a move
// without From, …). It is a bug in the caller, not a rule the writer broke, so it is
// never a *Rejection.
var ErrInvalidProposal = errors.New("invalid proposal")
