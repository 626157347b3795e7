package hooks

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Rejection is the error of a proposal that broke write gates. It holds every
// violation, sorted by path, line and rule; it is never empty.
type Rejection struct {
	Violations []Violation
}

func (r *Rejection) Error() string {
	var b strings.Builder
	b.WriteString(ErrRejected.Error())
	if len(r.Violations) == 1 {
		b.WriteString(": ")
	} else {
		fmt.Fprintf(&b, " (%d violations): ", len(r.Violations))
	}
	for i, v := range r.Violations {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(v.String())
	}
	return b.String()
}

// Is makes errors.Is(err, ErrRejected) true for every *Rejection.
func (r *Rejection) Is(target error) bool { return target == ErrRejected }

// reject sorts vs, drops exact duplicates and wraps them in a *Rejection; it returns
// nil when vs is empty.
func reject(vs []Violation) error {
	if len(vs) == 0 {
		return nil
	}
	sortViolations(vs)
	return &Rejection{Violations: slices.Compact(vs)}
}

func sortViolations(vs []Violation) {
	slices.SortFunc(vs, func(a, b Violation) int {
		return cmp.Or(
			cmp.Compare(a.Path, b.Path),
			cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Rule, b.Rule),
			cmp.Compare(a.Message, b.Message),
		)
	})
}
