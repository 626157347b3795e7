package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// corpusCopy copies the notes of a shared corpus (../shared/corpora, beside the
// repository) into a new git repository in t.TempDir(), committed with the git CLI,
// and returns its folder and its notes' paths, sorted: every note, or those in
// the given folders of the corpus. It skips the test when the corpus is absent.
// The copy is never the shared folder itself.
func corpusCopy(t *testing.T, corpus string, folders ...string) (string, []string) {
	t.Helper()
	root := filepath.Join("..", "..", "..", "shared", "corpora", corpus, "notes")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("corpus %s not found in ../shared/corpora (beside the repository): %v", corpus, err)
	}
	dir := t.TempDir()
	if len(folders) == 0 {
		folders = []string{"."}
	}
	for _, f := range folders {
		to := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(to, 0o755); err != nil {
			t.Fatal(err)
		}
		from := filepath.Join(root, filepath.FromSlash(f)) + string(filepath.Separator) + "."
		if out, err := exec.Command("cp", "-R", from, to).CombinedOutput(); err != nil {
			t.Fatalf("copy the corpus: %v\n%s", err, out)
		}
	}
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "import")
	var notes []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(dir, p)
			notes = append(notes, filepath.ToSlash(rel))
		}
		return err
	})
	slices.Sort(notes)
	return dir, notes
}

// TestCLI_Corpus_GatesJudgeTheChange: on copies of two real vaults, with the
// default gates, moving 20 random notes (their links rewritten everywhere) and
// editing 20 random notes (append, find_replace: vault.Vault.EditNote, as MCP
// edit_note) all succeed: many of these notes already break a content rule (no
// final newline, a tag in CamelCase), which is not the change's doing. Then
// `stats --json` counts the links an independent count finds, within 1%.
//
// The whole obsidian-hub (6,571 notes, 15 MB) and a sample of cpp-docs (its
// C++, C and preprocessor reference: 773 of 9,751 pages, 6 MB; the whole of it
// takes minutes). Skipped under -race, which makes the first index build of a
// corpus take minutes: `make test` runs it in its pass without -race; under
// -short only the cpp-docs sample runs. About 20 s of CPU time for the hub, 8 s
// for the sample.
func TestCLI_Corpus_GatesJudgeTheChange(t *testing.T) {
	if raceEnabled {
		t.Skip("big corpora: run without -race (make test does)")
	}
	for _, tt := range []struct {
		corpus  string
		folders []string
	}{
		{"vault-obsidian-hub", nil},
		{"md-cpp-docs", []string{"docs/cpp", "docs/c-language", "docs/preprocessor"}},
	} {
		corpus := tt.corpus
		t.Run(corpus, func(t *testing.T) {
			if tt.folders == nil && testing.Short() {
				t.Skip("the whole obsidian-hub is skipped under -short")
			}
			dir, notes := corpusCopy(t, corpus, tt.folders...)
			mustCLI(t, dir, "", "init", dir)
			rng := rand.New(rand.NewPCG(32, uint64(len(notes))))
			pick := rng.Perm(len(notes))
			for i, k := range pick[:20] {
				from, to := notes[k], fmt.Sprintf("moved/note-%02d.md", i)
				if out, errs, code := cli(t, dir, "", "mv", from, to, "--json"); code != 0 {
					t.Errorf("mv %q: exit %d\n%s%s", from, code, out, errs)
				}
			}
			for i, k := range pick[20:40] {
				edit(t, dir, notes[k], i%2 == 0)
			}
			if st := git(t, dir, "status", "--porcelain"); st != "" {
				t.Errorf("git status after the writes:\n%s", st)
			}
			var st struct {
				Links struct{ Total int } `json:"links"`
			}
			if err := json.Unmarshal([]byte(mustCLI(t, dir, "", "stats", "--json")), &st); err != nil {
				t.Fatal(err)
			}
			indep := independentLinks(t, dir)
			t.Logf("%s: stats counts %d links, the independent count %d", corpus, st.Links.Total, indep)
			if d := st.Links.Total - indep; d*100 > indep || -d*100 > indep || indep < 500 {
				t.Errorf("stats counts %d links; the independent count %d (more than 1%% apart)", st.Links.Total, indep)
			}
		})
	}
}

// edit appends a line to the note at p (appendOp) or, with find_replace, adds to
// the last line of its body that occurs once.
func edit(t *testing.T, dir, p string, appendOp bool) {
	t.Helper()
	var r struct{ Revision, Content string }
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "", "read", p, "--json")), &r); err != nil {
		t.Fatal(err)
	}
	args := []string{"edit", p, "--expected-revision", r.Revision, "--json"}
	if appendOp {
		args = append(args, "--op", "append", "--content", "Edited by the corpus test.")
	} else {
		body := r.Content
		if m := indepFrontmatter.FindStringIndex(body); m != nil {
			body = body[m[1]:]
		}
		lines := strings.Split(body, "\n")
		find := ""
		for i := len(lines) - 1; i >= 0 && find == ""; i-- {
			if l := lines[i]; len(strings.TrimSpace(l)) > 3 && strings.Count(r.Content, l) == 1 {
				find = l
			}
		}
		if find == "" {
			t.Logf("%s: no line to find; appending", p)
			args = append(args, "--op", "append", "--content", "Edited by the corpus test.")
		} else {
			args = append(args, "--op", "find_replace", "--find", find, "--replace", find+" (edited)")
		}
	}
	if out, errs, code := cli(t, dir, "", args...); code != 0 {
		t.Errorf("edit %q: exit %d\n%s%s", p, code, out, errs)
	}
}

// The independent link count: regular expressions over each note's text with
// frontmatter, fenced code, inline code, HTML comments and Obsidian's %% comments
// removed; a [[wikilink]] or ![[embed]] counts, and so does a Markdown link to a
// relative path that names a note (".md", or no extension).
var (
	indepFrontmatter = regexp.MustCompile(`(?s)\A---\r?\n.*?\n(---|\.\.\.)[ \t]*(\r?\n|\z)`)
	indepFence       = regexp.MustCompile("^[ \t>]*(```+|~~~+)")
	indepHTMLComment = regexp.MustCompile(`(?s)<!--.*?-->`)
	indepPctComment  = regexp.MustCompile(`(?s)%%.*?(%%|\z)`)
	indepCode        = regexp.MustCompile("``[^\n]*?``|`[^`\n]*`")
	indepWikilink    = regexp.MustCompile(`\[\[[^\]\n]*[^\]\n|\s][^\]\n]*\]\]`)
	indepMDLink      = regexp.MustCompile(`(!?)\[[^\]\n]*\]\(<?([^)\s>]+)>?(\s+"[^"]*")?\)`)
	indepScheme      = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

func independentLinks(t *testing.T, dir string) int {
	t.Helper()
	total := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == ".norn") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".md") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		total += countLinks(string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return total
}

func countLinks(text string) int {
	text = indepFrontmatter.ReplaceAllString(text, "")
	var kept []string
	fence := ""
	for _, l := range strings.Split(text, "\n") {
		if m := indepFence.FindStringSubmatch(l); m != nil {
			switch {
			case fence == "":
				fence = m[1]
				continue
			case strings.HasPrefix(m[1], fence):
				fence = ""
				continue
			}
		}
		if fence == "" {
			kept = append(kept, indepCode.ReplaceAllString(l, ""))
		}
	}
	text = strings.Join(kept, "\n")
	text = indepHTMLComment.ReplaceAllString(text, "")
	text = indepPctComment.ReplaceAllString(text, "")
	n := len(indepWikilink.FindAllString(text, -1))
	for _, m := range indepMDLink.FindAllStringSubmatch(text, -1) {
		dest := m[2]
		if dest[0] == '#' || dest[0] == '/' || indepScheme.MatchString(dest) {
			continue
		}
		path, _, _ := strings.Cut(dest, "#")
		path, _, _ = strings.Cut(path, "?")
		last := path[strings.LastIndex(path, "/")+1:]
		isNote := strings.HasSuffix(strings.ToLower(path), ".md")
		if isNote || m[1] == "" && last != "" && !strings.Contains(last, ".") {
			n++
		}
	}
	return n
}
