package hooks

import (
	"bytes"

	"github.com/norn-vault/norn/note"
)

// A content gate judges what a change introduces, not the note it lands in: a
// note that already breaks a rule (no final newline, a tag in CamelCase, a typed
// edge with a short why) stays editable and movable, and a write is refused only
// for the violations it adds or touches. `norn doctor` (Lint) keeps listing the old
// ones.
//
// The old content's violations are the baseline. Each violation has a key that
// names what it is about without naming where it sits, so that an edit above it,
// which shifts its line, leaves it the same violation:
//
//   - the whole-file rules (final-newline, final-newline-single): the rule alone;
//   - a typed edge's rules: the rule and the edge (its to, type and why);
//   - any other rule with a line: the rule and the text of that line;
//   - a rule without a line (title-missing, a strict key that is missing): the rule
//     and its message.
//
// Keys are counted, not just compared: a change that adds a second line breaking a
// rule the same way as an existing one (two identical bad tag lines) is refused
// for the second. A violation whose line the change edits has a new key, so it is
// the change's: the writer touched it and fixes it.

// baselineKey is v's key (above); element, when set, names the element v is
// about in place of its line's text.
func baselineKey(v Violation, raw []byte, element string) string {
	switch {
	case v.Rule == RuleFinalNewline || v.Rule == RuleFinalNewlineSingle:
		return v.Rule
	case element != "":
		return v.Rule + "\x00" + element
	case v.Line > 0:
		return v.Rule + "\x00" + string(lineText(raw, v.Line))
	}
	return v.Rule + "\x00\x00" + v.Message
}

// lineText returns line n (1-based) of raw without its line break and trailing
// white space; nil when raw has fewer lines.
func lineText(raw []byte, n int) []byte {
	for i := 1; i < n; i++ {
		eol := bytes.IndexByte(raw, '\n')
		if eol < 0 {
			return nil
		}
		raw = raw[eol+1:]
	}
	if eol := bytes.IndexByte(raw, '\n'); eol >= 0 {
		raw = raw[:eol]
	}
	return bytes.TrimRight(raw, " \t\r")
}

// introduced returns the violations of c (the proposed bytes) that are not in old
// (the current bytes), counting keys: each key of old excuses one violation of c
// with that key.
func introduced(c, old *checker) []Violation {
	if len(c.vs) == 0 || len(old.vs) == 0 {
		return c.vs
	}
	had := make(map[string]int, len(old.keys))
	for _, k := range old.keys {
		had[k]++
	}
	var out []Violation
	for i, v := range c.vs {
		if k := c.keys[i]; had[k] > 0 {
			had[k]--
			continue
		}
		out = append(out, v)
	}
	return out
}

// changeContent applies the content rules to the proposed bytes of c, a put or a
// move, minus the violations the current bytes at existing already had (when there
// are current bytes within the size limit). It returns the parsed proposed note (nil
// when the codec refused it or the profile is off).
func (g *Gates) changeContent(c Change, existing note.Path) ([]Violation, *note.Note) {
	cur := g.check(c.Path, c.New)
	if len(cur.vs) == 0 || c.Old == nil || len(g.size(existing, c.Old)) > 0 {
		return cur.vs, cur.n
	}
	return introduced(cur, g.check(existing, c.Old)), cur.n
}
