package repo

import (
	"compress/zlib"
	"io"
	"sync"
)

// zlibPool keeps idle zlib readers and writers for loose objects and packs alike.
// Its zero value works (it then keeps no writers).
type zlibPool struct {
	// w keeps idle writers. (Not a sync.Pool: every GC empties one, and a new writer
	// costs ~1 MB of zeroed memory, which made deflating a 3 KB tree cost more than
	// a millisecond.)
	w chan *zlib.Writer
	r sync.Pool // io.ReadCloser that is also a zlib.Resetter
}

func newZlibPool() zlibPool { return zlibPool{w: make(chan *zlib.Writer, 8)} }

// reader returns a zlib reader of r; the caller gives it back with putReader.
func (z *zlibPool) reader(r io.Reader) (io.ReadCloser, error) {
	if zr, _ := z.r.Get().(io.ReadCloser); zr != nil {
		if err := zr.(zlib.Resetter).Reset(r, nil); err != nil {
			return nil, err
		}
		return zr, nil
	}
	return zlib.NewReader(r)
}

func (z *zlibPool) putReader(zr io.ReadCloser) { z.r.Put(zr) }

// writer returns a BestSpeed zlib writer to w; the caller gives it back with
// putWriter once it is closed.
func (z *zlibPool) writer(w io.Writer) *zlib.Writer {
	select {
	case zw := <-z.w:
		zw.Reset(w)
		return zw
	default:
		zw, _ := zlib.NewWriterLevel(w, zlib.BestSpeed)
		return zw
	}
}

func (z *zlibPool) putWriter(zw *zlib.Writer) {
	select {
	case z.w <- zw:
	default:
	}
}
