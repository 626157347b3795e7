package config

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxMinWhy is the largest value edges.min_why accepts.
const MaxMinWhy = 1000

// Edges is the `edges:` section: the typed edges a note's `edges:` list may use.
type Edges struct {
	// Types are the allowed edge types, lowercase snake_case. Default: supports,
	// contradicts, refines, depends_on, part_of, example_of, derived_from, supersedes,
	// same_mechanism_as, analogous_to.
	Types []string `yaml:"types"`
	// MinWhy is the fewest characters (Unicode code points, after trimming spaces) an
	// edge's `why` may have. Default 20; 0 turns the length check off.
	MinWhy int `yaml:"min_why"`
}

func defaultEdges() Edges {
	return Edges{
		Types: []string{
			"supports", "contradicts", "refines", "depends_on", "part_of",
			"example_of", "derived_from", "supersedes", "same_mechanism_as", "analogous_to",
		},
		MinWhy: 20,
	}
}

func (e *Edges) decode(d *decoder, n *yaml.Node, key string) {
	d.mapping(n, key, []string{"types", "min_why"}, func(k, full string, v *yaml.Node) {
		switch k {
		case "types":
			before := len(d.errs)
			var types []string
			d.strs(v, full, &types, edgeType)
			if len(d.errs) == before && types != nil {
				if len(types) == 0 {
					d.errorf(v, full, "list at least one edge type, e.g. [supports, refines]")
					return
				}
				e.Types = types
			}
		case "min_why":
			d.integer(v, full, 0, MaxMinWhy, &e.MinWhy)
		}
	})
}

// ValidEdgeType checks that s is a well-formed edge type name (lowercase
// snake_case, starting with a letter), registered or not. Errors match ErrInvalid.
func ValidEdgeType(s string) error {
	if _, msg := edgeType(s); msg != "" {
		return fmt.Errorf("%w: %s", ErrInvalid, msg)
	}
	return nil
}

// edgeType checks an edge type name: lowercase snake_case, starting with a letter.
func edgeType(s string) (string, string) {
	ok := s != "" && s[0] >= 'a' && s[0] <= 'z' && s[len(s)-1] != '_'
	for i := 0; ok && i < len(s); i++ {
		c := s[i]
		ok = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
	}
	if !ok {
		return "", fmt.Sprintf("edge type %q must be lowercase snake_case (letters, digits, _), e.g. same_mechanism_as", s)
	}
	return s, ""
}

// LinkType is the type a graph walk gives body links (wikilinks and Markdown
// links), beside the typed edges' registered types.
const LinkType = "link"

// CheckFollow checks the edge types a graph walk is asked to follow: each is
// LinkType, one of Types, or one of also (the types the vault's edges have, which
// may include unregistered ones). An unknown one is an error matching ErrInvalid
// that lists the registered ones.
func (e Edges) CheckFollow(types, also []string) error {
	for _, t := range types {
		if t != LinkType && !slices.Contains(e.Types, t) && !slices.Contains(also, t) {
			return &Error{Msg: fmt.Sprintf("unknown edge type %q: follow %s (body links) or a registered type (edges.types): %s",
				t, LinkType, strings.Join(e.Types, ", "))}
		}
	}
	return nil
}
