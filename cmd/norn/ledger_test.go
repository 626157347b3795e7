package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLI_LedgerHistory: norn log PATH follows a move (one line for the rename,
// the older commits under the old path after it); read --at takes a date (a bad
// one is an error of its own, a date before the history not found); archived
// lists what archive removed, and restore --from takes the short revision it
// printed and brings back the same bytes, which leaves the catalog. Refusals
// write nothing.
func TestCLI_LedgerHistory(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "", "init", dir)
	mustCLI(t, dir, "# Alpha\n\nfirst\n", "write", "a.md")
	mustCLI(t, dir, "# Alpha\n\nsecond\n", "write", "a.md", "--expected-revision", strings.TrimSpace(git(t, dir, "rev-parse", "HEAD:a.md")))
	mustCLI(t, dir, "", "mv", "a.md", "notes/alpha.md")

	lg := decode(t, mustCLI(t, dir, "", "log", "notes/alpha.md", "--json"))
	commits := lg["commits"].([]any)
	if len(commits) != 3 {
		t.Fatalf("log of a moved note: %d commits: %v", len(commits), commits)
	}
	top, older := commits[0].(map[string]any), commits[1].(map[string]any)
	if top["kind"] != "moved" || top["from"] != "a.md" || top["path"] != "notes/alpha.md" || older["path"] != "a.md" || older["kind"] != "modified" {
		t.Fatalf("log: %v / %v", top, older)
	}
	if text := mustCLI(t, dir, "", "log", "notes/alpha.md"); !strings.Contains(text, "moved a.md -> notes/alpha.md") || strings.Count(text, "\n") != 3 {
		t.Fatalf("log text:\n%s", text)
	}

	if got := mustCLI(t, dir, "", "read", "notes/alpha.md", "--at", "2999-12-31"); got != "# Alpha\n\nsecond\n" {
		t.Fatalf("read --at a date: %q", got)
	}
	head := git(t, dir, "rev-parse", "HEAD")
	for _, c := range []struct {
		at   string
		code int
	}{{"2026-02-30", 1}, {"1999-01-01", 1}} {
		out, errs, code := cli(t, dir, "", "read", "notes/alpha.md", "--at", c.at, "--json")
		if code == 0 {
			t.Fatalf("read --at %s: exit 0: %s%s", c.at, out, errs)
		}
		m := decode(t, out)
		if want := map[string]string{"2026-02-30": "invalid", "1999-01-01": "not_found"}[c.at]; m["code"] != want {
			t.Fatalf("read --at %s: %v, want code %s", c.at, m, want)
		}
	}

	mustCLI(t, dir, "", "archive", "notes/alpha.md", "--reason", "superseded")
	cat := decode(t, mustCLI(t, dir, "", "archived", "--json"))
	entries := cat["archived"].([]any)
	if len(entries) != 1 || cat["source"] != "index" {
		t.Fatalf("archived: %v", cat)
	}
	a := entries[0].(map[string]any)
	rev := a["revision"].(string)
	if a["path"] != "notes/alpha.md" || a["reason"] != "superseded" || rev != strings.TrimSpace(git(t, dir, "rev-parse", "HEAD~1:notes/alpha.md")) {
		t.Fatalf("archived entry: %v", a)
	}
	text := mustCLI(t, dir, "", "archived", "--folder", "notes")
	if !strings.HasPrefix(text, rev[:12]+"  ") || !strings.Contains(text, "superseded") || !strings.HasSuffix(text, "notes/alpha.md\n") {
		t.Fatalf("archived text:\n%s", text)
	}
	if out := mustCLI(t, dir, "", "archived", "--folder", "elsewhere", "--json"); len(decode(t, out)["archived"].([]any)) != 0 {
		t.Fatalf("archived in another folder: %s", out)
	}
	head = git(t, dir, "rev-parse", "HEAD")
	for _, bad := range [][]string{{"archived", "--since", "2026-13-01"}, {"archived", "--folder", "../up"}, {"archived", "extra"}} {
		if _, _, code := cli(t, dir, "", bad...); code == 0 {
			t.Fatalf("norn %v: exit 0", bad)
		}
	}
	if git(t, dir, "rev-parse", "HEAD") != head {
		t.Fatal("a refused command wrote a commit")
	}

	mustCLI(t, dir, "", "restore", "notes/alpha.md", "--from", rev[:12])
	b, err := os.ReadFile(filepath.Join(dir, "notes/alpha.md"))
	if err != nil || string(b) != "# Alpha\n\nsecond\n" {
		t.Fatalf("restored bytes: %q, %v", b, err)
	}
	if out := mustCLI(t, dir, "", "archived", "--json"); len(decode(t, out)["archived"].([]any)) != 0 {
		t.Fatalf("a restored note is still archived: %s", out)
	}
}
