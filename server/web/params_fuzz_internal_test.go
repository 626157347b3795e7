package web

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/norn-vault/norn/errcode"
	"github.com/norn-vault/norn/repo"
)

// FuzzParams: any query string gives, per parameter, either a value that obeys
// its rule or an invalid_input error, and never a panic.
func FuzzParams(f *testing.F) {
	for _, s := range []string{
		"path=tech/bloom.md&at=HEAD~2&depth=3&types=link,supports&q=hash",
		"path=../x&depth=-1", "path=a.md&path=b.md", "at=HEAD%3Brm&depth=99999999999999999999",
		"types=,,,&max=0", "path=%00", "q=%ff%fe", "from=abc^^~1&to=",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		ps := params{q: q}
		p := ps.path("path", false)
		at := ps.rev("at")
		depth := ps.num("depth", 1, 1, 5)
		types := ps.list("types")
		text := ps.str("q")
		if ps.err != nil {
			var ae *apiError
			if !errors.As(ps.err, &ae) || errcode.Classify(ps.err) != errcode.InvalidInput || ae.status != 400 {
				t.Fatalf("%q: error %v is not a 400 invalid_input", raw, ps.err)
			}
			return
		}
		if p != "" && repo.ValidPath(string(p)) != nil {
			t.Fatalf("%q: path %q taken", raw, p)
		}
		if strings.ContainsFunc(at, func(r rune) bool {
			return !strings.ContainsRune("._-/~^", r) && !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
		}) {
			t.Fatalf("%q: at %q taken", raw, at)
		}
		if depth < 1 || depth > 5 {
			t.Fatalf("%q: depth %d taken", raw, depth)
		}
		if d := q.Get("depth"); d != "" {
			if n, err := strconv.Atoi(d); err != nil || n != depth {
				t.Fatalf("%q: depth %d from %q", raw, depth, d)
			}
		}
		for _, ty := range types {
			if ty == "" || strings.Contains(ty, ",") {
				t.Fatalf("%q: type %q", raw, ty)
			}
		}
		if !utf8.ValidString(text) || len(text) > maxParam || strings.ContainsFunc(text, func(r rune) bool { return r < 0x20 }) {
			t.Fatalf("%q: q %q taken", raw, text)
		}
	})
}
