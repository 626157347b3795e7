package vault

import (
	"errors"
	"testing"
	"time"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/ledger"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// FuzzDecodeArchived: a catalog row's value decodes or is ErrCorrupt, never a
// panic; what encodeArchived wrote decodes to the same entry.
func FuzzDecodeArchived(f *testing.F) {
	a := ledger.Archived{Path: "tech/a.md", Reason: repo.ReasonSuperseded, Who: "Ada <ada@example.com>",
		When: time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC), Commit: "0123456789abcdef0123456789abcdef01234567", Revision: "89abcdef0123456789abcdef0123456789abcdef"}
	f.Add(encodeArchived(&a))
	f.Add([]byte("archived\x00x\x00notanumber\x00c\x00r"))
	f.Add([]byte(""))
	f.Add([]byte("\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := decodeArchived("p.md", b)
		if err != nil {
			if !errors.Is(err, graph.ErrCorrupt) {
				t.Fatalf("decode %q: %v is not ErrCorrupt", b, err)
			}
			return
		}
		again, err := decodeArchived(got.Path, encodeArchived(&got))
		if err != nil || again != got {
			t.Fatalf("round trip of %q: %+v, then %+v (%v)", b, got, again, err)
		}
	})
	back, err := decodeArchived(note.Path(a.Path), encodeArchived(&a))
	if err != nil || back != a {
		f.Fatalf("round trip: %+v, %v", back, err)
	}
}
