package note

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestLineAt pins the cut at 300 bytes: every character that fits whole is kept, and
// none is split. (A copy of this rule in server once dropped a whole character that
// ended exactly at byte 300, so a move's plan and the index disagreed on a context.)
func TestLineAt(t *testing.T) {
	a := func(n int) string { return strings.Repeat("a", n) }
	tests := []struct {
		name, raw string
		off       int
		want      string
	}{
		{"middle line", "one\n  two [[x]]  \nthree", 8, "two [[x]]"},
		{"first line", "one [[x]]\ntwo", 0, "one [[x]]"},
		{"last line no newline", "one\ntwo", 6, "two"},
		{"offset past end", "one\ntwo", 99, "two"},
		{"negative offset", "one\ntwo", -5, "one"},
		{"empty", "", 0, ""},
		{"short kept", a(300), 0, a(300)},
		{"ascii cut", a(301), 0, a(300)},
		{"2-byte char ends at 300", a(298) + "é" + "xyz", 0, a(298) + "é"},
		{"3-byte char ends at 300", a(297) + "€" + "xyz", 0, a(297) + "€"},
		{"4-byte char ends at 300", a(296) + "😀" + "xyz", 0, a(296) + "😀"},
		{"2-byte char crosses 300", a(299) + "é" + "xyz", 0, a(299)},
		{"3-byte char crosses 300", a(298) + "€" + "xyz", 0, a(298)},
		{"4-byte char crosses 300", a(297) + "😀" + "xyz", 0, a(297)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := LineAt([]byte(tt.raw), tt.off)
			if got != tt.want {
				t.Errorf("LineAt = %q (%d bytes); want %q (%d bytes)", got, len(got), tt.want, len(tt.want))
			}
			if !utf8.ValidString(got) {
				t.Errorf("LineAt = %q: not valid UTF-8", got)
			}
		})
	}
}
