package config_test

import (
	"testing"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/note"
)

// TestPrivacy_NotePrivate: the one rule for a note's bytes: a private folder (any
// case), `private:` true/yes/on in the frontmatter, or frontmatter that does not
// parse but mentions "private" (fail closed); a body that only talks about privacy
// is not private.
func TestPrivacy_NotePrivate(t *testing.T) {
	pv := config.Privacy{Folders: []string{"personal-notes/"}}
	for _, c := range []struct {
		path, raw string
		want      bool
	}{
		{"personal-notes/a.md", "# A\n", true},
		{"Personal-Notes/a.md", "# A\n", true},
		{"tech/a.md", "# A\n", false},
		{"tech/a.md", "---\nprivate: true\n---\n# A\n", true},
		{"tech/a.md", "---\nprivate: Yes\n---\n# A\n", true},
		{"tech/a.md", "---\nprivate: false\n---\n# A\n", false},
		{"tech/a.md", "---\ntitle: [broken\nprivate: true\n---\n# A\n", true},
		{"tech/a.md", "---\ntitle: [broken\n---\n# A\n", false},
		{"tech/a.md", "# A\nThis is not private at all.\n", false},
	} {
		n, err := note.Parse(note.Path(c.path), []byte(c.raw))
		if got := pv.NotePrivate(note.Path(c.path), n, err, []byte(c.raw)); got != c.want {
			t.Errorf("NotePrivate(%s, %q) = %v, want %v", c.path, c.raw, got, c.want)
		}
		inFolder := pv.IsPrivate(note.Path(c.path), nil)
		if got := inFolder || config.ContentPrivate(note.Path(c.path), []byte(c.raw)); got != c.want {
			t.Errorf("folder or ContentPrivate(%s, %q) = %v, want %v", c.path, c.raw, got, c.want)
		}
	}
}
