package ledger

import (
	"bytes"
	"fmt"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// claimFile is a claim as its YAML file spells it, in field order.
type claimFile struct {
	ID         string      `yaml:"id"`
	Kind       string      `yaml:"kind"`
	Subject    string      `yaml:"subject"`
	Property   string      `yaml:"property"`
	Scope      string      `yaml:"scope"`
	Value      string      `yaml:"value,omitempty"`
	Source     *sourceFile `yaml:"source,omitempty"`
	ValidFrom  string      `yaml:"valid_from,omitempty"`
	ValidTo    string      `yaml:"valid_to,omitempty"`
	Supersedes string      `yaml:"supersedes,omitempty"`
	AssertedBy authorFile  `yaml:"asserted_by"`
	AssertedAt string      `yaml:"asserted_at"`
	Private    bool        `yaml:"private,omitempty"`
}

type sourceFile struct {
	Path     string `yaml:"path"`
	Revision string `yaml:"revision"`
}

type authorFile struct {
	Name  string `yaml:"name"`
	Email string `yaml:"email,omitempty"`
}

// EncodeClaim is c's file: canonical YAML (fixed field order, times in UTC,
// RFC 3339), which DecodeClaim reads back to c. c must pass Check.
func EncodeClaim(c *Claim) ([]byte, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	f := claimFile{ID: string(c.ID), Kind: string(c.Kind), Subject: c.Subject, Property: c.Property, Scope: c.Scope,
		Value: c.Value, ValidFrom: stamp(c.ValidFrom), ValidTo: stamp(c.ValidTo), Supersedes: string(c.Supersedes),
		AssertedBy: authorFile{Name: c.AssertedBy.Name, Email: c.AssertedBy.Email}, AssertedAt: stamp(c.AssertedAt),
		Private: c.Private}
	if c.Source != (Source{}) {
		f.Source = &sourceFile{Path: string(c.Source.Path), Revision: string(c.Source.Revision)}
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&f); err != nil {
		return nil, fmt.Errorf("encode claim %s: %w", c.ID, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode claim %s: %w", c.ID, err)
	}
	return b.Bytes(), nil
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// DecodeClaim reads a claim file. It is strict: one YAML mapping of the known
// keys, each at most once, scalar text values, no anchors, aliases or tags of
// other types, times in RFC 3339; the claim must pass Check; and when p is not
// empty it must be ClaimPath of the claim's id. Anything else is a *ClaimError
// naming every problem found, with its line.
func DecodeClaim(p note.Path, b []byte) (*Claim, error) {
	d := claimDecoder{path: p}
	c := d.decode(b)
	if len(d.problems) == 0 {
		if err := c.Check(); err != nil {
			d.problems = err.(*ClaimError).Problems
		}
	}
	if len(d.problems) == 0 && p != "" && ClaimPath(c.ID) != p {
		d.add(0, RuleID, "id", "the file of claim %s is %s, not %s", c.ID, ClaimPath(c.ID), p)
	}
	if len(d.problems) > 0 {
		return nil, &ClaimError{Path: p, Problems: d.problems}
	}
	return c, nil
}

type claimDecoder struct {
	path     note.Path
	problems []Problem
}

func (d *claimDecoder) add(line int, rule, field, format string, a ...any) {
	d.problems = append(d.problems, Problem{Rule: rule, Field: field, Line: line, Msg: fmt.Sprintf(format, a...)})
}

func (d *claimDecoder) decode(b []byte) *Claim {
	c := &Claim{}
	if len(b) > MaxClaimBytes {
		d.add(0, RuleTooLarge, "", "the file is %d bytes; a claim is at most %d", len(b), MaxClaimBytes)
		return c
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&doc); err != nil {
		d.add(0, RuleSyntax, "", "not YAML: %v", err)
		return c
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		d.add(extra.Line, RuleSyntax, "", "more than one YAML document: a claim file holds one")
		return c
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		d.add(0, RuleSyntax, "", "empty: a claim file holds one mapping")
		return c
	}
	d.mapping(doc.Content[0], "", func(key string, v *yaml.Node) {
		switch key {
		case "id":
			c.ID = ClaimID(d.text(v, key))
		case "kind":
			c.Kind = ClaimKind(d.text(v, key))
		case "subject":
			c.Subject = d.text(v, key)
		case "property":
			c.Property = d.text(v, key)
		case "scope":
			c.Scope = d.text(v, key)
		case "value":
			c.Value = d.text(v, key)
		case "supersedes":
			c.Supersedes = ClaimID(d.text(v, key))
		case "valid_from":
			c.ValidFrom = d.time(v, key)
		case "valid_to":
			c.ValidTo = d.time(v, key)
		case "asserted_at":
			c.AssertedAt = d.time(v, key)
		case "private":
			c.Private = d.bool(v, key)
		case "source":
			d.mapping(v, key, func(k string, v *yaml.Node) {
				switch k {
				case "path":
					c.Source.Path = note.Path(d.text(v, "source.path"))
				case "revision":
					c.Source.Revision = repo.Revision(d.text(v, "source.revision"))
				}
			}, "path", "revision")
		case "asserted_by":
			d.mapping(v, key, func(k string, v *yaml.Node) {
				switch k {
				case "name":
					c.AssertedBy.Name = d.text(v, "asserted_by.name")
				case "email":
					c.AssertedBy.Email = d.text(v, "asserted_by.email")
				}
			}, "name", "email")
		}
	}, "id", "kind", "subject", "property", "scope", "value", "source", "valid_from", "valid_to", "supersedes", "asserted_by", "asserted_at", "private")
	return c
}

// mapping calls set for each key of the mapping n that is in known, once each;
// unknown, repeated and non-text keys are problems.
func (d *claimDecoder) mapping(n *yaml.Node, field string, set func(key string, v *yaml.Node), known ...string) {
	if !d.plain(n, field) {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.add(n.Line, RuleSyntax, field, "want a mapping of %v", known)
		return
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !d.plain(k, field) {
			continue
		}
		if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
			d.add(k.Line, RuleSyntax, field, "keys are plain words")
			continue
		}
		full := k.Value
		if field != "" {
			full = field + "." + k.Value
		}
		if first, dup := seen[k.Value]; dup {
			d.add(k.Line, RuleSyntax, full, "repeated (first at line %d): keep one", first)
			continue
		}
		seen[k.Value] = k.Line
		ok := false
		for _, kn := range known {
			ok = ok || kn == k.Value
		}
		if !ok {
			d.add(k.Line, RuleSyntax, full, "unknown key; allowed here: %v", known)
			continue
		}
		set(k.Value, v)
	}
}

// plain reports whether n may be read: no anchor, alias or explicit tag, so the
// file means what it spells out.
func (d *claimDecoder) plain(n *yaml.Node, field string) bool {
	switch {
	case n.Kind == yaml.AliasNode || n.Anchor != "":
		d.add(n.Line, RuleSyntax, field, "YAML anchors and aliases are not allowed: write the value out")
		return false
	case n.Tag != "" && n.Style&yaml.TaggedStyle != 0:
		d.add(n.Line, RuleSyntax, field, "explicit YAML tags are not allowed")
		return false
	}
	return true
}

// text is the scalar n as text: a null is "", a mapping or a list a problem.
func (d *claimDecoder) text(n *yaml.Node, field string) string {
	if !d.plain(n, field) {
		return ""
	}
	if n.Kind != yaml.ScalarNode {
		d.add(n.Line, RuleSyntax, field, "want text, got a %s", kindName(n))
		return ""
	}
	if n.ShortTag() == "!!null" {
		return ""
	}
	return n.Value
}

// bool is the scalar n as true or false (a null is false).
func (d *claimDecoder) bool(n *yaml.Node, field string) bool {
	switch s := d.text(n, field); s {
	case "", "false":
		return false
	case "true":
		return true
	default:
		d.add(n.Line, RuleSyntax, field, "%q: want true or false", clip(s))
		return false
	}
}

// time is the scalar n as an RFC 3339 time ("" is the zero time).
func (d *claimDecoder) time(n *yaml.Node, field string) time.Time {
	s := d.text(n, field)
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		d.add(n.Line, RuleSyntax, field, "%q is not an RFC 3339 time (2026-01-02T15:04:05Z)", clip(s))
		return time.Time{}
	}
	return t.UTC()
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	}
	return "value"
}
