package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// checkArgs refuses in a call's arguments (raw, valid JSON) what encoding/json
// would silently change or drop: bytes that are not UTF-8 and \u escapes of
// unpaired surrogates (both would become U+FFFD and be written as such), and a
// key repeated in one object (the last would win; keys match fields without
// regard to case, so "path" and "Path" count as the same). The error names the
// argument (the top-level key) the problem is in.
func checkArgs(raw []byte) error {
	s := argScanner{b: raw}
	return s.value("")
}

// argScanner walks JSON already known to be valid.
type argScanner struct {
	b []byte
	i int
}

func (s *argScanner) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

// value checks the value at s.i; arg is the argument it belongs to ("" at the top).
func (s *argScanner) value(arg string) error {
	s.space()
	if s.i >= len(s.b) {
		return nil
	}
	switch s.b[s.i] {
	case '{':
		s.i++
		seen := map[string]bool{}
		for {
			s.space()
			if s.b[s.i] == '}' {
				s.i++
				return nil
			}
			if s.b[s.i] == ',' {
				s.i++
				s.space()
			}
			start := s.i
			if err := s.str(arg); err != nil {
				return err
			}
			var key string
			if err := json.Unmarshal(s.b[start:s.i], &key); err != nil {
				return fmt.Errorf("an argument name: %w", err)
			}
			fold := foldKey(key)
			if seen[fold] {
				if arg == "" {
					return fmt.Errorf("argument %q is given twice", key)
				}
				return fmt.Errorf("argument %q: key %q is given twice", arg, key)
			}
			seen[fold] = true
			s.space()
			s.i++ // ':'
			name := arg
			if name == "" {
				name = key
			}
			if err := s.value(name); err != nil {
				return err
			}
		}
	case '[':
		s.i++
		for {
			s.space()
			switch s.b[s.i] {
			case ']':
				s.i++
				return nil
			case ',':
				s.i++
			}
			if err := s.value(arg); err != nil {
				return err
			}
		}
	case '"':
		return s.str(arg)
	}
	for s.i < len(s.b) && !strings.ContainsRune(",]} \t\n\r", rune(s.b[s.i])) {
		s.i++ // a number, true, false or null
	}
	return nil
}

// str checks the string at s.i and moves past it.
func (s *argScanner) str(arg string) error {
	what := "an argument name"
	if arg != "" {
		what = fmt.Sprintf("argument %q", arg)
	}
	s.i++ // the opening quote
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return nil
		case c == '\\':
			if s.b[s.i+1] != 'u' {
				s.i += 2
				continue
			}
			r := hex4(s.b[s.i+2 : s.i+6])
			s.i += 6
			switch {
			case r >= 0xDC00 && r <= 0xDFFF:
				return fmt.Errorf("%s: \\u%04x is a lone low surrogate, not a character: send UTF-8 text", what, r)
			case r >= 0xD800 && r <= 0xDBFF:
				if s.i+6 > len(s.b) || s.b[s.i] != '\\' || s.b[s.i+1] != 'u' {
					return fmt.Errorf("%s: \\u%04x is a high surrogate without its low half, not a character: send UTF-8 text", what, r)
				}
				if lo := hex4(s.b[s.i+2 : s.i+6]); lo < 0xDC00 || lo > 0xDFFF {
					return fmt.Errorf("%s: \\u%04x is a high surrogate without its low half, not a character: send UTF-8 text", what, r)
				}
				s.i += 6
			}
		case c < utf8.RuneSelf:
			s.i++
		default:
			r, n := utf8.DecodeRune(s.b[s.i:])
			if r == utf8.RuneError && n <= 1 {
				return fmt.Errorf("%s is not valid UTF-8 (byte 0x%02x): send UTF-8 text", what, c)
			}
			s.i += n
		}
	}
	return nil
}

// foldKey maps key to one form for every spelling encoding/json takes as the same
// field name: Unicode simple case folding, so "Path", "PATH" and "ſ" for "s" (U+017F)
// or "K" (U+212A, the Kelvin sign) for "k" all fold alike.
func foldKey(key string) string {
	return strings.Map(func(r rune) rune {
		// The smallest rune of r's folding orbit stands for the orbit.
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, key)
}

// hex4 reads four hex digits (valid JSON guarantees them).
func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}
