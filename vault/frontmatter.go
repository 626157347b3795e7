package vault

import (
	"math"
	"strconv"

	"github.com/norn-vault/norn/note"
)

// FrontmatterJSON returns a note's frontmatter fields ready for JSON (nil: none),
// with the values JSON cannot encode (NaN, ±Inf) written as strings: what every
// surface that shows frontmatter sends.
func FrontmatterJSON(n *note.Note) map[string]any {
	if n == nil || n.Frontmatter == nil {
		return nil
	}
	m, _ := jsonSafe(n.Frontmatter.Fields).(map[string]any)
	return m
}

// jsonSafe returns v with values JSON cannot encode (NaN, ±Inf) written as strings.
func jsonSafe(v any) any {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonSafe(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonSafe(e)
		}
		return out
	}
	return v
}
