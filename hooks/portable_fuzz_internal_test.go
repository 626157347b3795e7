package hooks

import (
	"testing"

	"golang.org/x/text/unicode/norm"
)

// FuzzFoldName checks the fold path-case-collision compares: sameFold (the fast
// path for ASCII names) agrees with comparing folds, and a name folds alike in its
// composed and decomposed forms.
func FuzzFoldName(f *testing.F) {
	for _, s := range [][2]string{{"Foo.md", "foo.md"}, {"caf\u00e9", "cafe\u0301"}, {"\u212a", "k"}, {"ſ", "S"}, {"İ", "i"}, {"ß", "SS"}, {"Σ", "ς"}, {"a", "b"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if got, want := sameFold(a, foldName(b)), foldName(a) == foldName(b); got != want {
			t.Fatalf("sameFold(%q, fold(%q)) = %v, folds equal = %v", a, b, got, want)
		}
		if foldName(norm.NFC.String(a)) != foldName(norm.NFD.String(a)) {
			t.Fatalf("%q folds differently composed and decomposed", a)
		}
	})
}
