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

const (
	RuleInvalidUTF8    Rule = "invalid-utf8"
	RuleUnterminated   Rule = "frontmatter-unterminated"
	RuleTooLarge       Rule = "frontmatter-too-large"
	RuleYAMLSyntax     Rule = "yaml-syntax"
	RuleNotMapping     Rule = "frontmatter-not-mapping"
	RuleDuplicateKey   Rule = "yaml-duplicate-key"
	RuleYAMLAlias      Rule = "yaml-alias"
	RuleInvalidEdges   Rule = "edges-invalid"
	RuleInvalidTags    Rule = "tags-invalid"
	RuleInvalidAliases Rule = "aliases-invalid"
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
