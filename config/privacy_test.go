package config_test

import (
	"testing"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/note"
)

// TestPrivacy_NotePrivate: the one rule for a note's bytes: a private folder (any
// case), `private:` true/yes/on in the frontmatter, a private tag (frontmatter or
// inline, any case, or nested under one), or bytes that do not parse but mention
// "private" or a private tag (fail closed); a body that only talks about privacy
// is not private, nor is a tag that merely starts like a private one.
func TestPrivacy_NotePrivate(t *testing.T) {
	pv := config.Privacy{Folders: []string{"personal-notes/"}, Tags: []string{"diary", "health/private"}}
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
		{"tech/a.md", "---\ntags: [work, diary]\n---\n# A\n", true},
		{"tech/a.md", "---\ntags: Diary\n---\n# A\n", true},
		{"tech/a.md", "# A\nToday, #DIARY entry.\n", true},
		{"tech/a.md", "# A\nSee #diary/2026 too.\n", true},
		{"tech/a.md", "# A\n#health/private/blood\n", true},
		{"tech/a.md", "# A\n#health is public\n", false},
		{"tech/a.md", "# A\n#diaryish is another tag\n", false},
		{"tech/a.md", "# A\nMy diary, untagged.\n", false},
		{"tech/a.md", "---\ntitle: [broken\n---\n# A\n#diary\n", true},
		{"tech/a.md", "---\ntags: [\"\\x64iary\"]\n---\n# A\n", true},
	} {
		n, err := note.Parse(note.Path(c.path), []byte(c.raw))
		if got := pv.NotePrivate(note.Path(c.path), n, err, []byte(c.raw)); got != c.want {
			t.Errorf("NotePrivate(%s, %q) = %v, want %v", c.path, c.raw, got, c.want)
		}
		inFolder := pv.IsPrivate(note.Path(c.path), nil)
		if got := inFolder || pv.ContentPrivate(note.Path(c.path), []byte(c.raw)); got != c.want {
			t.Errorf("folder or ContentPrivate(%s, %q) = %v, want %v", c.path, c.raw, got, c.want)
		}
	}
	// Without private tags, a tag is only a tag.
	none := config.Privacy{Folders: pv.Folders}
	if none.ContentPrivate("tech/a.md", []byte("# A\n#diary\n")) {
		t.Error("a tag made a note private with no private tags configured")
	}
}
