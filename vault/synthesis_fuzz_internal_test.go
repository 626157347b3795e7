package vault

import (
	"bytes"
	"errors"
	"testing"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/ledger"
	"github.com/norn-vault/norn/repo"
)

// FuzzDecodeSources: a synthesis row's value decodes to sources that encode back
// to the same bytes, or is an error (corrupt, or a registration that did not
// decode); nothing panics.
func FuzzDecodeSources(f *testing.F) {
	r, _ := ledger.NewRegistration("top.md", []ledger.Source{{Path: "a b.md", Revision: "0123456789012345678901234567890123456789"}, {Path: "c/d.md", Revision: "f123456789012345678901234567890123456789"}})
	f.Add(encodeSources(r))
	f.Add([]byte("!sources: at most 32"))
	f.Add([]byte("no-space\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, v []byte) {
		got, err := decodeSources("top.md", v)
		if err != nil {
			if !errors.Is(err, graph.ErrCorrupt) && !errors.Is(err, repo.ErrInvalid) {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		if len(v) > 0 && v[len(v)-1] != '\n' {
			v = append(bytes.Clone(v), '\n')
		}
		if back := encodeSources(got); !bytes.Equal(back, v) {
			t.Fatalf("%q decodes to %+v, which encodes to %q", v, got.Sources, back)
		}
	})
}
