package ledger_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/norn-vault/norn/ledger"
)

// FuzzDecodeClaim: any bytes either decode to a claim that encodes back to bytes
// that decode to the same claim, or fail with a *ClaimError; never a panic.
func FuzzDecodeClaim(f *testing.F) {
	c := sample(id('a'))
	good, _ := ledger.EncodeClaim(&c)
	f.Add(good)
	f.Add([]byte("id: aaaaaaaaaaaaaaaaaaaaaaaaaa\nkind: retraction\n"))
	f.Add([]byte("a: &x 1\nb: *x\n"))
	f.Add([]byte("- 1\n- 2\n"))
	f.Add([]byte("{}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := ledger.DecodeClaim("", b)
		if err != nil {
			var ce *ledger.ClaimError
			if !errors.As(err, &ce) || len(ce.Problems) == 0 {
				t.Fatalf("error %v is not a *ClaimError with problems", err)
			}
			return
		}
		again, err := ledger.EncodeClaim(got)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		back, err := ledger.DecodeClaim(ledger.ClaimPath(got.ID), again)
		if err != nil || !reflect.DeepEqual(back, got) {
			t.Fatalf("round trip: %v\n%+v\n%+v", err, back, got)
		}
	})
}
