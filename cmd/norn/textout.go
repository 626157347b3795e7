package main

import (
	"bytes"
	"io"
	"unicode"
	"unicode/utf8"
)

// textWriter passes a command's human output on with the control characters that
// notes, titles, headings, author names or commit subjects may carry (an escape
// sequence, a C1 control such as the 8-bit CSI, a lone carriage return) turned
// into spaces, so that printing them to a terminal shows text and cannot drive the
// terminal. Line feeds and tabs stay. While raw() holds (JSON output, a note's
// bytes) it passes everything on untouched.
type textWriter struct {
	w     io.Writer
	raw   func() bool
	carry []byte // the start of a UTF-8 sequence the last write cut
}

func (t *textWriter) Write(p []byte) (int, error) {
	if t.raw() {
		return t.w.Write(p)
	}
	b := append(t.carry, p...)
	cut := len(b)
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				cut = i
			}
			break
		}
	}
	out := bytes.Map(textRune, b[:cut])
	t.carry = append([]byte(nil), b[cut:]...)
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// flush writes what is left of a cut sequence.
func (t *textWriter) flush() {
	if len(t.carry) > 0 {
		t.w.Write(bytes.Map(textRune, t.carry))
		t.carry = nil
	}
}

func textRune(r rune) rune {
	if r != '\n' && r != '\t' && unicode.IsControl(r) {
		return ' '
	}
	return r
}
