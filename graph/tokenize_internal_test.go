package graph

import (
	"slices"
	"strings"
	"testing"
)

func analyseText(a *analyzer, s string) []string {
	st := a.newStemmer()
	var out []string
	words([]byte(s), func(w word) {
		if t := st.term(w.folded); t != "" {
			out = append(out, t)
		}
	})
	return out
}

func TestAnalyzer_Terms(t *testing.T) {
	a := newAnalyzer(DefaultStopWords)
	tests := []struct {
		in   string
		want string
	}{
		{"Hello World", "hello world"},
		{"The art of war", "art war"},                     // stop words dropped
		{"running runs ran", "run run ran"},               // Porter2
		{"configuration configured", "configur configur"}, // Porter2
		{"Ærøskøbing", "aeroskob"},                        // æ→ae ø→o, stemmed
		{"aeroskobing", "aeroskob"},                       // the ASCII form agrees
		{"Straße strasse", "strass strass"},               // ß→ss
		{"café CAFE", "cafe cafe"},                        // é→e, case
		{"naïve Zürich Ångström", "naiv zurich angstrom"}, // diacritics
		{"Łódź", "lodz"},                                  // ł, ó, ź
		{"obsidian's notes", "obsidian note"},             // possessive
		{"don't", "dont"},                                 // apostrophe joins, then drops
		{"it’s fine", "fine"},                             // typographic apostrophe joins; "it" is a stop word
		{"buy-me-a-coffee", "buy me coffe"},               // hyphens split ("a" is a stop word)
		{"C++17 x86_64 3.14", "c 17 x86 64 3 14"},         // digits kept, not stemmed
		{"ﬁle Ｆｕｌｌ", "file full"},                         // compatibility forms
		{"日本語です", "日 本 語 て す"},                            // one word per ideograph/kana, dakuten folded
		{"Привет мир", "привет мир"},                      // other scripts lowercased
		{strings.Repeat("x", 70) + " ok", "ok"},           // over-long words skipped
	}
	for _, tt := range tests {
		got := strings.Join(analyseText(a, tt.in), " ")
		if got != tt.want {
			t.Errorf("terms(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestWords_Positions(t *testing.T) {
	var got []int
	var starts []int
	text := "the quick  brown-fox " + strings.Repeat("y", 80) + " jumps"
	n := words([]byte(text), func(w word) {
		got = append(got, w.pos)
		starts = append(starts, w.start)
	})
	// Stop words and over-long words take a position; the long one makes no word.
	if want := []int{0, 1, 2, 3, 5}; !slices.Equal(got, want) {
		t.Errorf("positions = %v, want %v", got, want)
	}
	if n != 6 {
		t.Errorf("positions used = %d, want 6", n)
	}
	if want := []int{0, 4, 11, 17}; !slices.Equal(starts[:4], want) {
		t.Errorf("starts = %v, want %v", starts[:4], want)
	}
}

func TestAnalyzer_StopWords(t *testing.T) {
	none := newAnalyzer([]string{})
	if got := analyseText(none, "the art"); !slices.Equal(got, []string{"the", "art"}) {
		t.Errorf("no stop words: %v", got)
	}
	custom := newAnalyzer([]string{"Über"})
	if got := analyseText(custom, "uber alles"); !slices.Equal(got, []string{"all"}) {
		t.Errorf("folded stop word: %v", got)
	}
	if newAnalyzer(nil).fingerprint() == newAnalyzer(DefaultStopWords).fingerprint() {
		t.Error("fingerprints of different stop lists are equal")
	}
}

func TestFold(t *testing.T) {
	if got := fold("  Hello,   Wörld! Ærø "); got != "hello world aero" {
		t.Errorf("fold = %q", got)
	}
}

func BenchmarkWords(b *testing.B) {
	text := []byte(strings.Repeat("The quick brown fox jumps over the lazy dog; naïve café. ", 200))
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		words(text, func(word) {})
	}
}
