package norn

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// absCorpora is a shared corpora folder named by an absolute path.
var absCorpora = regexp.MustCompile(`(^|[\s"'(])/[^\s"'()]*/shared/corpora`)

// TestCorporaNamedRelative: the tests that use the shared corpora name their
// folder as they find it, ../shared/corpora relative to the repository, never by
// one machine's absolute path.
func TestCorporaNamedRelative(t *testing.T) {
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "bin") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, ".md") && !strings.HasSuffix(p, ".sh") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for i, l := range strings.Split(string(b), "\n") {
			if absCorpora.MatchString(l) {
				t.Errorf("%s:%d names the corpora by an absolute path: %s", p, i+1, strings.TrimSpace(l))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
