package web

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// maxParam bounds a query parameter's length (a path, a revision, a list of types).
const maxParam = 4096

// params reads an API request's query parameters, each checked as it is asked
// for; the first bad one is kept (err) and later reads return zero values.
type params struct {
	q   url.Values
	err error
}

func (ps *params) fail(err error) {
	if ps.err == nil {
		ps.err = err
	}
}

// str returns parameter name (one value at most, at most maxParam bytes, valid UTF-8
// without control characters).
func (ps *params) str(name string) string {
	vs := ps.q[name]
	switch {
	case ps.err != nil || len(vs) == 0:
		return ""
	case len(vs) > 1:
		ps.fail(badInput("%s is given %d times: give it once", name, len(vs)))
		return ""
	case len(vs[0]) > maxParam:
		ps.fail(badInput("%s is %d bytes long (at most %d)", name, len(vs[0]), maxParam))
		return ""
	}
	s := vs[0]
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == '\uFFFD' {
			ps.fail(badInput("%s holds a control character or invalid UTF-8", name))
			return ""
		}
	}
	return s
}

// num returns the integer parameter name in [lo, hi], def when absent.
func (ps *params) num(name string, def, lo, hi int) int {
	s := ps.str(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		ps.fail(badInput("%s must be a whole number from %d to %d, not %q", name, lo, hi, s))
		return def
	}
	return n
}

// path returns the note path parameter name; required says whether it may be absent.
func (ps *params) path(name string, required bool) note.Path {
	s := ps.str(name)
	if s == "" {
		if required && ps.err == nil {
			ps.fail(badInput("%s is required: a note's path, such as tech/bloom.md", name))
		}
		return ""
	}
	if err := repo.ValidPath(s); err != nil {
		ps.fail(badInput("%s: %v", name, err))
		return ""
	}
	return note.Path(s)
}

// rev returns a commit-ish parameter (a commit id, a branch, HEAD, each with ~N
// or ^N; or a blob id): letters, digits and ._-/~^ only.
func (ps *params) rev(name string) string {
	s := ps.str(name)
	if len(s) > 256 {
		ps.fail(badInput("%s is too long for a commit or revision", name))
		return ""
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-/~^", r)) {
			ps.fail(badInput("%s %q is not a commit or revision: give an id, a branch or HEAD, optionally with ~N or ^N", name, s))
			return ""
		}
	}
	return s
}

// list returns a comma-separated parameter as its non-empty items.
func (ps *params) list(name string) []string {
	s := ps.str(name)
	if s == "" {
		return nil
	}
	var out []string
	for _, it := range strings.Split(s, ",") {
		if it = strings.TrimSpace(it); it != "" {
			out = append(out, it)
		}
	}
	return out
}
