package note

import "bytes"

// maxContext is the most bytes of a link's line kept as its context.
const maxContext = 300

// LineAt returns the line of raw holding offset off (clamped to raw), trimmed of
// surrounding space and cut at 300 bytes on a UTF-8 boundary: the cut keeps every
// character that fits whole, so a line whose 300th byte ends a multi-byte character
// keeps it. It is the context shown beside a link, by the index and by a move's plan.
func LineAt(raw []byte, off int) string {
	off = min(max(off, 0), len(raw))
	start := bytes.LastIndexByte(raw[:off], '\n') + 1
	end := bytes.IndexByte(raw[off:], '\n')
	if end < 0 {
		end = len(raw)
	} else {
		end += off
	}
	line := bytes.TrimSpace(raw[start:end])
	if len(line) > maxContext {
		cut := maxContext
		for cut > 0 && line[cut]&0xc0 == 0x80 {
			cut-- // do not cut a UTF-8 sequence
		}
		line = line[:cut]
	}
	return string(line)
}
