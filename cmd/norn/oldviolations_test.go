package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLI_OldViolationsDoNotBlockWrites: issue 32's three refusals. A note that
// lacks its final newline (as 26 of the Obsidian help notes do) is rewritten by
// a move of a note it links to, gets a typed edge with link, and is edited with
// find_replace: all pass, because the gates judge what a write introduces. doctor
// still lists the old violation; a write that introduces one is still refused.
func TestCLI_OldViolationsDoNotBlockWrites(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"Aliases.md":     "# Aliases\nSee [[Media files]].\n",
		"Media files.md": "---\ntags: [Publish]\n---\n# Media files\nLinks to [[Aliases]] and [[Home]].\nLast line",
		"Home.md":        "# Home\n",
	}
	for p, c := range files {
		if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustCLI(t, dir, "", "init", dir)
	mustCLI(t, dir, "", "mv", "Aliases.md", "Linking/Aliases and names.md")
	b, err := os.ReadFile(filepath.Join(dir, "Media files.md"))
	if err != nil || !strings.Contains(string(b), "[[Aliases and names]]") || strings.HasSuffix(string(b), "\n") {
		t.Fatalf("Media files.md after the move: %q, %v", b, err)
	}
	mustCLI(t, dir, "", "link", "Media files.md", "Home.md", "--type", "part_of",
		"--why", "The media page is one of the pages the home page gathers.")
	var r struct{ Revision string }
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "", "read", "Media files.md", "--json")), &r); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, dir, "", "edit", "Media files.md", "--op", "find_replace", "--find", "and [[Home]].",
		"--replace", "and [[Home]] (start here).", "--expected-revision", r.Revision)
	if out, _, _ := cli(t, dir, "", "doctor"); !strings.Contains(out, "final-newline") || !strings.Contains(out, "tags-format") {
		t.Errorf("doctor no longer lists the old violations:\n%s", out)
	}
	// A violation the write introduces is still refused, and nothing is written.
	head := git(t, dir, "rev-parse", "HEAD")
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "", "read", "Home.md", "--json")), &r); err != nil {
		t.Fatal(err)
	}
	out, errs, code := cli(t, dir, "", "edit", "Home.md", "--op", "find_replace", "--find", "# Home\n",
		"--replace", "# Home", "--expected-revision", r.Revision)
	if code != exitRejected || !strings.Contains(out+errs, "final-newline") {
		t.Errorf("an edit dropping Home's final newline: exit %d\n%s%s", code, out, errs)
	}
	if git(t, dir, "rev-parse", "HEAD") != head || git(t, dir, "status", "--porcelain") != "" {
		t.Error("a refused edit wrote something")
	}
}
