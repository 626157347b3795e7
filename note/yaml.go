package note

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// decoder turns a frontmatter block's YAML into checked values and maps YAML line
// numbers to note lines.
type decoder struct {
	path Path
	// first is the note line of the YAML's first line.
	first int
	// breaks maps YAML lines to note lines when they differ from counting '\n'
	// alone: YAML also breaks lines at a lone '\r', NEL, LS and PS. breaks[i] is
	// the note line of YAML line i+1; nil when the simple offset holds.
	breaks []int
}

// newDecoder returns a decoder for the YAML text whose first line is note line first.
func newDecoder(p Path, text []byte, first int) decoder {
	d := decoder{path: p, first: first}
	if hasOddBreaks(text) {
		line := first
		d.breaks = append(d.breaks, line)
		for i := 0; i < len(text); i++ {
			switch c := text[i]; {
			case c == '\n':
				line++
			case c == '\r':
				if i+1 < len(text) && text[i+1] == '\n' {
					i++
					line++
				}
			case c == 0xc2 && i+1 < len(text) && text[i+1] == 0x85:
				i++
			case c == 0xe2 && i+2 < len(text) && text[i+1] == 0x80 && (text[i+2] == 0xa8 || text[i+2] == 0xa9):
				i += 2
			default:
				continue
			}
			d.breaks = append(d.breaks, line)
		}
	}
	return d
}

// hasOddBreaks reports whether text holds a line break YAML counts but a note's
// line numbers (which count '\n') do not: a '\r' not before '\n', NEL, LS or PS.
func hasOddBreaks(text []byte) bool {
	for i := bytes.IndexByte(text, '\r'); i >= 0; {
		if i+1 >= len(text) || text[i+1] != '\n' {
			return true
		}
		j := bytes.IndexByte(text[i+1:], '\r')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return bytes.Contains(text, []byte("\u0085")) || bytes.Contains(text, []byte("\u2028")) || bytes.Contains(text, []byte("\u2029"))
}

// line maps a 1-based YAML line (as the YAML library counts) to a note line.
func (d *decoder) line(yamlLine int) int {
	if d.breaks == nil {
		return d.first + yamlLine - 1
	}
	if yamlLine <= len(d.breaks) {
		return d.breaks[yamlLine-1]
	}
	return d.breaks[len(d.breaks)-1] + 1
}

func (d *decoder) fail(yamlLine int, rule Rule, format string, args ...any) *ParseError {
	line := 0
	if yamlLine > 0 {
		line = d.line(yamlLine)
	}
	return &ParseError{Path: d.path, Line: line, Rule: rule, Msg: fmt.Sprintf(format, args...)}
}

// failAt is fail for an error found at byte offset off of the YAML text.
func (d *decoder) failAt(text []byte, off int, rule Rule, format string, args ...any) *ParseError {
	return &ParseError{Path: d.path, Line: d.first + bytes.Count(text[:off], []byte{'\n'}), Rule: rule, Msg: fmt.Sprintf(format, args...)}
}

// parse parses text into a node tree and returns the top-level mapping, or nil for
// an empty block (nothing but blank lines and comments). It applies RuleYAMLSyntax
// and RuleNotMapping.
func (d *decoder) parse(text []byte) (top *yaml.Node, perr *ParseError) {
	var doc yaml.Node
	if err := unmarshal(text, &doc); err != nil {
		line, msg := yamlErrorLine(err)
		if name, ok := strings.CutPrefix(msg, "unknown anchor '"); ok {
			// An alias of an anchor never defined: still an alias.
			name, _, _ = strings.Cut(name, "'")
			return nil, d.failAt(text, max(0, bytes.Index(text, []byte("*"+name))), RuleYAMLAlias,
				"YAML alias *%s is not allowed in frontmatter (anchors, aliases and merge keys are refused)", name)
		}
		if strings.Contains(msg, "control characters") {
			return nil, d.failAt(text, controlCharAt(text), RuleYAMLSyntax, "%s", msg)
		}
		return nil, d.fail(line, RuleYAMLSyntax, "%s", msg)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil
	}
	top = doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, d.fail(top.Line, RuleNotMapping,
			"the frontmatter must be a mapping of keys to values, not a %s", kindName(top))
	}
	return top, nil
}

// unmarshal is yaml.Unmarshal into a node that turns a panic inside the YAML
// library into an error, so that Parse never panics whatever the input.
func unmarshal(text []byte, doc *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: internal error: %v", r)
		}
	}()
	return yaml.Unmarshal(text, doc)
}

// isParserProblem reports whether msg is one of the YAML library's parser (as
// opposed to scanner) error messages. The library reports a parser error's line
// 0-based and a scanner error's line 1-based, so yamlErrorLine must tell them apart.
func isParserProblem(msg string) bool {
	switch msg {
	case "did not find expected <stream-start>",
		"did not find expected <document start>",
		"found undefined tag handle",
		"did not find expected node content",
		"did not find expected '-' indicator",
		"did not find expected key",
		"did not find expected ',' or ']'",
		"did not find expected ',' or '}'",
		"found duplicate %YAML directive",
		"found incompatible YAML document",
		"found duplicate %TAG directive":
		return true
	}
	return false
}

// yamlErrorLine is YAMLErrorLine with a missing line read as the first.
func yamlErrorLine(err error) (int, string) {
	line, msg, ok := YAMLErrorLine(err)
	if !ok {
		return 1, msg
	}
	return max(line, 1), msg
}

// YAMLErrorLine splits an error of the YAML library ("yaml: line 3: did not find
// expected key") into the 1-based line and the problem. The library reports parser
// errors 0-based and scanner errors 1-based; this corrects for it. ok is false when
// the error names no line (msg is then the whole message).
func YAMLErrorLine(err error) (line int, msg string, ok bool) {
	msg = strings.TrimPrefix(err.Error(), "yaml: ")
	rest, found := strings.CutPrefix(msg, "line ")
	if !found {
		return 0, msg, false
	}
	num, problem, found := strings.Cut(rest, ": ")
	n, cerr := strconv.Atoi(num)
	if !found || cerr != nil || n < 0 {
		return 0, msg, false
	}
	if isParserProblem(problem) {
		n++
	}
	return n, problem, true
}

// controlCharAt returns the offset of the first character YAML does not allow in a
// stream (C0 controls other than tab/LF/CR, DEL, C1 controls but NEL), or 0.
func controlCharAt(text []byte) int {
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRune(text[i:])
		switch {
		case r == '\t' || r == '\n' || r == '\r' || r == 0x85:
		case r < 0x20 || (r >= 0x7f && r <= 0x9f) || r == 0xfffe || r == 0xffff:
			return i
		}
		i += size
	}
	return 0
}

// top decodes the top-level mapping (nil for an empty block) into Fields and fills
// fm.Keys and fm.KeyLines.
func (d *decoder) top(top *yaml.Node, fm *Frontmatter) (map[string]any, *ParseError) {
	if top == nil {
		return map[string]any{}, nil
	}
	if err := d.checkNode(top); err != nil {
		return nil, err
	}
	v, err := d.mapping(top)
	if err != nil {
		return nil, err
	}
	fm.Keys = make([]string, 0, len(top.Content)/2)
	fm.KeyLines = make(map[string]int, len(top.Content)/2)
	for i := 0; i < len(top.Content); i += 2 {
		k := top.Content[i]
		fm.Keys = append(fm.Keys, k.Value)
		fm.KeyLines[k.Value] = d.line(k.Line)
	}
	return v, nil
}

// checkNode applies RuleYAMLAlias to the node itself (anchors and aliases).
func (d *decoder) checkNode(n *yaml.Node) *ParseError {
	if n.Kind == yaml.AliasNode {
		return d.fail(n.Line, RuleYAMLAlias, "YAML alias *%s is not allowed in frontmatter (anchors, aliases and merge keys are refused)", n.Value)
	}
	if n.Anchor != "" {
		return d.fail(n.Line, RuleYAMLAlias, "YAML anchor &%s is not allowed in frontmatter (anchors, aliases and merge keys are refused)", n.Anchor)
	}
	return nil
}

// value decodes any node. The node has already passed checkNode.
func (d *decoder) value(n *yaml.Node) (any, *ParseError) {
	switch n.Kind {
	case yaml.ScalarNode:
		return d.scalar(n)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			if err := d.checkNode(c); err != nil {
				return nil, err
			}
			v, err := d.value(c)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		return d.mapping(n)
	}
	return nil, d.fail(n.Line, RuleYAMLSyntax, "unexpected YAML node")
}

// mapping decodes a mapping node, applying RuleDuplicateKey and the merge-key part
// of RuleYAMLAlias.
func (d *decoder) mapping(n *yaml.Node) (map[string]any, *ParseError) {
	out := make(map[string]any, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if err := d.checkNode(k); err != nil {
			return nil, err
		}
		if k.Kind != yaml.ScalarNode {
			return nil, d.fail(k.Line, RuleYAMLSyntax, "a mapping key must be a plain value, not a %s", kindName(k))
		}
		if k.Tag == "!!merge" {
			return nil, d.fail(k.Line, RuleYAMLAlias, "YAML merge key << is not allowed in frontmatter (anchors, aliases and merge keys are refused)")
		}
		for j := 0; j < i; j += 2 {
			if prev := n.Content[j]; prev.Value == k.Value {
				return nil, d.fail(k.Line, RuleDuplicateKey, "key %q on line %d repeats the key on line %d",
					k.Value, d.line(k.Line), d.line(prev.Line))
			}
		}
		if err := d.checkNode(v); err != nil {
			return nil, err
		}
		val, err := d.value(v)
		if err != nil {
			return nil, err
		}
		out[k.Value] = val
	}
	return out, nil
}

// scalar decodes a scalar by its resolved tag.
func (d *decoder) scalar(n *yaml.Node) (any, *ParseError) {
	switch n.Tag {
	case "!!str", "!!merge":
		return n.Value, nil
	case "!!null":
		return nil, nil
	case "!!bool":
		switch n.Value {
		case "true", "True", "TRUE":
			return true, nil
		case "false", "False", "FALSE":
			return false, nil
		}
	case "!!int", "!!float", "!!timestamp", "!!binary":
	default:
		if strings.HasPrefix(n.Tag, "!!") {
			break // !!seq or !!map on a scalar: let Decode report it
		}
		return n.Value, nil // a local tag such as !foo: keep the text
	}
	var v any
	if err := decodeNode(n, &v); err != nil {
		return nil, d.fail(n.Line, RuleYAMLSyntax, "%s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	switch x := v.(type) {
	case int64:
		return int(x), nil
	case uint64:
		return n.Value, nil
	case int, float64, bool, string, time.Time, nil:
		return x, nil
	}
	return n.Value, nil
}

// decodeNode is n.Decode with a panic inside the YAML library turned into an error.
func decodeNode(n *yaml.Node, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: internal error: %v", r)
		}
	}()
	return n.Decode(v)
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "null"
		}
		return "single value"
	case yaml.SequenceNode:
		return "list"
	case yaml.MappingNode:
		return "mapping"
	case yaml.AliasNode:
		return "alias"
	}
	return "document"
}

// scalarText returns a scalar's text, trimmed, or "" for a null or non-scalar.
func scalarText(n *yaml.Node) string {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return ""
	}
	return strings.TrimSpace(n.Value)
}

// list reads a tags or aliases value: a list of single values, or one string (split
// on commas and white space for tags). It appends to dst and applies rule to any
// other shape.
func (d *decoder) list(dst []string, key string, v *yaml.Node, rule Rule, tags bool) ([]string, *ParseError) {
	add := func(s string) {
		if tags {
			s = strings.TrimLeft(strings.TrimSpace(s), "#")
		}
		if s = strings.TrimSpace(s); s != "" {
			dst = append(dst, s)
		}
	}
	switch v.Kind {
	case yaml.ScalarNode:
		if v.Tag == "!!null" {
			return dst, nil
		}
		if !tags {
			add(v.Value)
			return dst, nil
		}
		for _, f := range strings.FieldsFunc(v.Value, func(r rune) bool {
			return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r'
		}) {
			add(f)
		}
		return dst, nil
	case yaml.SequenceNode:
		for _, c := range v.Content {
			if c.Kind != yaml.ScalarNode {
				return dst, d.fail(c.Line, rule, "%s: each entry must be a single value, not a %s%s", key, kindName(c), bracketHint(c))
			}
			if c.Tag != "!!null" {
				add(c.Value)
			}
		}
		return dst, nil
	}
	return dst, d.fail(v.Line, rule, "%s must be a list or a string, not a %s", key, kindName(v))
}

// bracketHint explains the common mistake of an unquoted [[link]], which YAML reads
// as a list inside a list.
func bracketHint(n *yaml.Node) string {
	if n.Kind == yaml.SequenceNode && n.Style&yaml.FlowStyle != 0 {
		return ` (an unquoted [[...]] is a YAML list: quote it, e.g. "[[Note]]")`
	}
	return ""
}

// edges reads the `edges:` list. Each entry is a mapping with a non-empty `to` and
// `type` and an optional `why`; anything else is RuleInvalidEdges.
func (d *decoder) edges(v *yaml.Node) ([]Edge, *ParseError) {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return nil, nil
	}
	if v.Kind != yaml.SequenceNode {
		return nil, d.fail(v.Line, RuleInvalidEdges, "edges must be a list of {to, type, why} entries, not a %s", kindName(v))
	}
	out := make([]Edge, 0, len(v.Content))
	for i, c := range v.Content {
		if c.Kind != yaml.MappingNode {
			return nil, d.fail(c.Line, RuleInvalidEdges, "edges entry %d must be a mapping with to, type and why, not a %s%s", i+1, kindName(c), bracketHint(c))
		}
		e := Edge{Line: d.line(c.Line)}
		var hasTo, hasType bool
		for j := 0; j+1 < len(c.Content); j += 2 {
			k, val := c.Content[j].Value, c.Content[j+1]
			switch k {
			case "to", "type", "why":
			default:
				continue
			}
			if val.Kind != yaml.ScalarNode {
				return nil, d.fail(val.Line, RuleInvalidEdges, "edges entry %d: %s must be a single value, not a %s%s", i+1, k, kindName(val), bracketHint(val))
			}
			s := scalarText(val)
			switch k {
			case "to":
				e.To, e.Target, hasTo = s, edgeTarget(s), true
			case "type":
				e.Type, hasType = s, true
			case "why":
				e.Why = s
			}
		}
		switch {
		case !hasTo || e.To == "":
			return nil, d.fail(c.Line, RuleInvalidEdges, "edges entry %d has no to", i+1)
		case e.Target == "":
			return nil, d.fail(c.Line, RuleInvalidEdges, "edges entry %d: to %q names no note", i+1, e.To)
		case !hasType || e.Type == "":
			return nil, d.fail(c.Line, RuleInvalidEdges, "edges entry %d has no type", i+1)
		}
		out = append(out, e)
	}
	return out, nil
}

// edgeTarget returns the note an edge's `to` names: "[[T]]", "[[T|x]]" and
// "[[T#h]]" give "T"; a bare "T" is kept as written.
func edgeTarget(to string) string {
	inner, ok := strings.CutPrefix(to, "[[")
	if !ok {
		return to
	}
	inner, ok = strings.CutSuffix(inner, "]]")
	if !ok {
		return to
	}
	t, _, _, _ := splitWiki(inner)
	return t
}
