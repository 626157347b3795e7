package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// nameVault makes a vault whose notes are named by file name, title and alias,
// with one name ("dup") that two notes answer to.
func nameVault(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range map[string]string{
		"Start here.md":  "# Start here\nSee [[Embed files]].\n\n## Intro\nhello\n",
		"guide/embed.md": "---\ntitle: Embed files\naliases: [embedding]\n---\n# Embed files\nBack to [[Start here]].\n",
		"a/dup.md":       "# A dup\n",
		"b/dup.md":       "# B dup\n",
	} {
		full := filepath.Join(dir, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustCLI(t, dir, "", "init")
	return dir
}

// TestCLI_NoteNames: every command that takes a note takes its path or its name
// (title, alias, file name, [[wikilink#heading]]), resolved as MCP read_note
// resolves it; an ambiguous name lists its candidates and a name nothing answers
// to is not found, exit 1, with nothing written.
func TestCLI_NoteNames(t *testing.T) {
	dir := nameVault(t)
	embed := mustCLI(t, dir, "", "read", "guide/embed.md")
	// Over the notes at HEAD (no index yet), then over the index.
	for _, pass := range []string{"without an index", "with the index"} {
		for _, name := range []string{"Embed files", "embedding", "[[Embed files]]", "[[embedding|x]]", "guide/embed", "embed"} {
			if got := mustCLI(t, dir, "", "read", name); got != embed {
				t.Errorf("%s: read %q = %q, want guide/embed.md's bytes", pass, name, got)
			}
		}
		mustCLI(t, dir, "", "reindex")
	}
	if got := mustCLI(t, dir, "", "read", "Start here"); !strings.HasPrefix(got, "# Start here\n") {
		t.Errorf("read \"Start here\" = %q", got)
	}
	if got := mustCLI(t, dir, "", "read", "[[Start here#Intro]]"); got != "## Intro\nhello\n" {
		t.Errorf("read [[Start here#Intro]] = %q, want the section", got)
	}
	if m := decode(t, mustCLI(t, dir, "", "links", "Embed files", "--json")); m["note"] != "guide/embed.md" {
		t.Errorf("links \"Embed files\": note = %v", m["note"])
	}
	if m := decode(t, mustCLI(t, dir, "", "log", "embedding", "--json")); m["path"] != "guide/embed.md" {
		t.Errorf("log embedding: path = %v", m["path"])
	}
	if m := decode(t, mustCLI(t, dir, "", "neighborhood", "[[Embed files]]", "--json")); m["center"] != "guide/embed.md" {
		t.Errorf("neighborhood: center = %v", m["center"])
	}
	if m := decode(t, mustCLI(t, dir, "", "path", "Start here", "embedding", "--json")); m["found"] != true {
		t.Errorf("path Start here -> embedding: %v", m)
	}

	head := git(t, dir, "rev-parse", "HEAD")
	for _, args := range [][]string{
		{"read", "dup"}, {"links", "dup"}, {"log", "dup"}, {"neighborhood", "dup"}, {"path", "dup", "Start here"},
		{"mv", "dup", "c/dup.md"}, {"archive", "dup", "--reason", "archived"},
		{"edit", "dup", "--op", "append", "--content", "x\n", "--expected-revision", strings.Repeat("0", 40)},
		{"link", "dup", "Start here", "--type", "supports", "--why", why},
	} {
		_, errs, code := cli(t, dir, "", args...)
		if code != exitError || !strings.Contains(errs, "ambiguous") || !strings.Contains(errs, "a/dup.md") || !strings.Contains(errs, "b/dup.md") {
			t.Errorf("norn %v: exit %d, stderr %q; want 1 listing a/dup.md and b/dup.md", args, code, errs)
		}
		out, _, code := cli(t, dir, "", append(args, "--json")...)
		if m := decode(t, out); code != exitError || m["code"] != "invalid" {
			t.Errorf("norn %v --json: exit %d, %v", args, code, m)
		}
	}
	for _, args := range [][]string{{"read", "Nope"}, {"links", "Nope"}, {"log", "Nope.md"}, {"log", "Nope"}, {"mv", "Nope", "x.md"}} {
		out, _, code := cli(t, dir, "", append(args, "--json")...)
		if m := decode(t, out); code != exitError || m["code"] != "not_found" {
			t.Errorf("norn %v --json: exit %d, %v; want 1, not_found", args, code, m)
		}
	}
	if got := git(t, dir, "rev-parse", "HEAD"); got != head {
		t.Fatalf("a refused command committed: HEAD %s -> %s", head, got)
	}

	// The writers: edit, link, mv and archive by name.
	rev := decode(t, mustCLI(t, dir, "", "read", "embedding", "--json"))["revision"].(string)
	mustCLI(t, dir, "", "edit", "Embed files", "--op", "append", "--content", "More.\n", "--expected-revision", rev)
	mustCLI(t, dir, "", "link", "Embed files", "[[Start here]]", "--type", "supports", "--why", why)
	mustCLI(t, dir, "", "mv", "[[embedding]]", "guide/embedding.md")
	if _, err := os.Stat(filepath.Join(dir, "guide", "embedding.md")); err != nil {
		t.Fatalf("mv by alias: %v", err)
	}
	if got := git(t, dir, "status", "--porcelain"); got != "" {
		t.Fatalf("git status after the writes:\n%s", got)
	}
	// A note's log goes on after it leaves HEAD: by its path.
	out := mustCLI(t, dir, "", "archive", "Start here", "--reason", "archived")
	if m := decode(t, mustCLI(t, dir, "", "log", "Start here.md", "--json")); len(m["commits"].([]any)) < 2 {
		t.Errorf("log of an archived note: %v", m)
	}
	// restore takes the short revision archive printed.
	was := regexp.MustCompile(`\(was ([0-9a-f]+)\)`).FindStringSubmatch(out)
	if was == nil {
		t.Fatalf("archive printed no revision:\n%s", out)
	}
	mustCLI(t, dir, "", "restore", "Start here.md", "--from", was[1])
	if got := mustCLI(t, dir, "", "read", "Start here"); !strings.HasPrefix(got, "# Start here\n") {
		t.Errorf("restored note = %q", got)
	}
}
