package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"
)

// assets serves the page's built files from an fs.FS (the embedded dist/): each
// with its Content-Type, a strong ETag from its bytes (so a browser revalidates
// with If-None-Match and gets 304), and gzipped for a client that accepts it —
// the graph library's chunk is 451 KB raw and about a quarter of that gzipped.
// A file is read and compressed once, on its first request, and kept: the set is
// fixed at build time and small.
type assets struct {
	fsys fs.FS
	mu   sync.Mutex
	byNm map[string]*asset
}

// asset is one file, raw and gzipped.
type asset struct {
	raw, gz []byte
	etag    string // quoted, of raw; the gzipped body's is etag with "-gz" inside the quotes
	ctype   string
}

func newAssets(fsys fs.FS) *assets { return &assets{fsys: fsys, byNm: map[string]*asset{}} }

// get returns the file name (without a leading slash), false when there is none.
func (a *assets) get(name string) (*asset, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if f, ok := a.byNm[name]; ok {
		return f, f != nil
	}
	raw, err := fs.ReadFile(a.fsys, name)
	if err != nil {
		a.byNm[name] = nil // the set is fixed: a name missing now stays missing
		return nil, false
	}
	sum := sha256.Sum256(raw)
	f := &asset{raw: raw, etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
	if f.ctype = mime.TypeByExtension(path.Ext(name)); f.ctype == "" {
		f.ctype = http.DetectContentType(raw)
	}
	var z bytes.Buffer
	w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression) // a valid level: no error
	w.Write(raw)                                          // into memory: no error
	w.Close()
	if z.Len() < len(raw) {
		f.gz = z.Bytes()
	}
	a.byNm[name] = f
	return f, true
}

// serve writes the file name to w (GET and HEAD), false when there is none
// (the caller answers 404).
func (a *assets) serve(w http.ResponseWriter, r *http.Request, name string) bool {
	f, ok := a.get(name)
	if !ok {
		return false
	}
	hd := w.Header()
	hd.Set("Content-Type", f.ctype)
	hd.Set("Vary", "Accept-Encoding")
	body, etag := f.raw, f.etag
	if f.gz != nil && acceptsGzip(r.Header.Get("Accept-Encoding")) {
		body, etag = f.gz, strings.TrimSuffix(f.etag, `"`)+`-gz"`
		hd.Set("Content-Encoding", "gzip")
	}
	hd.Set("ETag", etag)
	// ServeContent answers If-None-Match (304), HEAD and ranges (of the body
	// as sent, as HTTP defines them for an encoded body).
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
	return true
}

// acceptsGzip reports whether an Accept-Encoding header takes gzip: named with a
// q-value other than 0, or not named and "*" taken.
func acceptsGzip(header string) bool {
	qGzip, qAny := -1.0, -1.0
	for part := range strings.SplitSeq(header, ",") {
		coding, params, _ := strings.Cut(part, ";")
		q := 1.0
		for p := range strings.SplitSeq(params, ";") {
			k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
			if strings.EqualFold(strings.TrimSpace(k), "q") {
				f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				if err != nil {
					f = 0 // a malformed weight is no acceptance
				}
				q = f
			}
		}
		switch strings.ToLower(strings.TrimSpace(coding)) {
		case "gzip", "x-gzip":
			qGzip = max(qGzip, q)
		case "*":
			qAny = max(qAny, q)
		}
	}
	if qGzip >= 0 {
		return qGzip > 0
	}
	return qAny > 0
}
