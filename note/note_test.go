package note

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// corpusDir returns the notes folder of a shared corpus, skipping the test when the
// corpora are not on this machine.
func corpusDir(t testing.TB, name string) string {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", "corpora", name, "notes")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("corpus %s not found at %s (the shared corpora are not on this machine): %v", name, dir, err)
	}
	return dir
}

type corpusNote struct {
	path Path
	raw  []byte
}

// loadCorpus reads every .md file of a corpus.
func loadCorpus(t testing.TB, name string) []corpusNote {
	t.Helper()
	dir := corpusDir(t, name)
	var out []corpusNote
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		out = append(out, corpusNote{Path(filepath.ToSlash(rel)), raw})
		return err
	})
	if err != nil {
		t.Fatalf("read corpus %s: %v", name, err)
	}
	return out
}

// checkNote verifies the invariants every parsed note must hold and returns the
// first one broken ("" when all hold). The fuzz targets use it too.
func checkNote(n *Note, raw []byte) string {
	if !bytes.Equal(n.Bytes(), raw) {
		return "Bytes differs from the input"
	}
	if len(raw) > 0 && &n.Raw[0] != &raw[0] {
		return "Raw is not the input slice"
	}
	if n.BodyStart < 0 || n.BodyStart > len(raw) {
		return fmt.Sprintf("BodyStart %d out of range", n.BodyStart)
	}
	if fm := n.Frontmatter; fm != nil {
		if fm.End != n.BodyStart || fm.Start > fm.End || !bytes.HasPrefix(raw[fm.Start:], []byte("---")) {
			return fmt.Sprintf("frontmatter block %d-%d, body at %d", fm.Start, fm.End, n.BodyStart)
		}
		if fm.Fields == nil || len(fm.Keys) != len(fm.KeyLines) || len(fm.Keys) != len(fm.Fields) {
			return fmt.Sprintf("frontmatter keys %v / lines %v / fields %d", fm.Keys, fm.KeyLines, len(fm.Fields))
		}
	} else if n.BodyStart != 0 {
		return "BodyStart set without frontmatter"
	}
	for _, l := range n.Links {
		if l.Start < n.BodyStart || l.Start >= l.End || l.End > len(raw) {
			return fmt.Sprintf("link %+v out of range", l)
		}
		text := string(raw[l.Start:l.End])
		var okSyntax bool
		switch l.Kind {
		case LinkWiki:
			okSyntax = strings.HasPrefix(text, "[[") && strings.HasSuffix(text, "]]")
		case LinkEmbed:
			okSyntax = strings.HasPrefix(text, "![[") && strings.HasSuffix(text, "]]")
		case LinkMarkdown:
			okSyntax = (strings.HasPrefix(text, "[") || strings.HasPrefix(text, "![")) && strings.HasSuffix(text, ")")
		}
		if !okSyntax {
			return fmt.Sprintf("%s link text %q", l.Kind, text)
		}
		if l.Target == "" && l.Heading == "" && l.Block == "" {
			return fmt.Sprintf("empty link %q", text)
		}
		if want := lineOf(raw, l.Start); l.Line != want {
			return fmt.Sprintf("link %q on line %d, not %d", text, want, l.Line)
		}
	}
	reach := 0
	var walk func(hs []*Heading, parent *Heading) string
	walk = func(hs []*Heading, parent *Heading) string {
		for _, h := range hs {
			reach++
			if h.Parent != parent {
				return fmt.Sprintf("heading %q has the wrong parent", h.Text)
			}
			if parent != nil && (h.Level <= parent.Level || h.Start < parent.Start || h.End > parent.End) {
				return fmt.Sprintf("heading %q not inside its parent %q", h.Text, parent.Text)
			}
			if msg := walk(h.Children, h); msg != "" {
				return msg
			}
		}
		return ""
	}
	if msg := walk(n.Roots, nil); msg != "" {
		return msg
	}
	if reach != len(n.Headings) {
		return fmt.Sprintf("%d headings, %d in the tree", len(n.Headings), reach)
	}
	for i, h := range n.Headings {
		if h.Start < n.BodyStart || h.Start > h.End || h.End > len(raw) || h.Start > 0 && raw[h.Start-1] != '\n' {
			return fmt.Sprintf("heading %q range %d-%d", h.Text, h.Start, h.End)
		}
		line := strings.TrimLeft(string(raw[h.Start:h.End]), " ")
		if !strings.HasPrefix(line, strings.Repeat("#", h.Level)) || h.Level < 1 || h.Level > 6 {
			return fmt.Sprintf("heading %q (level %d) starts %q", h.Text, h.Level, line[:min(len(line), 10)])
		}
		if want := lineOf(raw, h.Start); h.Line != want {
			return fmt.Sprintf("heading %q on line %d, not %d", h.Text, want, h.Line)
		}
		end := len(raw)
		for _, g := range n.Headings[i+1:] {
			if g.Level <= h.Level {
				end = g.Start
				break
			}
		}
		if h.End != end {
			return fmt.Sprintf("heading %q ends at %d, not %d", h.Text, h.End, end)
		}
	}
	seen := map[string]bool{}
	for _, tag := range n.Tags {
		k := strings.ToLower(tag)
		if tag == "" || tag[0] == '#' || seen[k] {
			return fmt.Sprintf("tag %q in %q", tag, n.Tags)
		}
		seen[k] = true
	}
	if n.Title == "" && Stem(n.Path) != "" {
		return "empty title"
	}
	return ""
}

// TestParse_Corpora parses every note of the three Markdown corpora: each must
// parse (or fail exactly as listed), keep every invariant and round-trip.
func TestParse_Corpora(t *testing.T) {
	type fail struct {
		rule Rule
		line int
	}
	tests := []struct {
		corpus string
		notes  int
		// Real notes that break a rule, with the rule and line.
		fails map[string]fail
	}{
		{corpus: "vault-obsidian-help-en", notes: 173, fails: map[string]fail{}},
		{corpus: "vault-obsidian-hub", notes: 6571, fails: map[string]fail{
			// "- @name": '@' is reserved in YAML and cannot start a plain scalar.
			"01 - Community/People/MugishoMp.md":                                                    {RuleYAMLSyntax, 3},
			"01 - Community/People/beaussan.md":                                                     {RuleYAMLSyntax, 3},
			"01 - Community/People/gapmiss.md":                                                      {RuleYAMLSyntax, 3},
			"01 - Community/People/gavinmn.md":                                                      {RuleYAMLSyntax, 3},
			"01 - Community/People/jaynguyens.md":                                                   {RuleYAMLSyntax, 3},
			"01 - Community/People/kepano.md":                                                       {RuleYAMLSyntax, 3},
			"01 - Community/People/maybe-hello-world.md":                                            {RuleYAMLSyntax, 3},
			"01 - Community/People/paperbenni.md":                                                   {RuleYAMLSyntax, 3},
			"01 - Community/People/radekkozak.md":                                                   {RuleYAMLSyntax, 3},
			"01 - Community/People/regawaras.md":                                                    {RuleYAMLSyntax, 3},
			"01 - Community/People/rscopic.md":                                                      {RuleYAMLSyntax, 3},
			"01 - Community/People/tazihad.md":                                                      {RuleYAMLSyntax, 3},
			"02 - Community Expansions/02.05 All Community Expansions/Plugins/at-symbol-linking.md": {RuleYAMLSyntax, 4},
			// "- Opener: New Tab by Default": an alias that YAML reads as a mapping.
			"02 - Community Expansions/02.05 All Community Expansions/Plugins/copy-recursive-content.md":    {RuleInvalidAliases, 4},
			"02 - Community Expansions/02.05 All Community Expansions/Plugins/interactivity.md":             {RuleInvalidAliases, 4},
			"02 - Community Expansions/02.05 All Community Expansions/Plugins/lawlist.md":                   {RuleInvalidAliases, 4},
			"02 - Community Expansions/02.05 All Community Expansions/Plugins/opener.md":                    {RuleInvalidAliases, 4},
			"02 - Community Expansions/02.05 All Community Expansions/Plugins/t4-task-tree-time-totaler.md": {RuleInvalidAliases, 4},
			// A Templater template: `date: <% tp... %>` then `week: "[[ <% ... "..." %>]]"`.
			"03 - Showcases & Templates/Templates/Daily notes/T - Thecookiemomma's Daily Log.md": {RuleYAMLSyntax, 3},
			// "aliases: LifeOS" followed by a "- " list item.
			"03 - Showcases & Templates/Vaults/Periodic PARA.md": {RuleYAMLSyntax, 3},
		}},
		{corpus: "md-cpp-docs", notes: 9751, fails: map[string]fail{
			// Frontmatter over 16 KiB: keyword lists of large reference pages.
			"docs/c-runtime-library/internal-crt-globals-and-functions.md":    {RuleTooLarge, 1},
			"docs/intrinsics/arm-intrinsics.md":                               {RuleTooLarge, 1},
			"docs/intrinsics/x64-amd64-intrinsics-list.md":                    {RuleTooLarge, 1},
			"docs/intrinsics/x86-intrinsics-list.md":                          {RuleTooLarge, 1},
			"docs/mfc/reference/cmfcvisualmanager-class.md":                   {RuleTooLarge, 1},
			"docs/mfc/reference/cwnd-class.md":                                {RuleTooLarge, 1},
			"docs/parallel/concrt/reference/reference-concurrency-runtime.md": {RuleTooLarge, 1},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.corpus, func(t *testing.T) {
			notes := loadCorpus(t, tt.corpus)
			if len(notes) != tt.notes {
				t.Errorf("%d notes; want %d", len(notes), tt.notes)
			}
			// Two workers: the machine is shared, and -race is slow.
			var mu sync.Mutex
			got := map[string]fail{}
			var wg sync.WaitGroup
			for w := range 2 {
				wg.Go(func() {
					for i := w; i < len(notes); i += 2 {
						c := notes[i]
						n, err := Parse(c.path, c.raw)
						if err != nil {
							var pe *ParseError
							if !errors.As(err, &pe) {
								t.Errorf("%s: error %T %v", c.path, err, err)
								continue
							}
							mu.Lock()
							got[string(c.path)] = fail{pe.Rule, pe.Line}
							mu.Unlock()
							continue
						}
						if msg := checkNote(n, c.raw); msg != "" {
							t.Errorf("%s: %s", c.path, msg)
						}
					}
				})
			}
			wg.Wait()
			if !reflect.DeepEqual(got, tt.fails) {
				for p, f := range got {
					if tt.fails[p] != f {
						t.Errorf("%s: got %v", p, f)
					}
				}
				for p, f := range tt.fails {
					if got[p] != f {
						t.Errorf("%s: want %v, got %v", p, f, got[p])
					}
				}
			}
		})
	}
}

func TestParse_Title(t *testing.T) {
	tests := []struct {
		path Path
		raw  string
		want string
		src  TitleSource
	}{
		{"a/Bloom filters.md", "---\ntitle: From YAML\n---\n# From heading\n", "From YAML", TitleFromFrontmatter},
		{"a/b.md", "---\ntitle: \"  padded  \"\n---\n", "padded", TitleFromFrontmatter},
		{"a/b.md", "---\ntitle: 1984\n---\n", "1984", TitleFromFrontmatter},
		{"a/b.md", "---\ntitle: \"\"\n---\n# H\n", "H", TitleFromHeading},
		{"a/b.md", "---\ntitle:\n---\n# H\n", "H", TitleFromHeading},
		{"a/b.md", "---\ntitle: [x]\n---\n# H\n", "H", TitleFromHeading},
		{"a/b.md", "intro\n## Two\n# One #\n# Later\n", "One", TitleFromHeading},
		{"a/b.md", "```\n# In code\n```\n# Real\n", "Real", TitleFromHeading},
		{"a/b.md", "#\n# \n#  Third  \n", "Third", TitleFromHeading},
		{"a/b.md", "#hashtag\n## Only H2\n", "b", TitleFromPath},
		{"a/Note name.MD", "", "Note name", TitleFromPath},
		{"root.md", "Title\n=====\n", "root", TitleFromPath},
	}
	for _, tt := range tests {
		n, err := Parse(tt.path, []byte(tt.raw))
		if err != nil {
			t.Fatalf("%q: %v", tt.raw, err)
		}
		if n.Title != tt.want || n.TitleSource != tt.src {
			t.Errorf("%q: title %q from %s; want %q from %s", tt.raw, n.Title, n.TitleSource, tt.want, tt.src)
		}
	}
}

func TestParse_Tags(t *testing.T) {
	tests := []struct {
		raw  string
		want []string
	}{
		{"#tag", []string{"tag"}},
		{"a #tag b #Tag #TAG", []string{"tag"}},
		{"#a/b/c and #x-y_z", []string{"a/b/c", "x-y_z"}},
		{"#tag. (#two), [#three]; \"#four\" *#five* _#six_ |#seven|", []string{"tag", "two", "three", "four", "five", "six_", "seven"}},
		{"#y2024 #2024 #1-2 #- #_ #2024/01", []string{"y2024"}},
		{"#élan #日本語 #naïve", []string{"élan", "日本語", "naïve"}},
		{"# Heading\n## Sub #inheading", []string{"inheading"}},
		{"C# and F# and a#b and 3#x", nil},
		{"##double ###triple", nil},
		{"https://x.org/page#frag https://x.org/a_#b (https://x.org/#c)", nil},
		{"[[note#heading]] [x](a.md#h) [y](https://x.org/#z)", nil},
		{"`#code` and ```#more```", nil},
		{"```\n#fenced\n```\n    #indented", nil},
		{"<!-- #commented -->", nil},
		{"\\#escaped &#39; &#x27;", nil},
		{"[see #intext](a.md)", []string{"intext"}},
		{"---\ntags: [a, '#b', c]\n---\n#A #d", []string{"a", "b", "c", "d"}},
		{"---\ntags: \"a, b  #c,d\"\n---\n", []string{"a", "b", "c", "d"}},
		{"---\ntags: a, b #yaml comment\n---\n", []string{"a", "b"}},
		{"---\ntags:\n  - Periodic Notes\n  - 2024\n  -\n  - ''\n---\n", []string{"Periodic Notes", "2024"}},
		{"---\ntag: x\ntags: [y, X]\n---\n", []string{"x", "y"}},
		{"---\ntags:\n---\n#only", []string{"only"}},
	}
	for _, tt := range tests {
		n, err := Parse("t.md", []byte(tt.raw))
		if err != nil {
			t.Fatalf("%q: %v", tt.raw, err)
		}
		if len(n.Tags) != len(tt.want) || len(tt.want) > 0 && !reflect.DeepEqual(n.Tags, tt.want) {
			t.Errorf("%q: tags %q; want %q", tt.raw, n.Tags, tt.want)
		}
	}
}

func TestParse_Aliases(t *testing.T) {
	tests := []struct {
		yaml string
		want []string
	}{
		{"aliases: [A, B]", []string{"A", "B"}},
		{"aliases: Single, with comma", []string{"Single, with comma"}},
		{"alias: X", []string{"X"}},
		{"aliases:\n  - One\n  - 2024\n  -\nalias: Two", []string{"One", "2024", "Two"}},
		{"aliases:", nil},
		{"other: x", nil},
	}
	for _, tt := range tests {
		n, err := Parse("t.md", []byte("---\n"+tt.yaml+"\n---\n"))
		if err != nil {
			t.Fatalf("%q: %v", tt.yaml, err)
		}
		if len(n.Aliases) != len(tt.want) || len(tt.want) > 0 && !reflect.DeepEqual(n.Aliases, tt.want) {
			t.Errorf("%q: aliases %q; want %q", tt.yaml, n.Aliases, tt.want)
		}
	}
}

func TestParse_Headings(t *testing.T) {
	raw := "# A\ntext\n## B ##\n### C\n## D\n# E\n#### F\n"
	n, err := Parse("t.md", []byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range n.Headings {
		parent := "-"
		if h.Parent != nil {
			parent = h.Parent.Text
		}
		got = append(got, fmt.Sprintf("%d:%s@%d parent=%s %q", h.Level, h.Text, h.Line, parent, raw[h.Start:h.End]))
	}
	want := []string{
		`1:A@1 parent=- "# A\ntext\n## B ##\n### C\n## D\n"`,
		`2:B@3 parent=A "## B ##\n### C\n"`,
		`3:C@4 parent=B "### C\n"`,
		`2:D@5 parent=A "## D\n"`,
		`1:E@6 parent=- "# E\n#### F\n"`,
		`4:F@7 parent=E "#### F\n"`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("headings:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(n.Roots) != 2 || n.Roots[0].Text != "A" || n.Roots[1].Text != "E" || len(n.Roots[0].Children) != 2 {
		t.Errorf("roots %+v", n.Roots)
	}
	if msg := checkNote(n, n.Raw); msg != "" {
		t.Error(msg)
	}

	texts := []struct {
		line  string
		level int
		text  string // "" with level 0: not a heading
	}{
		{"# Title", 1, "Title"},
		{"###### Six", 6, "Six"},
		{"####### Seven", 0, ""},
		{"#hashtag", 0, ""},
		{"#", 1, ""},
		{"##   ", 2, ""},
		{"## Closing ##", 2, "Closing"},
		{"## Closing ###   ", 2, "Closing"},
		{"# C#", 1, "C#"},
		{"# Why #tags", 1, "Why #tags"},
		{"# ###", 1, ""},
		{"#\tTab", 1, "Tab"},
		{"   ### Three spaces", 3, "Three spaces"},
		{"    # Four spaces is code", 0, ""},
		{"> # Quoted", 0, ""},
		{"- # In a list item", 0, ""},
		{"\\# Escaped", 0, ""},
		{"# [[Link]] and `code`", 1, "[[Link]] and `code`"},
	}
	for _, tt := range texts {
		n, err := Parse("t.md", []byte(tt.line+"\r\n"))
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case tt.level == 0 && len(n.Headings) != 0:
			t.Errorf("%q: heading %+v; want none", tt.line, n.Headings[0])
		case tt.level > 0 && (len(n.Headings) != 1 || n.Headings[0].Level != tt.level || n.Headings[0].Text != tt.text):
			t.Errorf("%q: headings %+v; want level %d %q", tt.line, n.Headings, tt.level, tt.text)
		}
	}

	// Offsets count from the start of the note, frontmatter included.
	fm := "---\ntitle: x\n---\n\n## Sub\n```\n# not\n```\n"
	n, _ = Parse("t.md", []byte(fm))
	if len(n.Headings) != 1 || n.Headings[0].Start != 18 || n.Headings[0].Line != 5 || n.Headings[0].End != len(fm) {
		t.Errorf("headings after frontmatter: %+v", n.Headings)
	}
}

func TestStem(t *testing.T) {
	tests := map[Path]string{
		"a/b.md": "b", "b.MD": "b", "a/b.txt": "b.txt", "x": "x", "a.b.md": "a.b",
		"dir/Note name.md": "Note name", ".md": "", "a/🗂️ Plugins.md": "🗂️ Plugins",
	}
	for p, want := range tests {
		if got := Stem(p); got != want {
			t.Errorf("Stem(%q) = %q; want %q", p, got, want)
		}
	}
}

func TestIsNote(t *testing.T) {
	tests := map[Path]bool{
		"a/b.md": true, "b.MD": true, "B.Md": true, ".md": true, "a/🗂️ Plugins.md": true,
		"a/b.md.txt": false, "a/b.png": false, "md": false, "a/bmd": false, "": false, "a/b.m d": false,
	}
	for p, want := range tests {
		if got := IsNote(p); got != want {
			t.Errorf("IsNote(%q) = %v; want %v", p, got, want)
		}
	}
}

func TestPath_Folder(t *testing.T) {
	tests := map[Path]string{"a/b/c.md": "a/b", "c.md": "", "a/c.md": "a", "": ""}
	for p, want := range tests {
		if got := p.Folder(); got != want {
			t.Errorf("%q.Folder() = %q; want %q", p, got, want)
		}
	}
}

func TestNote_Bytes(t *testing.T) {
	for _, raw := range []string{"", "x", "---\na: 1\n---\nbody", "\ufeff# T\r\n", "no final newline"} {
		n, err := Parse("t.md", []byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		if string(n.Bytes()) != raw {
			t.Errorf("Bytes = %q; want %q", n.Bytes(), raw)
		}
	}
}

// TestParse_Adversarial parses inputs built to trip quadratic scans (unclosed
// brackets, parens, backticks, comments). It asserts only the results; a
// regression shows up as this test taking seconds instead of milliseconds.
func TestParse_Adversarial(t *testing.T) {
	const size = 16 << 10
	inputs := map[string]string{
		"open brackets":      strings.Repeat("[", size),
		"open wikilinks":     strings.Repeat("[[a", size),
		"open embeds":        strings.Repeat("![", size),
		"open destinations":  strings.Repeat("[a](", size),
		"open titles":        strings.Repeat("[a](b \"", size),
		"open code in links": strings.Repeat("[`", size),
		"backtick runs":      strings.Repeat("`a``b", size),
		"open comments":      strings.Repeat("<!--", size),
		"open comments, %%":  strings.Repeat("<!--%%", size),
		"backtick runs, %%":  strings.Repeat("`` `", size) + "%%",
		"nested brackets":    strings.Repeat("[a ", size) + strings.Repeat("]", size),
		"hash runs":          strings.Repeat("(#a", size),
		"deep flow yaml":     "---\na: " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n---\n",
	}
	for name, in := range inputs {
		n, err := Parse("x.md", []byte(in))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if msg := checkNote(n, n.Raw); msg != "" {
			t.Errorf("%s: %s", name, msg)
		}
		if name != "hash runs" && len(n.Links)+len(n.Tags) != 0 {
			t.Errorf("%s: %d links, %d tags", name, len(n.Links), len(n.Tags))
		}
	}
}
