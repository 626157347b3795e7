package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocs_EveryCommandAndPage: docs/cli.md has a row for every command norn
// has (a table row starting with the command's name), and README.md's docs list
// links every page under docs/.
func TestDocs_EveryCommandAndPage(t *testing.T) {
	b, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	cli := string(b)
	for _, c := range commands() {
		if !strings.Contains(cli, "\n| `"+c.name+"`") && !strings.Contains(cli, "\n| `"+c.name+" ") {
			t.Errorf("docs/cli.md has no row for norn %s", c.name)
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("docs pages: %v %v", pages, err)
	}
	for _, p := range pages {
		if link := "(docs/" + filepath.Base(p) + ")"; !strings.Contains(string(readme), link) {
			t.Errorf("README.md's docs list does not link docs/%s", filepath.Base(p))
		}
	}
}
