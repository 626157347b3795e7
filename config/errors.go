package config

import (
	"errors"
	"fmt"
)

// ErrInvalid is matched (errors.Is) by every *Error that Parse returns.
var ErrInvalid = errors.New("invalid config")

// Error is one problem in a config file: which key, on which line, and what is allowed
// instead. Parse returns one *Error, or several joined with errors.Join (each still
// reachable with errors.As and matching ErrInvalid).
type Error struct {
	// Line is the 1-based line in the file; 0 when not known.
	Line int
	// Key is the dotted key path, e.g. "gates.profile" or "search.weights.title"; it is
	// empty for problems with the file as a whole (syntax, several documents).
	Key string
	// Msg says what is wrong and what is allowed.
	Msg string
}

func (e *Error) Error() string {
	switch {
	case e.Line > 0 && e.Key != "":
		return fmt.Sprintf("line %d: %s: %s", e.Line, e.Key, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	case e.Key != "":
		return fmt.Sprintf("%s: %s", e.Key, e.Msg)
	}
	return e.Msg
}

// Is makes errors.Is(err, ErrInvalid) true for every *Error.
func (e *Error) Is(target error) bool { return target == ErrInvalid }
