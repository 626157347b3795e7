package feed

import (
	"errors"
	"fmt"
)

// Errors callers branch on (match with errors.Is).
var (
	// ErrBadQuery: a query parameter of the events endpoint (or of Watch's
	// options) is malformed; nothing was subscribed.
	ErrBadQuery = errors.New("bad feed query")
	// ErrRefused: the server refused the connection (authentication, origin or a
	// bad query); retrying the same request will not help.
	ErrRefused = errors.New("feed connection refused")
	// ErrClosed: the hub is closed.
	ErrClosed = errors.New("feed hub closed")
)

func badQueryf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadQuery, fmt.Sprintf(format, args...))
}
