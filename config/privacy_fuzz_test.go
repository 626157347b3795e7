package config_test

import (
	"testing"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/note"
)

// FuzzPrivacy_ContentPrivate checks that ContentPrivate's shortcut (no parse when
// the bytes mention neither "private" nor a private tag) never decides otherwise
// than the full rule on the parsed note: a shortcut that said public for a tagged
// note would leak it.
func FuzzPrivacy_ContentPrivate(f *testing.F) {
	for _, s := range []string{
		"# A\n", "---\ntags: [diary]\n---\n", "#Diary\n", "#diary/x\n", "---\ntags: [\"\\x64iary\"]\n---\n",
		"---\ntitle: [x\n---\n#diary\n", "---\nprivate: on\n---\n", "#DİARY\n", "#diaryx #work\n",
	} {
		f.Add([]byte(s))
	}
	pv := config.Privacy{Tags: []string{"diary", "work/secret"}}
	f.Fuzz(func(t *testing.T, raw []byte) {
		n, err := note.Parse("a.md", raw)
		if got, want := pv.ContentPrivate("a.md", raw), pv.ParsedPrivate(n, err, raw); got != want {
			t.Fatalf("ContentPrivate(%q) = %v, the parsed rule says %v", raw, got, want)
		}
	})
}
