package vault

import (
	"bytes"
	"errors"
	"testing"

	"github.com/norn-vault/norn/repo"
)

// FuzzApplyEdit: no input makes applyEdit panic; a refusal is an *InputError of
// repo.ErrInvalid or repo.ErrNotFound; an append keeps the note's bytes as a prefix.
func FuzzApplyEdit(f *testing.F) {
	f.Add([]byte(opsNote), "append", "More.", "", "", "", 0)
	f.Add([]byte(opsNote), "prepend", "Intro.", "", "", "", 0)
	f.Add([]byte(opsNote), "replace_section", "# Bloom filters\nNew.", "Bloom filters", "", "", 0)
	f.Add([]byte("# A\n## B\nx\n# C\ny"), "replace_section", "z", "A/B", "", "", 0)
	f.Add([]byte(opsNote), "find_replace", "", "", "Body", "Text", 1)
	f.Add([]byte("---\nbroken: [\n---\nx"), "prepend", "p", "", "", "", 0)
	f.Add([]byte(""), "find_replace", "", "", "a", "b", -1)
	f.Fuzz(func(t *testing.T, raw []byte, op, content, heading, find, replace string, count int) {
		in := EditRequest{Op: EditOp(op), Content: content, Heading: heading, Find: find, Replace: replace, Count: count}
		out, err := applyEdit("a/n.md", raw, in)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || !errors.Is(err, repo.ErrInvalid) && !errors.Is(err, repo.ErrNotFound) {
				t.Fatalf("unclassified refusal %T: %v", err, err)
			}
			return
		}
		if in.Op == EditAppend && !bytes.HasPrefix(out, raw) {
			t.Fatalf("append lost the note's bytes: %q -> %q", raw, out)
		}
	})
}
