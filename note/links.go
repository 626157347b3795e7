package note

import (
	"net/url"
	"strings"
	"unicode/utf8"
)

// splitWiki splits the inside of a wikilink, "target#heading|alias" or
// "target#^block|alias". The alias starts at the first '|'; a '\' right before it
// (the escaped pipe "\|" of a table cell) is dropped. Each part is trimmed.
func splitWiki(content string) (target, heading, block, alias string) {
	if p := strings.IndexByte(content, '|'); p >= 0 {
		alias = strings.TrimSpace(content[p+1:])
		content = strings.TrimSuffix(content[:p], `\`)
	}
	target = content
	if h := strings.IndexByte(content, '#'); h >= 0 {
		target = content[:h]
		frag := strings.TrimSpace(content[h+1:])
		if b, ok := strings.CutPrefix(frag, "^"); ok {
			block = strings.TrimSpace(b)
		} else {
			heading = frag
		}
	}
	return strings.TrimSpace(target), heading, block, alias
}

// noteDest decides whether a Markdown link destination names a note and splits it.
// It refuses URLs with a scheme ("https:", "mailto:", "obsidian:", ...), "//host"
// and root-relative "/path" destinations, "www." hosts, pure "#anchor" links and
// empty destinations. An image ("![alt](dest)") is a note link only when its path
// ends in ".md"; another link when its path ends in ".md" or its last path segment
// has no extension ("Note%20name"). The path is kept relative as written, after
// backslash escapes and percent-encoding are decoded; "?query" is dropped.
func noteDest(dest []byte, image bool) (target, heading, block string, ok bool) {
	if len(dest) == 0 || dest[0] == '#' || dest[0] == '/' || dest[0] == '\\' || hasScheme(dest) ||
		len(dest) >= 4 && strings.EqualFold(string(dest[:4]), "www.") {
		return "", "", "", false
	}
	d := unescapeBackslash(dest)
	path, frag, _ := strings.Cut(d, "#")
	path, _, _ = strings.Cut(path, "?")
	path = percentDecode(path)
	if path == "" {
		return "", "", "", false
	}
	isMD := hasMDSuffix(path)
	if image && !isMD {
		return "", "", "", false
	}
	if !isMD {
		last := path[strings.LastIndexByte(path, '/')+1:]
		if last == "" || strings.IndexByte(last, '.') >= 0 {
			return "", "", "", false
		}
	}
	frag = percentDecode(frag)
	if b, isBlock := strings.CutPrefix(frag, "^"); isBlock {
		block = b
	} else {
		heading = frag
	}
	return path, heading, block, true
}

// hasScheme reports whether s starts with a URL scheme: a letter, then at least
// one more of letters, digits, '+', '-', '.', then ':'. A single letter ("C:") is
// a drive, not a scheme.
func hasScheme(s []byte) bool {
	for i := 0; i < len(s) && i < 33; i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case c == ':':
			return i >= 2
		default:
			return false
		}
	}
	return false
}

// unescapeBackslash removes the backslash of each backslash-escaped ASCII
// punctuation character.
func unescapeBackslash(b []byte) string {
	if !strings.Contains(string(b), `\`) {
		return string(b)
	}
	var sb strings.Builder
	for i := 0; i < len(b); i++ {
		if b[i] == '\\' && i+1 < len(b) && isASCIIPunct(b[i+1]) {
			i++
		}
		sb.WriteByte(b[i])
	}
	return sb.String()
}

// percentDecode decodes %XX escapes, keeping s as written when it holds a malformed
// escape or decodes to invalid UTF-8.
func percentDecode(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	if d, err := url.PathUnescape(s); err == nil && utf8.ValidString(d) {
		return d
	}
	return s
}
