package feed_test

import (
	"errors"
	"net/url"
	"reflect"
	"testing"

	"github.com/norn-vault/norn/sync/feed"
)

// FuzzParseQuery: any query string either parses into a Query whose Values
// parse back to the same Query, or fails with ErrBadQuery; it never panics.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{
		"", "since=0123456789abcdef0123456789abcdef01234567", "since=xyz",
		"folders=tech,life&ops=write,archive&paths=*.md,tech/*",
		"folders=/tech/&folders=life", "folders=../x", "folders=a//b", "ops=bogus", "paths=[",
		"token=abc", "unknown=1", "since=&folders=,,", "paths=a%00b", "folders=a%5Cb",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		q, err := feed.ParseQuery(v)
		if err != nil {
			if !errors.Is(err, feed.ErrBadQuery) {
				t.Fatalf("%q: error %v is not ErrBadQuery", raw, err)
			}
			return
		}
		back, err := feed.ParseQuery(q.Values())
		if err != nil {
			t.Fatalf("%q: parsed to %+v, whose values %q do not parse: %v", raw, q, q.Values().Encode(), err)
		}
		if !reflect.DeepEqual(q, back) {
			t.Fatalf("%q: %+v round-trips to %+v", raw, q, back)
		}
	})
}
