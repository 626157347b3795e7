package ledger_test

import (
	"errors"
	"testing"

	"github.com/norn-vault/norn/ledger"
)

// FuzzDecodeRegistration: any bytes decode to a registration that passes Check
// and encodes back to bytes that decode to the same registration, or fail with
// ErrInvalidRegistration; nothing panics.
func FuzzDecodeRegistration(f *testing.F) {
	r, _ := ledger.NewRegistration("tech/top.md", []ledger.Source{{Path: "a.md", Revision: srcRev(1)}, {Path: "b/c.md", Revision: srcRev(2)}})
	good, _ := ledger.EncodeRegistration(r)
	for _, s := range []string{string(good), "", "summary: a.md\n", "summary: &a a.md\nsources: *a\n",
		"summary: a.md\nsources:\n  - {path: b.md, revision: 0000000000000000000000000000000000000001}\n",
		"{summary: \"x\\u0000.md\", sources: []}", "---\n---\n", "summary: !!binary YQ==\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ledger.DecodeRegistration(b)
		if err != nil {
			if !errors.Is(err, ledger.ErrInvalidRegistration) {
				t.Fatalf("error %v does not wrap ErrInvalidRegistration", err)
			}
			return
		}
		if err := r.Check(); err != nil {
			t.Fatalf("decoded registration fails Check: %v", err)
		}
		out, err := ledger.EncodeRegistration(r)
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		back, err := ledger.DecodeRegistration(out)
		if err != nil {
			t.Fatalf("re-decode %q: %v", out, err)
		}
		if len(back.Sources) != len(r.Sources) || back.Summary != r.Summary {
			t.Fatalf("round trip changed %+v into %+v", r, back)
		}
		for i := range back.Sources {
			if back.Sources[i] != r.Sources[i] {
				t.Fatalf("round trip changed %+v into %+v", r, back)
			}
		}
	})
}
