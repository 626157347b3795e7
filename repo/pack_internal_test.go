package repo

import (
	"bytes"
	"compress/zlib"
	"io"
	"testing"
)

// TestStoredEntry_ZlibReadsIt: a stored entry's body is a valid zlib stream for
// empty, small and multi-block (over 64 KiB) objects.
func TestStoredEntry_ZlibReadsIt(t *testing.T) {
	for _, n := range []int{0, 1, 3000, 65535, 65536, 200000} {
		data := bytes.Repeat([]byte("tree entry \x00\x01\x02"), n/14+1)[:n]
		raw := storedEntry("tree", data)
		hdr := appendEntryHeader(nil, packTree, n)
		if !bytes.Equal(raw[:len(hdr)], hdr) {
			t.Fatalf("%d bytes: bad entry header", n)
		}
		zr, err := zlib.NewReader(bytes.NewReader(raw[len(hdr):]))
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		got, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d bytes: read back %d bytes, %v", n, len(got), err)
		}
	}
}
