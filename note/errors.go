package note

import (
	"errors"
	"fmt"
)

// ErrInvalid is matched (errors.Is) by every *ParseError.
var ErrInvalid = errors.New("invalid note")

// Rule names the rule a note broke. They are stable identifiers: gates, the CLI and
// MCP clients branch on them.
type Rule string

// The rules Parse applies, in the order it checks them (docs/vault-format.md).
const (
	RuleInvalidUTF8    Rule = "invalid-utf8"             // a byte sequence that is not UTF-8, anywhere
	RuleUnterminated   Rule = "frontmatter-unterminated" // "---" on line 1 and no closing "---" or "..."
	RuleTooLarge       Rule = "frontmatter-too-large"    // a block over MaxFrontmatter bytes
	RuleYAMLSyntax     Rule = "yaml-syntax"              // YAML that does not parse
	RuleNotMapping     Rule = "frontmatter-not-mapping"  // a top level that is not a mapping
	RuleDuplicateKey   Rule = "yaml-duplicate-key"       // a key repeated in a mapping, at any depth
	RuleYAMLAlias      Rule = "yaml-alias"               // an anchor, alias or merge key
	RuleInvalidEdges   Rule = "edges-invalid"            // edges not a list of {to, type, why}
	RuleInvalidTags    Rule = "tags-invalid"             // tags/tag not a list or string
	RuleInvalidAliases Rule = "aliases-invalid"          // aliases/alias not a list or string
)

// MaxFrontmatter is the largest frontmatter block (delimiters included) Parse accepts.
const MaxFrontmatter = 16 << 10

// ParseError says which rule a note broke and where.
type ParseError struct {
	Path Path
	Line int // 1-based line in the note; 0 when not known
	Rule Rule
	Msg  string
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s: %s", e.Path, e.Line, e.Rule, e.Msg)
	}
	return fmt.Sprintf("%s: %s: %s", e.Path, e.Rule, e.Msg)
}

// Is makes errors.Is(err, ErrInvalid) true for every ParseError.
func (e *ParseError) Is(target error) bool { return target == ErrInvalid }

// ErrUneditable is returned by SetField and DeleteField for a frontmatter block they
// cannot edit in place without touching other keys: a flow-style mapping written
// "{a: 1, b: 2}", line breaks YAML counts but the note does not (a lone '\r', NEL),
// or a layout where the edited lines would be read as part of another value.
var ErrUneditable = errors.New("frontmatter cannot be edited in place")
