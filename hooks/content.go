package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/note"
)

// content applies the rules about a note's bytes: the codec's, the profile's and the
// typed edges'. Profile off has none.
func (g *Gates) content(p note.Path, raw []byte) []Violation {
	return g.check(p, raw).vs
}

// check runs the content rules over raw and returns the checker holding their
// violations, each with its key (see baseline.go), and the parsed note (nil when
// the codec refused it or the profile is off).
func (g *Gates) check(p note.Path, raw []byte) *checker {
	if g.profile == config.ProfileOff {
		return &checker{g: g, path: p, raw: raw}
	}
	c := checker{g: g, path: p, raw: raw}
	n, err := note.Parse(p, raw)
	if err != nil {
		c.codec(err)
	}
	c.finalNewline()
	if n != nil {
		c.n = n
		c.defaults()
		if g.profile == config.ProfileStrict {
			c.strict()
		}
		c.edges()
	}
	return &c
}

// checker gathers the content violations of one note.
type checker struct {
	g    *Gates
	path note.Path
	raw  []byte
	n    *note.Note // nil when the codec refused the note
	vs   []Violation
	// keys[i] says what vs[i] is about, independent of where it sits in the file
	// (baselineKey): a change is judged by the keys it adds.
	keys []string
	// element, when set, is the element the next violations are about (a typed
	// edge's to, type and why) and replaces the line's text in their keys.
	element string
}

func (c *checker) add(rule string, line int, format string, a ...any) {
	v := Violation{Rule: rule, Path: c.path, Line: line, Message: fmt.Sprintf(format, a...)}
	c.vs = append(c.vs, v)
	c.keys = append(c.keys, baselineKey(v, c.raw, c.element))
}

// codecHint says how to fix each of the note codec's rules.
func codecHint(r note.Rule) string {
	switch r {
	case note.RuleInvalidUTF8:
		return "save the file as UTF-8"
	case note.RuleUnterminated:
		return "close the frontmatter with a line holding only ---"
	case note.RuleTooLarge:
		return fmt.Sprintf("keep the frontmatter under %d KiB; move long values into the body", note.MaxFrontmatter>>10)
	case note.RuleYAMLSyntax:
		return "fix the YAML; quote values that contain \": \" or start with [, {, #, &, * or !"
	case note.RuleNotMapping:
		return "write the frontmatter as `key: value` lines"
	case note.RuleDuplicateKey:
		return "keep one of the repeated keys"
	case note.RuleYAMLAlias:
		return "write each value out instead of using &anchors, *aliases or << merge keys"
	case note.RuleInvalidEdges:
		return "write each edge as `- {to: \"[[Note]]\", type: supports, why: \"…\"}`"
	case note.RuleInvalidTags:
		return "write tags as a list, e.g. `tags: [data-structures, hashing]`"
	case note.RuleInvalidAliases:
		return "write aliases as a list of strings, e.g. `aliases: [\"Bloom filter\"]`"
	}
	return ""
}

// codec turns the note codec's error into a violation under the codec's rule id.
func (c *checker) codec(err error) {
	var pe *note.ParseError
	if !errors.As(err, &pe) {
		c.add(RuleNoteInvalid, 0, "the note cannot be parsed: %v", err)
		return
	}
	msg := pe.Msg
	if hint := codecHint(pe.Rule); hint != "" {
		msg += "; " + hint
	}
	c.add(string(pe.Rule), pe.Line, "%s", msg)
}

// finalNewline applies final-newline, and final-newline-single in strict.
func (c *checker) finalNewline() {
	raw := c.raw
	if len(raw) == 0 || raw[len(raw)-1] != '\n' {
		c.add(RuleFinalNewline, bytes.Count(raw, []byte{'\n'})+1, "the file must end with a newline (\\n): add one after the last line")
		return
	}
	if c.g.profile != config.ProfileStrict {
		return
	}
	// Walk back over blank lines before the final newline.
	end := len(raw) - 1 // the final '\n'
	first := -1         // offset of the first trailing blank line
	for {
		start := bytes.LastIndexByte(raw[:end], '\n') + 1
		if len(bytes.TrimSpace(raw[start:end])) != 0 {
			break
		}
		first = start
		if start == 0 {
			break
		}
		end = start - 1
	}
	if first >= 0 {
		c.add(RuleFinalNewlineSingle, bytes.Count(raw[:first], []byte{'\n'})+1,
			"the file must end with exactly one newline: remove the blank lines at the end")
	}
}

// defaults applies the default profile's rules (strict includes them).
func (c *checker) defaults() {
	if strings.TrimSpace(c.n.Title) == "" {
		c.add(RuleTitleMissing, 0, "the note has no title: give it a `title:` in the frontmatter, a `# Heading`, or a file name before \".md\"")
	}
	for _, t := range c.fmTags() {
		if !kebabTag(t.name) {
			fix := kebab(t.name)
			if fix != "" {
				c.add(RuleTagsFormat, t.line, "tags must be lowercase kebab-case (nested tags as parent/child): write `%s`, not `%s`", fix, t.name)
			} else {
				c.add(RuleTagsFormat, t.line, "tags must be lowercase kebab-case (letters, digits and -, nested as parent/child): `%s` is not", t.name)
			}
		}
	}
}

// strict applies the strict profile's frontmatter rules.
func (c *checker) strict() {
	c.required("title", RuleTitleRequired, "title: Bloom filters")
	c.required("type", RuleTypeRequired, "type: concept")
	c.required("status", RuleStatusRequired, "status: active")

	seen := map[string]bool{}
	for _, t := range c.fmTags() {
		if kebabTag(t.name) {
			seen[strings.ToLower(t.name)] = true
		}
	}
	if k := len(seen); k < 2 || k > 5 {
		line := c.keyLine("tags")
		if line == 0 {
			line = c.keyLine("tag")
		}
		c.add(RuleTagsCount, line, "the strict profile wants 2 to 5 distinct lowercase kebab-case tags in the frontmatter, e.g. `tags: [data-structures, hashing]`; this note has %d", k)
	}

	c.updated()

	for _, k := range []string{"aliases", "alias"} {
		if line := c.keyLine(k); line > 0 {
			c.add(RuleAliasesForbidden, line, "the strict profile does not allow `%s`: remove the key and use the title or links instead", k)
		}
	}
}

// field returns a top-level frontmatter value.
func (c *checker) field(key string) (any, bool) {
	if c.n.Frontmatter == nil {
		return nil, false
	}
	v, ok := c.n.Frontmatter.Fields[key]
	return v, ok
}

// keyLine returns the line of a top-level frontmatter key, 0 when absent.
func (c *checker) keyLine(key string) int {
	if c.n.Frontmatter == nil {
		return 0
	}
	return c.n.Frontmatter.KeyLines[key]
}

// required applies a strict "non-empty single value" rule to key.
func (c *checker) required(key, rule, example string) {
	v, ok := c.field(key)
	line := c.keyLine(key)
	switch x := v.(type) {
	case string:
		if strings.TrimSpace(x) != "" {
			return
		}
	case int, float64, bool, time.Time:
		return
	case []any, map[string]any:
		c.add(rule, line, "`%s` must be a single value, not a list or mapping, e.g. `%s`", key, example)
		return
	}
	if !ok {
		c.add(rule, line, "the strict profile requires a `%s` in the frontmatter, e.g. `%s`", key, example)
		return
	}
	c.add(rule, line, "`%s` is empty: give it a value, e.g. `%s`", key, example)
}

// dateLayouts are the forms `updated` may take: YYYY-MM-DD and the YAML 1.1
// timestamp forms, as the YAML library parses them.
func dateLayouts() []string {
	return []string{
		"2006-01-02",
		"2006-1-2T15:4:5.999999999Z07:00",
		"2006-1-2t15:4:5.999999999Z07:00",
		"2006-1-2 15:4:5.999999999",
		"2006-1-2",
	}
}

// updated applies updated-date.
func (c *checker) updated() {
	v, ok := c.field("updated")
	line := c.keyLine("updated")
	const example = "`updated: 2026-11-30`"
	if !ok || v == nil {
		if ok {
			c.add(RuleUpdatedDate, line, "`updated` is empty: give the date of the last real change, e.g. %s", example)
		} else {
			c.add(RuleUpdatedDate, line, "the strict profile requires `updated` in the frontmatter, e.g. %s", example)
		}
		return
	}
	switch x := v.(type) {
	case time.Time:
		return
	case string:
		s := strings.TrimSpace(x)
		for _, layout := range dateLayouts() {
			if _, err := time.Parse(layout, s); err == nil {
				return
			}
		}
		c.add(RuleUpdatedDate, line, "`updated: %s` is not a real calendar date: write YYYY-MM-DD, e.g. %s", s, example)
		return
	}
	c.add(RuleUpdatedDate, line, "`updated` must be a date written YYYY-MM-DD, e.g. %s", example)
}

// fmTag is one tag written in the frontmatter, with its line.
type fmTag struct {
	name string
	line int
}

// fmTags returns the tags written in the frontmatter (`tags` or `tag`), as the codec
// reads them: a list of values, or one string split on commas and white space, each
// without a leading '#'. Inline #tags in the body are not included: they are prose,
// and the rules apply only to the tags a note declares.
func (c *checker) fmTags() []fmTag {
	var out []fmTag
	for _, key := range []string{"tags", "tag"} {
		v, ok := c.field(key)
		if !ok {
			continue
		}
		var names []string
		switch x := v.(type) {
		case string:
			names = strings.FieldsFunc(x, func(r rune) bool {
				return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r'
			})
		case []any:
			for _, item := range x {
				if item != nil {
					names = append(names, fmt.Sprint(item))
				}
			}
		case nil:
		default:
			names = []string{fmt.Sprint(x)}
		}
		for _, name := range names {
			name = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(name), "#"))
			if name != "" {
				out = append(out, fmTag{name: name, line: c.valueLine(key, name)})
			}
		}
	}
	return out
}

// valueLine returns the line, within top-level key's value, of the first line that
// holds text; the key's line when none does.
func (c *checker) valueLine(key, text string) int {
	fm := c.n.Frontmatter
	from := fm.KeyLines[key]
	if from == 0 {
		return 0
	}
	to := bytes.Count(c.raw[:fm.End], []byte{'\n'}) // the closing delimiter's line, roughly
	for _, l := range fm.KeyLines {
		if l > from && l < to {
			to = l
		}
	}
	line, pos := 1, 0
	for pos <= len(c.raw) && line < to {
		eol := bytes.IndexByte(c.raw[pos:], '\n')
		next := len(c.raw)
		if eol >= 0 {
			next = pos + eol
		}
		if line >= from && bytes.Contains(c.raw[pos:next], []byte(text)) {
			return line
		}
		if eol < 0 {
			break
		}
		pos, line = next+1, line+1
	}
	return from
}

// kebabTag reports whether t is lowercase kebab-case, nested parts joined by '/'.
func kebabTag(t string) bool {
	for _, part := range strings.Split(t, "/") {
		if !kebabPart(part) {
			return false
		}
	}
	return true
}

// kebabPart reports whether s is one or more runs of lowercase letters and digits
// joined by single hyphens. Letters without case (CJK, …) count as lowercase.
func kebabPart(s string) bool {
	if s == "" {
		return false
	}
	dash := true // at the start, a '-' is not allowed
	for _, r := range s {
		if r == '-' {
			if dash {
				return false
			}
			dash = true
			continue
		}
		if !unicode.IsDigit(r) && !(unicode.IsLetter(r) && !unicode.IsUpper(r) && !unicode.IsTitle(r)) {
			return false
		}
		dash = false
	}
	return !dash
}

// kebab suggests the kebab-case form of a tag: "Data Structures" gives
// "data-structures", "Lang/Go_Lang" gives "lang/go-lang". It returns "" when nothing
// usable is left.
func kebab(t string) string {
	var parts []string
	for _, part := range strings.Split(t, "/") {
		var b strings.Builder
		dash := false
		for _, r := range strings.ToLower(part) {
			if unicode.IsDigit(r) || unicode.IsLetter(r) && !unicode.IsUpper(r) && !unicode.IsTitle(r) {
				if dash && b.Len() > 0 {
					b.WriteByte('-')
				}
				dash = false
				b.WriteRune(r)
			} else {
				dash = true
			}
		}
		if b.Len() > 0 {
			parts = append(parts, b.String())
		}
	}
	return strings.Join(parts, "/")
}
