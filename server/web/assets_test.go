package web_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestHandler_AssetsCompressed: an asset goes gzipped to a client that takes
// gzip, and decompresses to the built file exactly; raw to one that does not
// (or refuses gzip with q=0); a repeat with the ETag gets 304 and no body;
// HEAD sends no body; a path outside the built files is 404.
func TestHandler_AssetsCompressed(t *testing.T) {
	e := newEnv(t, fixture)
	b := e.browser()
	want, err := os.ReadFile(filepath.Join(distDir, "assets", "app.js"))
	if err != nil {
		t.Fatal(err)
	}
	resp, body := b.do(http.MethodGet, "/assets/app.js", "", map[string]string{"Accept-Encoding": "br, gzip;q=0.8"})
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("Vary") != "Accept-Encoding" {
		t.Fatalf("gzip asked: %d %v", resp.StatusCode, resp.Header)
	}
	if len(body) >= len(want) {
		t.Fatalf("gzipped body %d bytes, the file %d", len(body), len(want))
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("gunzipped body differs from dist/assets/app.js (%v)", err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/javascript; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); csp == "" {
		t.Error("no Content-Security-Policy on an asset")
	}
	etag := resp.Header.Get("ETag")
	for _, ae := range []string{"identity", "gzip;q=0, *", ""} {
		resp, body := b.do(http.MethodGet, "/assets/app.js", "", map[string]string{"Accept-Encoding": ae})
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != "" || !bytes.Equal(body, want) {
			t.Fatalf("Accept-Encoding %q: %d, encoding %q, %d bytes", ae, resp.StatusCode, resp.Header.Get("Content-Encoding"), len(body))
		}
		if resp.Header.Get("ETag") == etag || resp.Header.Get("ETag") == "" {
			t.Fatalf("raw and gzipped bodies share the ETag %q", etag)
		}
	}
	resp, body = b.do(http.MethodGet, "/assets/app.js", "", map[string]string{"Accept-Encoding": "gzip", "If-None-Match": etag})
	if resp.StatusCode != http.StatusNotModified || len(body) != 0 {
		t.Fatalf("If-None-Match: %d, %d bytes", resp.StatusCode, len(body))
	}
	resp, body = b.do(http.MethodHead, "/assets/app.css", "", map[string]string{"Accept-Encoding": "gzip"})
	if resp.StatusCode != http.StatusOK || len(body) != 0 || resp.Header.Get("Content-Type") != "text/css; charset=utf-8" {
		t.Fatalf("HEAD: %d, %d bytes, %v", resp.StatusCode, len(body), resp.Header)
	}
	for _, p := range []string{"/assets/missing.js", "/assets/", "/assets/../index.html", "/assets//app.js"} {
		if resp, _ := b.do(http.MethodGet, p, "", nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", p, resp.StatusCode)
		}
	}
	resp, body = b.do(http.MethodGet, "/", "", map[string]string{"Accept-Encoding": "gzip"})
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Cache-Control") != "no-cache" || resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("page: %d %v", resp.StatusCode, resp.Header)
	}
	if zr, err := gzip.NewReader(bytes.NewReader(body)); err != nil {
		t.Fatal(err)
	} else if got, _ := io.ReadAll(zr); !bytes.Contains(got, []byte("<html")) {
		t.Fatalf("page: %s", got)
	}
}
