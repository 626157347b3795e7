package vault

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/norn-vault/norn/note"
)

// FuzzSectionText: whatever the bytes and the line, the text handed to the
// reranker is at most sectionCap bytes, valid UTF-8 when the note is, and never
// holds the frontmatter of a note that parses.
func FuzzSectionText(f *testing.F) {
	for _, s := range []string{
		"---\ntitle: T\nsecret: fm\n---\n# A\n\nalpha\n\n## B\n\nbeta\n",
		"# A\n\n" + strings.Repeat("long line of text\n", 300) + "needle here\n## C\n\ngamma\n",
		"---\ntitle: [unclosed\n---\nbody\n", "---\nno end\n", "", "no heading at all\n", "# Ünïcödé ✓\n\ntëxt\n",
	} {
		for _, line := range []int{0, 1, 3, 7, 305, 10000} {
			f.Add(s, line)
		}
	}
	f.Fuzz(func(t *testing.T, raw string, line int) {
		got := sectionText("n.md", []byte(raw), line)
		if len(got) > sectionCap {
			t.Fatalf("%d bytes", len(got))
		}
		if utf8.ValidString(raw) && !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8 from valid input: %q", got)
		}
		if n, err := note.Parse("n.md", []byte(raw)); err == nil && n.BodyStart > 3 && strings.Contains(raw[:n.BodyStart], "secret: fm") &&
			strings.Contains(got, "secret: fm") && !strings.Contains(raw[n.BodyStart:], "secret: fm") {
			t.Fatalf("frontmatter sent: %q", got)
		}
	})
}
