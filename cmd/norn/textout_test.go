package main

import (
	"strings"
	"testing"
	"unicode"
)

// TestCLI_HumanOutputHasNoControlCharacters: a title, a heading and a body line
// holding escape sequences and C1 controls reach search's, links' and log's human
// output as text only; read still prints the note's bytes exactly.
func TestCLI_HumanOutputHasNoControlCharacters(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "", "init")
	evil := "---\ntitle: \"Zeta \\e[31m\\u009b2J\"\n---\n# Zeta \x1b]0;pwned\x07\n\nzeta body [[other]] \x1b[2J\r\n"
	mustCLI(t, dir, evil, "write", "zeta.md")
	mustCLI(t, dir, "# Other\n\nzeta links back [[zeta]] \x1b[5m\n", "write", "other.md", "--message", "other note")
	for _, args := range [][]string{{"search", "zeta"}, {"links", "zeta.md"}, {"neighborhood", "zeta.md"}, {"ls"}, {"log"}} {
		out := mustCLI(t, dir, "", args...)
		if strings.ContainsFunc(out, func(r rune) bool { return r != '\n' && r != '\t' && unicode.IsControl(r) }) {
			t.Errorf("%q prints control characters: %q", args, out)
		}
	}
	if got := mustCLI(t, dir, "", "read", "zeta.md"); got != evil {
		t.Errorf("read changed the note's bytes: %q", got)
	}
}
