package note_test

import (
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"

	"github.com/norn-vault/norn/note"
)

func TestFold(t *testing.T) {
	for _, tt := range [][2]string{
		{"Foo.md", "foo.md"}, {"CASE", "case"}, {"caf\u00e9", "cafe\u0301"}, {"CAF\u00c9", "cafe\u0301"},
		{"\u212aey", "key"}, {"\u2126", "\u03c9"}, {"\u03a3", "\u03c2"}, {"\uac00", "\u1100\u1161"}, {"\u01c5", "\u01c4"},
	} {
		if a, b := note.Fold(tt[0]), note.Fold(tt[1]); a != b {
			t.Errorf("Fold(%+q) = %+q, Fold(%+q) = %+q: want equal", tt[0], a, tt[1], b)
		}
	}
	for _, tt := range [][2]string{{"a", "b"}, {"strasse", "straße"}, {"e", "é"}, {"ﬁ", "fi"}} {
		if note.Fold(tt[0]) == note.Fold(tt[1]) {
			t.Errorf("%+q and %+q fold alike", tt[0], tt[1])
		}
	}
}

// FuzzFold: a name folds alike composed and decomposed and in either case; an ASCII
// name folds to its lower case; the fold of a fold is itself.
func FuzzFold(f *testing.F) {
	for _, s := range []string{"Foo.md", "caf\u00e9", "cafe\u0301", "\u212a", "ſ", "İ", "ß", "Σς", "\uac00", "ǅ", "a\u0308\u0301", "\u0301x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k := note.Fold(s)
		if note.Fold(norm.NFC.String(s)) != k || note.Fold(norm.NFD.String(s)) != k {
			t.Fatalf("%+q folds differently composed and decomposed", s)
		}
		if note.Fold(strings.ToUpper(s)) != k {
			t.Fatalf("%+q and its upper case fold apart", s)
		}
		ascii := true
		for i := 0; i < len(s); i++ {
			ascii = ascii && s[i] < 0x80
		}
		if ascii && k != strings.ToLower(s) {
			t.Fatalf("Fold(%q) = %q, want its lower case", s, k)
		}
	})
}
