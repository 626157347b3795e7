package ledger

import (
	"context"
	"fmt"
	"time"

	"github.com/norn-vault/norn/repo"
)

// maxDateLen bounds what ParseDate reads: the longest RFC 3339 time with
// nanoseconds and an offset is 35 bytes.
const maxDateLen = 64

// IsDate reports whether s is written as a date or a time (four digits and a
// dash: 2026-12-07, 2026-12-07T10:00:00Z) rather than as a commit. A commit-ish
// never looks like that (hex ids have no dash; a branch named so is read as a
// date). Whether it is a valid one is ParseDate's to say.
func IsDate(s string) bool {
	if len(s) < 5 || s[4] != '-' {
		return false
	}
	for i := range 4 {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// ParseDate reads a date or a time and returns the span it names: an RFC 3339
// time (2026-12-07T10:00:00Z, 2026-12-07T10:00:00+01:00) names itself (from ==
// to), a day (2026-12-07) the whole of that day in UTC, from its first instant
// to its last. Reading "at" a date takes to (what was written that day counts);
// listing "since" one takes from. Anything else is repo.ErrInvalid saying what
// is accepted.
func ParseDate(s string) (from, to time.Time, err error) {
	bad := func(why string) error {
		if len(s) > maxDateLen {
			s = s[:maxDateLen] + "…"
		}
		return fmt.Errorf("%w: %q is not a date Norn accepts (%s): give YYYY-MM-DD (a whole day, UTC) or an RFC 3339 time such as 2026-12-07T10:00:00Z", repo.ErrInvalid, s, why)
	}
	switch {
	case len(s) > maxDateLen:
		return from, to, bad("too long")
	case len(s) == len(time.DateOnly):
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			return from, to, bad("no such day")
		}
		return d, d.Add(24*time.Hour - time.Nanosecond), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return from, to, bad("not RFC 3339")
	}
	return t, t, nil
}

// CommitAt returns the last commit at or before t on the vault's branch: the
// first commit, walking first parents back from HEAD, whose author time is not
// after t (the history as it stood then on the branch). None is
// repo.ErrNotFound.
func CommitAt(ctx context.Context, v *repo.Vault, t time.Time) (repo.CommitID, error) {
	id := v.Head()
	for id != "" {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		c, err := v.Commit(ctx, string(id))
		if err != nil {
			return "", fmt.Errorf("commit at %s: %w", t.Format(time.RFC3339), err)
		}
		if !c.When.After(t) {
			return c.ID, nil
		}
		id = ""
		if len(c.Parents) > 0 {
			id = c.Parents[0]
		}
	}
	return "", fmt.Errorf("%w: no commit at or before %s: the history starts later", repo.ErrNotFound, t.UTC().Format(time.RFC3339))
}

// ResolveAt turns what a reader gave as at into a commit-ish repo understands:
// a date or time (IsDate) becomes the commit at it (CommitAt), anything else is
// returned as it is. A malformed date is repo.ErrInvalid.
func ResolveAt(ctx context.Context, v *repo.Vault, at string) (string, error) {
	if !IsDate(at) {
		return at, nil
	}
	_, t, err := ParseDate(at)
	if err != nil {
		return "", err
	}
	id, err := CommitAt(ctx, v, t)
	return string(id), err
}
