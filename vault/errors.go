package vault

import "github.com/norn-vault/norn/errcode"

// ErrForbidden: the caller may not make this change, whatever its arguments (a move
// that would rewrite notes it cannot see). Every surface reports it as forbidden.
var ErrForbidden = errcode.New(errcode.Forbidden, "forbidden")
