package graph

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// Sentinel errors. Match them with errors.Is; every error the package returns wraps
// one of these or an error from the caller (a context error, a Doc iterator's error).
var (
	// ErrFormat means the index on disk was written by another format version or with
	// other analysis settings (stop words). The index is derived data: the caller
	// removes the directory, opens it again and rebuilds.
	ErrFormat = errors.New("index format mismatch")
	// ErrCorrupt means the index's files are damaged. As for ErrFormat, the caller
	// removes the directory and rebuilds; until then Scan answers queries.
	ErrCorrupt = errors.New("index corrupt")
	// ErrUnavailable means the index could not be read or written for a reason
	// outside its files — too many open files, no memory or disk space left. The
	// index is likely fine: keep it, answer with Scan, try again later.
	ErrUnavailable = errors.New("index unavailable")
	// ErrLocked means another handle (in this process or another) holds the index.
	ErrLocked = errors.New("index locked by another process")
	// ErrClosed is returned by every method of a closed Index.
	ErrClosed = errors.New("index closed")
	// ErrInvalidBatch means Update or Rebuild was given records that break the
	// rules (an empty path, a path put twice, a bad Row): nothing was written.
	ErrInvalidBatch = errors.New("invalid batch")
	// ErrQuery is matched by every *QueryError.
	ErrQuery = errors.New("invalid query")
)

// QueryError says where a query is malformed and why. errors.Is(err, ErrQuery) holds.
type QueryError struct {
	Query  string
	Pos    int // byte offset in Query where the problem is
	Reason string
}

func (e *QueryError) Error() string {
	return fmt.Sprintf("query %q: at %d: %s", excerpt(e.Query, e.Pos), e.Pos, e.Reason)
}

// excerptRadius is how many bytes of a query an error shows on each side of the
// problem: a 100 KB query must not come back as a 100 KB message.
const excerptRadius = 40

// excerpt is q, or the part of it around pos with "…" where it was cut (cut on
// rune boundaries).
func excerpt(q string, pos int) string {
	if len(q) <= 2*excerptRadius+20 {
		return q
	}
	lo, hi := max(0, pos-excerptRadius), min(len(q), pos+excerptRadius)
	for lo > 0 && !utf8.RuneStart(q[lo]) {
		lo--
	}
	for hi < len(q) && !utf8.RuneStart(q[hi]) {
		hi++
	}
	out := q[lo:hi]
	if lo > 0 {
		out = "…" + out
	}
	if hi < len(q) {
		out += "…"
	}
	return out
}

// Is makes errors.Is(err, ErrQuery) true for every QueryError.
func (e *QueryError) Is(target error) bool { return target == ErrQuery }
