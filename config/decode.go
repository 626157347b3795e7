package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// decoder walks a parsed YAML node tree and collects every problem it meets, so one
// Parse reports all of a file's mistakes at once. Each decode helper leaves its
// destination unchanged when the node is null (an empty value takes the default) or
// wrong.
type decoder struct {
	errs []error
	// quiet: errors never quote a value (machine.yaml, whose values may be secrets).
	quiet bool
}

func (d *decoder) errorf(n *yaml.Node, key, format string, a ...any) {
	line := 0
	if n != nil {
		line = n.Line
	}
	d.errs = append(d.errs, &Error{Line: line, Key: key, Msg: fmt.Sprintf(format, a...)})
}

// usable reports whether n holds a value to decode: false for null (take the default)
// and for an alias (an error: aliases are not allowed, so a file can never expand into
// more than it spells out).
func (d *decoder) usable(n *yaml.Node, key string) bool {
	if n == nil {
		return false
	}
	if n.Kind == yaml.AliasNode {
		d.errorf(n, key, "YAML aliases (*name) are not allowed; write the value out")
		return false
	}
	return !(n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}

// describe names what a node is, for "want X, got Y" messages; a quiet decoder
// does not quote it.
func (d *decoder) describe(n *yaml.Node) string {
	if d.quiet {
		return kindOf(n)
	}
	return describe(n)
}

// describe names what a node is, quoting a scalar.
func describe(n *yaml.Node) string {
	if n.Kind != yaml.ScalarNode {
		return kindOf(n)
	}
	v := n.Value
	if len(v) > 40 {
		v = v[:40] + "…"
	}
	return strconv.Quote(v)
}

func join(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

// mapping calls set for each entry of the mapping n, in document order, with the
// entry's dotted key. Keys not in known, duplicate keys and non-string keys are errors
// and are not passed on.
func (d *decoder) mapping(n *yaml.Node, key string, known []string, set func(k, full string, v *yaml.Node)) {
	d.mappingAlso(n, key, known, nil, nil, set)
}

// mappingAlso is mapping that hands the keys in also to other, with the key's line,
// without listing them as allowed (the per-machine keys a committed file may name
// only to be ignored).
func (d *decoder) mappingAlso(n *yaml.Node, key string, known, also []string, other func(full string, line int, v *yaml.Node),
	set func(k, full string, v *yaml.Node)) {
	if !d.usable(n, key) {
		return
	}
	if n.Kind != yaml.MappingNode {
		of := "names to settings"
		if known != nil {
			of = strings.Join(known, ", ")
		}
		d.errorf(n, key, "want a mapping of %s, got %s", of, d.describe(n))
		return
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], n.Content[i+1]
		if kn.Kind == yaml.ScalarNode && kn.ShortTag() == "!!merge" {
			d.errorf(kn, key, "merge keys (<<) are not allowed; write the keys out")
			continue
		}
		if kn.Kind != yaml.ScalarNode || kn.ShortTag() != "!!str" {
			d.errorf(kn, key, "keys must be plain words; got %s", d.describe(kn))
			continue
		}
		full := join(key, kn.Value)
		if first, dup := seen[kn.Value]; dup {
			d.errorf(kn, full, "key is repeated (first at line %d); keep one", first)
			continue
		}
		seen[kn.Value] = kn.Line
		if contains(also, kn.Value) {
			other(full, kn.Line, vn)
			continue
		}
		if known != nil && !contains(known, kn.Value) {
			d.errorf(kn, full, "unknown key; allowed here: %s", strings.Join(known, ", "))
			continue
		}
		set(kn.Value, full, vn)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// str decodes a string scalar.
func (d *decoder) str(n *yaml.Node, key string, dst *string) bool {
	if !d.usable(n, key) {
		return false
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		d.errorf(n, key, "want a string, got %s", d.describe(n))
		return false
	}
	if !utf8.ValidString(n.Value) {
		d.errorf(n, key, "string is not valid UTF-8")
		return false
	}
	*dst = n.Value
	return true
}

// integer decodes an integer in [lo, hi].
func (d *decoder) integer(n *yaml.Node, key string, lo, hi int64, dst *int) {
	if !d.usable(n, key) {
		return
	}
	var v int64
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&v) != nil {
		d.errorf(n, key, "want a whole number from %d to %d, got %s", lo, hi, d.describe(n))
		return
	}
	if v < lo || v > hi {
		d.errorf(n, key, "want a whole number from %d to %d, got %d", lo, hi, v)
		return
	}
	*dst = int(v)
}

// number decodes a finite number (integer or float) in [lo, hi].
func (d *decoder) number(n *yaml.Node, key string, lo, hi float64, dst *float64) {
	if !d.usable(n, key) {
		return
	}
	var v float64
	tag := n.ShortTag()
	if n.Kind != yaml.ScalarNode || (tag != "!!int" && tag != "!!float") || n.Decode(&v) != nil ||
		math.IsNaN(v) || math.IsInf(v, 0) {
		d.errorf(n, key, "want a number from %s to %s, got %s", fmtNum(lo), fmtNum(hi), d.describe(n))
		return
	}
	if v < lo || v > hi {
		d.errorf(n, key, "want a number from %s to %s, got %s", fmtNum(lo), fmtNum(hi), fmtNum(v))
		return
	}
	*dst = v
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// strs decodes a list of strings, each checked by check (which returns a normalised
// value or an error message). Duplicates (after normalising) are dropped.
func (d *decoder) strs(n *yaml.Node, key string, dst *[]string, check func(string) (string, string)) {
	if !d.usable(n, key) {
		return
	}
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, key, "want a list, e.g. [a, b], got %s", d.describe(n))
		return
	}
	out := make([]string, 0, len(n.Content))
	ok := true
	for i, item := range n.Content {
		ikey := fmt.Sprintf("%s[%d]", key, i)
		var s string
		if !d.usable(item, ikey) {
			if item.Kind != yaml.AliasNode {
				d.errorf(item, ikey, "empty list item; remove it")
			}
			ok = false
			continue
		}
		if !d.str(item, ikey, &s) {
			ok = false
			continue
		}
		v, msg := check(s)
		if msg != "" {
			d.errorf(item, ikey, "%s", msg)
			ok = false
			continue
		}
		if !contains(out, v) {
			out = append(out, v)
		}
	}
	if ok {
		*dst = out
	}
}

// folder checks a folder prefix such as "personal-notes/" and returns it with a
// trailing slash, or an error message.
func folder(s string) (string, string) {
	const hint = `a folder is a relative path such as "personal-notes/"`
	switch {
	case s == "" || s == "/":
		return "", "empty folder; " + hint
	case strings.HasPrefix(s, "/"):
		return "", fmt.Sprintf("%q is absolute; %s", s, hint)
	case strings.ContainsRune(s, '\\'):
		return "", fmt.Sprintf("%q contains a backslash; use / between folders", s)
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return "", fmt.Sprintf("%q contains a control character", s)
	}
	s = strings.TrimSuffix(s, "/")
	for _, part := range strings.Split(s, "/") {
		switch part {
		case "":
			return "", fmt.Sprintf("%q has an empty folder name (//); %s", s, hint)
		case ".", "..":
			return "", fmt.Sprintf("%q contains %q; %s", s, part, hint)
		}
	}
	return s + "/", ""
}

// word checks a non-empty string without whitespace.
func word(s string) (string, string) {
	if s == "" {
		return "", "empty string"
	}
	if strings.IndexFunc(s, unicode.IsSpace) >= 0 {
		return "", fmt.Sprintf("%q contains whitespace; give one word per item", s)
	}
	return s, ""
}

// boolean decodes true or false.
func (d *decoder) boolean(n *yaml.Node, key string, dst *bool) {
	if !d.usable(n, key) {
		return
	}
	var v bool
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" || n.Decode(&v) != nil {
		d.errorf(n, key, "want true or false, got %s", d.describe(n))
		return
	}
	*dst = v
}

// secret decodes a string that must never be shown: an error about it names the key
// and line, never the value.
func (d *decoder) secret(n *yaml.Node, key string, dst *Secret) {
	if !d.usable(n, key) {
		return
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" || !utf8.ValidString(n.Value) {
		d.errorf(n, key, "want a string (the value is not shown)")
		return
	}
	*dst = Secret(n.Value)
}

// inert reports whether n says nothing: null, an empty string, an empty mapping or
// list.
func inert(n *yaml.Node) bool {
	if n == nil {
		return true
	}
	switch n.Kind {
	case yaml.ScalarNode:
		return n.ShortTag() == "!!null" || (n.ShortTag() == "!!str" && n.Value == "")
	case yaml.MappingNode, yaml.SequenceNode:
		return len(n.Content) == 0
	}
	return false
}
