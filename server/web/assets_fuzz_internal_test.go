package web

import (
	"strings"
	"testing"
)

// FuzzAcceptsGzip: any Accept-Encoding header is read without panicking; one
// that names neither gzip nor "*" never takes gzip, and "gzip" alone, or added
// to a header that does not mention gzip, always does.
func FuzzAcceptsGzip(f *testing.F) {
	for _, s := range []string{"gzip", "br, gzip;q=0.8", "gzip;q=0, *", "*;q=0", "identity", "", "gzip;q=x", "GZIP ; Q=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		got := acceptsGzip(h)
		l := strings.ToLower(h)
		if !strings.Contains(l, "gzip") && !strings.Contains(l, "*") && got {
			t.Fatalf("%q takes gzip", h)
		}
		if !strings.Contains(l, "gzip") && !acceptsGzip(h+",gzip") {
			t.Fatalf("%q + gzip does not take gzip", h)
		}
	})
}

func TestAcceptsGzip(t *testing.T) {
	for h, want := range map[string]bool{
		"gzip": true, "br, gzip;q=0.8": true, "GZIP ; Q=1": true, "x-gzip": true, "*": true,
		"gzip;q=0, *": false, "*;q=0": false, "identity": false, "": false, "gzip;q=x": false, "deflate, br": false,
	} {
		if got := acceptsGzip(h); got != want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", h, got, want)
		}
	}
}
