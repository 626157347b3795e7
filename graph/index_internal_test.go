package graph

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/cockroachdb/pebble/v2"
)

// TestOpen_FormatVersion writes another FormatVersion into an index and checks
// that Open reports ErrFormat.
func TestOpen_FormatVersion(t *testing.T) {
	dir := t.TempDir()
	ix, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	old := binary.AppendUvarint(nil, FormatVersion+1)
	old = append(old, ix.an.fingerprint()...)
	if err := ix.db.Set([]byte(keyFormat), old, pebble.Sync); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	if _, err := Open(dir, Options{}); !errors.Is(err, ErrFormat) {
		t.Fatalf("open: %v, want ErrFormat", err)
	}
}
