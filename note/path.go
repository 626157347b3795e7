package note

import "strings"

// Stem returns the file name of p without its ".md" extension (matched
// case-insensitively): "tech/Bloom filters.md" gives "Bloom filters".
func Stem(p Path) string {
	s := string(p)
	s = s[strings.LastIndexByte(s, '/')+1:]
	if len(s) >= 3 && strings.EqualFold(s[len(s)-3:], ".md") {
		s = s[:len(s)-3]
	}
	return s
}

// Folder returns the folder holding p, without a trailing slash: "tech/a/b.md"
// gives "tech/a"; a note at the vault root gives "".
func (p Path) Folder() string {
	s := string(p)
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		return s[:i]
	}
	return ""
}
