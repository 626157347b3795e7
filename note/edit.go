package note

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"time"

	"go.yaml.in/yaml/v3"
)

// SetField sets the top-level frontmatter key to value and returns the new note
// bytes; raw is not modified. An existing entry for key is replaced where it stands
// (with its value's lines); a new key is appended at the end of the block; a note
// without frontmatter gets a new block. Every other byte, including the other keys'
// text, comments and order, is kept. value is marshalled with YAML (two-space
// indent); an Edge or []Edge is written as entries of {to, type, why}, with `to`
// double-quoted. The frontmatter must be valid (its *ParseError is returned
// otherwise) and so must the result: a result over MaxFrontmatter is refused with
// RuleTooLarge.
func SetField(raw []byte, key string, value any) ([]byte, error) {
	if key == "" {
		return nil, errors.New("set field: empty key")
	}
	val, err := valueNode(value)
	if err != nil {
		return nil, fmt.Errorf("set field %s: %w", key, err)
	}
	entry, err := encodeEntry(key, val)
	if err != nil {
		return nil, fmt.Errorf("set field %s: %w", key, err)
	}
	return editField(raw, key, entry)
}

// DeleteField removes the top-level frontmatter key (with its value's lines) and
// returns the new note bytes, keeping every other byte. A note without the key is
// returned unchanged (as a copy).
func DeleteField(raw []byte, key string) ([]byte, error) {
	return editField(raw, key, nil)
}

// editField replaces key's entry with entry (nil: delete it).
func editField(raw []byte, key string, entry []byte) ([]byte, error) {
	b, perr := findBlock("", raw)
	if perr != nil {
		return nil, perr
	}
	if !b.found {
		if entry == nil {
			return bytes.Clone(raw), nil
		}
		start := 0
		if bytes.HasPrefix(raw, []byte(bom)) {
			start = len(bom)
		}
		nl := []byte("\n")
		if eol, _ := lineEnd(raw, start); eol > start && eol < len(raw) && raw[eol-1] == '\r' {
			nl = []byte("\r\n")
			entry = bytes.ReplaceAll(entry, []byte("\n"), nl)
		}
		out := make([]byte, 0, len(raw)+len(entry)+10)
		out = append(out, raw[:start]...)
		out = append(out, "---"...)
		out = append(out, nl...)
		out = append(out, entry...)
		out = append(out, "---"...)
		out = append(out, nl...)
		out = append(out, raw[start:]...)
		return checkEdit(out)
	}
	plain := entry // as marshalled: no CRLF, no indentation
	if b.crlf && entry != nil {
		entry = bytes.ReplaceAll(entry, []byte("\n"), []byte("\r\n"))
	}
	text := raw[b.yamlStart:b.yamlEnd]
	d := newDecoder("", text, lineOf(raw, b.yamlStart))
	top, perr := d.parse(text)
	if perr != nil {
		return nil, perr
	}
	before := &Frontmatter{}
	fields, perr := d.top(top, before)
	if perr != nil {
		return nil, perr
	}
	if top != nil && top.Style&yaml.FlowStyle != 0 || d.breaks != nil {
		// A flow mapping, or lines YAML breaks where the note does not ('\r', NEL).
		return nil, fmt.Errorf("set field %s: %w", key, ErrUneditable)
	}
	if top != nil && top.Column > 1 && entry != nil {
		// The top-level keys are indented: indent the new entry to match.
		pad := bytes.Repeat([]byte{' '}, top.Column-1)
		lines := bytes.SplitAfter(entry, []byte("\n"))
		entry = nil
		for _, l := range lines {
			if len(l) > 0 {
				entry = append(append(entry, pad...), l...)
			}
		}
	}
	from, to := len(text), len(text) // where entry goes, in text
	if top != nil {
		for i := 0; i+1 < len(top.Content); i += 2 {
			if top.Content[i].Value != key {
				continue
			}
			next := 0 // 1-based YAML line of the next key, 0 for none
			if i+2 < len(top.Content) {
				next = top.Content[i+2].Line
			}
			from, to = entrySpan(text, top.Content[i].Line, next)
			break
		}
	}
	if from == len(text) && entry == nil {
		return bytes.Clone(raw), nil
	}
	out := make([]byte, 0, len(raw)+len(entry))
	out = append(out, raw[:b.yamlStart+from]...)
	out = append(out, entry...)
	out = append(out, raw[b.yamlStart+to:]...)
	out, err := checkEdit(out)
	if err != nil {
		return nil, err
	}
	if !editKept(out, key, plain, before.Keys, fields) {
		return nil, fmt.Errorf("set field %s: the edit would change other keys: %w", key, ErrUneditable)
	}
	return out, nil
}

// entrySpan returns the byte range in text of the entry whose key is on 1-based
// line keyLine: from the start of that line up to the next key's line (0: the end
// of text), less any blank or column-0 comment lines just before it, which belong
// to what follows.
func entrySpan(text []byte, keyLine, nextLine int) (from, to int) {
	var starts []int // line start offsets; starts[k] is line k+1
	for pos := 0; pos < len(text); {
		starts = append(starts, pos)
		_, pos = lineEnd(text, pos)
	}
	from = starts[keyLine-1]
	last := len(starts) // index (0-based line) just past the entry
	if nextLine > 0 {
		last = nextLine - 1
	}
	for last-1 > keyLine-1 {
		ls := starts[last-1]
		eol, _ := lineEnd(text, ls)
		l := bytes.TrimLeft(text[ls:eol], " \t\r")
		if len(l) > 0 && !(text[ls] == '#') {
			break
		}
		last--
	}
	to = len(text)
	if last < len(starts) {
		to = starts[last]
	}
	return from, to
}

// checkEdit parses the frontmatter of an edited note, so that an edit never
// produces a block Parse would refuse.
func checkEdit(out []byte) ([]byte, error) {
	n := &Note{Raw: out}
	if _, perr := parseFrontmatter(n); perr != nil {
		return nil, perr
	}
	return out, nil
}

// editKept reports whether the edited note out has the same top-level keys, in the
// same order, with the same values as before, except that key has the value
// written in entry (or is gone when entry is nil). It guards against YAML layouts
// where text appended or removed by line would be read differently, such as a
// plain scalar continued at column 0 under indented keys.
func editKept(out []byte, key string, entry []byte, keys []string, fields map[string]any) bool {
	n := &Note{Raw: out}
	if _, perr := parseFrontmatter(n); perr != nil {
		return false
	}
	fm := n.Frontmatter
	var want []string
	found := false
	for _, k := range keys {
		if k == key {
			found = true
			if entry == nil {
				continue
			}
		}
		want = append(want, k)
	}
	if !found && entry != nil {
		want = append(want, key)
	}
	if len(fm.Keys) != len(want) {
		return false
	}
	for i, k := range want {
		if fm.Keys[i] != k {
			return false
		}
		if k != key && !sameValue(fm.Fields[k], fields[k]) {
			return false
		}
	}
	if entry == nil {
		return true
	}
	d := newDecoder("", entry, 1)
	top, perr := d.parse(entry)
	if perr != nil || top == nil {
		return false
	}
	written, perr := d.top(top, &Frontmatter{})
	return perr == nil && sameValue(fm.Fields[key], written[key])
}

// sameValue is reflect.DeepEqual on decoded YAML values, except that NaN equals
// NaN and times are compared with Equal.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && (x == y || x != x && y != y)
	case time.Time:
		y, ok := b.(time.Time)
		return ok && x.Equal(y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameValue(v, w) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// valueNode turns value into a YAML node, writing edges as {to, type, why}.
func valueNode(value any) (n *yaml.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: cannot marshal %T: %v", value, r)
		}
	}()
	switch v := value.(type) {
	case Edge:
		return edgeNode(v), nil
	case []Edge:
		seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, e := range v {
			seq.Content = append(seq.Content, edgeNode(e))
		}
		return seq, nil
	}
	n = &yaml.Node{}
	if err := n.Encode(value); err != nil {
		return nil, err
	}
	return n, nil
}

func edgeNode(e Edge) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	add := func(k, v string, style yaml.Style) {
		kn, vn := &yaml.Node{}, &yaml.Node{}
		kn.SetString(k)
		vn.SetString(v)
		vn.Style |= style
		m.Content = append(m.Content, kn, vn)
	}
	to := e.To
	if to == "" {
		to = "[[" + e.Target + "]]"
	}
	add("to", to, yaml.DoubleQuotedStyle)
	add("type", e.Type, 0)
	if e.Why != "" {
		add("why", e.Why, 0)
	}
	return m
}

// encodeEntry writes "key: value\n" (value on the following lines when it is a
// block collection or scalar).
func encodeEntry(key string, val *yaml.Node) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: cannot marshal: %v", r)
		}
	}()
	k := &yaml.Node{}
	k.SetString(key)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{k, val}}); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
