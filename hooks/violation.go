package hooks

import (
	"fmt"

	"github.com/norn-vault/norn/note"
)

// Violation is one broken rule: which rule, where, and how to fix it.
type Violation struct {
	// Rule is a stable kebab-case id (see the Rule… constants and docs/gates.md);
	// the note codec's rules keep the note package's ids.
	Rule string `json:"rule"`
	// Path is the path the rule was broken on (for a move's old path, From).
	Path note.Path `json:"path"`
	// Line is the 1-based line in the proposed bytes; 0 when the rule is about the
	// whole file or path.
	Line int `json:"line"`
	// Message says what is wrong and how to fix it.
	Message string `json:"message"`
}

// String formats v as "path:line: rule: message" (without ":line" when Line is 0).
func (v Violation) String() string {
	if v.Line > 0 {
		return fmt.Sprintf("%s:%d: %s: %s", v.Path, v.Line, v.Rule, v.Message)
	}
	return fmt.Sprintf("%s: %s: %s", v.Path, v.Rule, v.Message)
}
