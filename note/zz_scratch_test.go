package note

import (
	"strings"
	"testing"
	"time"
)

func TestScratchSlow(t *testing.T) {
	cases := map[string]string{
		"deep flow":    "---\na: " + strings.Repeat("[", 8000) + strings.Repeat("]", 8000) + "\n---\n",
		"deep block":   "---\n" + func() string { var b strings.Builder; for i := 0; i < 400; i++ { b.WriteString(strings.Repeat(" ", i) + "a:\n") }; return b.String() }() + "---\n",
		"many keys":    "---\n" + func() string { var b strings.Builder; for i := 0; i < 1500; i++ { b.WriteString("k" + strings.Repeat("x", i%5) + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676)) + ": 1\n") }; return b.String() }() + "---\n",
		"brackets":     strings.Repeat("[", 200000),
		"wiki opens":   strings.Repeat("[[a", 100000),
		"backticks":    strings.Repeat("`a``b", 50000),
		"bang":         strings.Repeat("![", 100000),
		"hashes":       strings.Repeat("a #", 100000),
		"links":        strings.Repeat("[a](b.md)", 50000),
		"lt":           strings.Repeat("<!--", 50000),
		"mdtext":       strings.Repeat("[a](", 50000),
		"titles":       strings.Repeat("[a](b \"", 50000),
		"codeinlink":   strings.Repeat("[`", 50000),
		"nested":       strings.Repeat("[a ", 50000) + strings.Repeat("]", 50000),
	}
	for name, c := range cases {
		start := time.Now()
		_, err := Parse("x.md", []byte(c))
		t.Logf("%s: %v (%v)", name, time.Since(start), err != nil)
	}
}
