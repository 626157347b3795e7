package note

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Fold is the form in which Windows and macOS compare a file or folder name:
// case-folded (each character's lower case of its upper case, as NTFS's upcase
// table and APFS do) and Unicode-normalised (macOS takes "é" precomposed and
// decomposed for one name): canonical decomposition, case mapping, canonical
// composition (NFC). Two names with equal folds are one file there. An ASCII name
// folds to its lower case.
func Fold(name string) string {
	if isASCII(name) {
		return strings.ToLower(name)
	}
	return norm.NFC.String(strings.Map(func(r rune) rune {
		return unicode.ToLower(unicode.ToUpper(r))
	}, norm.NFD.String(name)))
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
