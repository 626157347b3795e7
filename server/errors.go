package server

import "errors"

// ErrForbidden: the caller may not make this change, whatever its arguments (a move
// that would rewrite notes it cannot see). Tools answer it as forbidden.
var ErrForbidden = errors.New("forbidden")
