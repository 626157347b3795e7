package hooks

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/norn-vault/norn/note"
)

// A vault must clone and check out on Linux, Windows and macOS. Git accepts any
// name, so these rules refuse, for the paths a write creates, the names another
// system cannot hold or would take for a different one: path-portable for a single
// name, path-case-collision for two names that Windows (case-insensitive) or macOS
// (case-insensitive and normalising Unicode) would take for one. Existing paths are
// never judged by them: such a note stays readable, editable, archivable and
// movable to a good name; `norn doctor` lists them (LintPaths).

// portableViolations applies path-portable to p, a path a change creates. It assumes
// the rules of pathViolations passed or were reported: it judges only what they let
// through (control characters and NUL are path-invalid).
func portableViolations(p note.Path) []Violation {
	var bad []string
	for part := range strings.SplitSeq(string(p), "/") {
		if why := unportableName(part); why != "" {
			bad = append(bad, fmt.Sprintf("the name %q %s", shorten(part), why))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return []Violation{{Rule: RulePathPortable, Path: p,
		Message: "a clone on Windows or macOS could not check this path out: " + strings.Join(bad, "; ") + "; rename it"}}
}

// unportableName says why one path component cannot be checked out on Windows or
// would read as something else, or "" when it is fine.
func unportableName(name string) string {
	if name == "" || name == "." || name == ".." {
		return "" // path-invalid and path-dotdot
	}
	if dev := deviceName(name); dev != "" {
		return fmt.Sprintf("is the Windows device name %s (with or without an extension, in any case)", dev)
	}
	if i := strings.IndexAny(name, `<>:"|?*`); i >= 0 {
		return fmt.Sprintf("holds %q, which Windows forbids in file names (< > : \" | ? *)", name[i])
	}
	switch {
	case name[0] == ' ':
		return "starts with a space (tools trim it, and the path then names another note)"
	case strings.HasSuffix(name, " "):
		return "ends with a space, which Windows drops"
	case strings.HasSuffix(name, "."):
		return "ends with a dot, which Windows drops"
	}
	for _, r := range name {
		if invisible(r) {
			return fmt.Sprintf("holds the invisible character U+%04X (%s), which makes the name read as another", r, invisibleKind(r))
		}
	}
	return ""
}

// deviceName returns the Windows device name name is (CON, PRN, AUX, NUL, COM1–9,
// LPT1–9, also with the superscript digits ¹ ² ³, CONIN$, CONOUT$), in any case and
// with or without an extension, or "". Windows opens the device for such a file
// name in every folder.
func deviceName(name string) string {
	stem, _, _ := strings.Cut(name, ".")
	stem = strings.TrimRight(stem, " ")
	up := strings.ToUpper(stem)
	switch up {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return up
	}
	if len(up) < 4 || up[:3] != "COM" && up[:3] != "LPT" {
		return ""
	}
	d, size := utf8.DecodeRuneInString(up[3:])
	if 3+size != len(up) {
		return ""
	}
	if d >= '1' && d <= '9' || d == '¹' || d == '²' || d == '³' {
		return up
	}
	return ""
}

// invisible reports a character that shows nothing or changes the direction of the
// text around it: the characters HFS+ ignores in names (hfsIgnorable: U+200C–U+200F,
// U+202A–U+202E, U+206A–U+206F, U+FEFF), and U+200B (zero width space), the line
// and paragraph separators U+2028 and U+2029, and U+2060–U+2069 (word joiner,
// invisible operators, bidi isolates).
func invisible(r rune) bool {
	return hfsIgnorable(r) || r == 0x200b || r == 0x2028 || r == 0x2029 || r >= 0x2060 && r <= 0x2069
}

func invisibleKind(r rune) string {
	switch {
	case r == 0x2028 || r == 0x2029:
		return "a line or paragraph separator"
	case r >= 0x200e && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return "a bidirectional text control"
	}
	return "a zero-width character"
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// nulViolations applies content-nul to the bytes a change writes at p: git takes a
// file holding a NUL byte for a binary file (no diffs, no line merges), and Norn's
// three-way merge and search read notes as text. Only NUL bytes the write adds are
// refused (more than old holds; old is nil for a new file), so a note committed
// with one by other means can still be moved, archived or cleaned up. The line and
// the byte offset are those of the first NUL.
func nulViolations(p note.Path, b, old []byte) []Violation {
	i := bytes.IndexByte(b, 0)
	if i < 0 || bytes.Count(b, []byte{0}) <= bytes.Count(old, []byte{0}) {
		return nil
	}
	line := bytes.Count(b[:i], []byte{'\n'}) + 1
	return []Violation{{Rule: RuleContentNUL, Path: p, Line: line, Message: fmt.Sprintf(
		"the content holds a NUL byte (byte offset %d, line %d, %s in all), which makes git treat the note as a binary file; remove it (a note is UTF-8 text)",
		i, line, plural(bytes.Count(b, []byte{0}), "NUL byte"))}}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
