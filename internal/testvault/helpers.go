package testvault

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// OpenServed is Served with the real clock.
func OpenServed(t testing.TB, files map[string]string) *vault.Vault {
	t.Helper()
	return served(t, files, nil)
}

// WriteFiles writes files (path → content) under dir, as a person would.
func WriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// GitIn runs the git CLI in dir and returns its output; a failure fails the test.
func GitIn(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// HeadBytes is the note at p at HEAD.
func HeadBytes(t testing.TB, v *vault.Vault, p string) string {
	t.Helper()
	b, err := v.Read(context.Background(), note.Path(p), "")
	if err != nil {
		t.Fatal(err)
	}
	return string(b.Content)
}

// CommitFiles writes files into v's working tree and commits them as a person
// would (norn commit): no gates.
func CommitFiles(t testing.TB, v *vault.Vault, files map[string]string) {
	t.Helper()
	WriteFiles(t, v.Dir(), files)
	if _, err := v.CommitExternal(context.Background(), "", ""); err != nil {
		t.Fatal(err)
	}
}

// Write puts content at p as author "a" with roles, expecting p's revision at HEAD.
func Write(v *vault.Vault, p, content string, roles ...string) error {
	path := note.Path(p)
	_, err := v.Apply(context.Background(), repo.Tx{Author: repo.Author{Name: "a"}, Roles: roles, Op: repo.OpWrite,
		Changes: []repo.Change{{Kind: repo.Put, Path: path, Content: []byte(content), ExpectedRevision: v.Revision(path)}}})
	return err
}

// EdgeFixture is a small vault for the typed-edge tests: two notes to link, and
// two that share a name.
var EdgeFixture = map[string]string{
	"tech/bloom.md": "---\ntitle: Bloom filters\ntags: [data-structures]\n---\n# Bloom filters\nBody.\n",
	"tech/cms.md":   "---\ntitle: Count-min sketch\n---\n# Count-min sketch\n",
	"a/dup.md":      "# Dup one\n",
	"b/dup.md":      "# Dup two\n",
}

// GoodWhy is a why long enough for the edge gates.
const GoodWhy = "Both hash items into a small array and trade exactness for memory."

// HashingNotes are three notes about hashing: a.md says bloom, b.md sketch, c.md
// neither, so only feedback (their shared vocabulary) finds c.md for "bloom sketch".
func HashingNotes() map[string]string {
	return map[string]string{
		"a.md": "# Bloom filters\n\nA bloom filter sets bits by hashing each item with several hashing functions.\n",
		"b.md": "# Count-min sketch\n\nA sketch counts items by hashing them into rows of counters; hashing again gives an estimate.\n",
		"c.md": "# Universal families\n\nHashing functions chosen at random from a family keep hashing collisions rare.\n",
	}
}
