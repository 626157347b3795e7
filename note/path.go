package note

import "strings"

// Stem returns the file name of p without its ".md" extension (matched
// case-insensitively): "tech/Bloom filters.md" gives "Bloom filters".
func Stem(p Path) string {
	s := string(p)
	s = s[strings.LastIndexByte(s, '/')+1:]
	if hasMDSuffix(s) {
		s = s[:len(s)-3]
	}
	return s
}

// IsNote reports whether p names a Markdown note: it ends in ".md", matched
// case-insensitively ("a/B.MD" is a note, "a/b.md.txt" and "a/b.png" are not). It is
// the one rule for "is this a note?"; callers that also exclude .norn/ say so.
func IsNote(p Path) bool { return hasMDSuffix(string(p)) }

// hasMDSuffix reports whether s ends in ".md", case-insensitively.
func hasMDSuffix(s string) bool {
	return len(s) >= 3 && strings.EqualFold(s[len(s)-3:], ".md")
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
