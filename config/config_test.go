package config_test

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/note"
	"go.yaml.in/yaml/v3"
)

func TestDefault(t *testing.T) {
	c := config.Default()
	if c.Gates.Profile != config.ProfileDefault || c.Gates.MaxNoteBytes != 1<<20 {
		t.Errorf("gates = %+v", c.Gates)
	}
	if len(c.Gates.ProtectedBlocks) != 1 || c.Gates.ProtectedBlocks[0] != (config.ProtectedBlock{
		Name: "related", Start: "<!-- norn:related:start -->", End: "<!-- norn:related:end -->",
	}) {
		t.Errorf("protected blocks = %+v", c.Gates.ProtectedBlocks)
	}
	if !reflect.DeepEqual(c.Privacy.Folders, []string{"personal-notes/"}) {
		t.Errorf("privacy folders = %q", c.Privacy.Folders)
	}
	if c.Inbox != "inbox/" {
		t.Errorf("inbox = %q", c.Inbox)
	}
	wantTypes := []string{"supports", "contradicts", "refines", "depends_on", "part_of",
		"example_of", "derived_from", "supersedes", "same_mechanism_as", "analogous_to"}
	if !reflect.DeepEqual(c.Edges.Types, wantTypes) || c.Edges.MinWhy != 20 {
		t.Errorf("edges = %+v", c.Edges)
	}
	if c.Search.Weights != (config.Weights{Title: 6, Aliases: 3, Tags: 3, Headings: 2, Body: 1, Path: 0.5, Frontmatter: 1}) {
		t.Errorf("weights = %+v", c.Search.Weights)
	}
	if c.Search.FolderFactors == nil || len(c.Search.FolderFactors) != 0 || c.Search.DiversityCap != 0 ||
		c.Search.ChunksPerFile != 1 {
		t.Errorf("search = %+v", c.Search)
	}
	for _, w := range []string{"the", "a", "of", "and"} {
		if !contains(c.Search.StopWords, w) {
			t.Errorf("stop words lack %q", w)
		}
	}
	if c.Rerank != (config.Rerank{Threshold: 0.9}) {
		t.Errorf("rerank = %+v", c.Rerank)
	}
	if c.GC != (config.GC{LooseObjects: 2000, Packs: 50}) {
		t.Errorf("gc = %+v", c.GC)
	}

	// Each call is independent: changing one result does not change the next.
	c.Privacy.Folders[0] = "x/"
	c.Search.FolderFactors["y/"] = 2
	if d := config.Default(); d.Privacy.Folders[0] != "personal-notes/" || len(d.Search.FolderFactors) != 0 {
		t.Errorf("Default shares state between calls: %+v", d)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestDefault_Documented: the file with every default in docs/config.md parses to
// exactly Default(), so the documentation cannot drift from the code.
func TestDefault_Documented(t *testing.T) {
	doc, err := os.ReadFile("../docs/config.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "## The file with every default")
	if !ok {
		t.Fatal("docs/config.md has no \"The file with every default\" section")
	}
	_, rest, _ = strings.Cut(rest, "```yaml\n")
	block, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatal("docs/config.md: no yaml block after \"The file with every default\"")
	}
	got, err := config.Parse([]byte(block))
	if err != nil {
		t.Fatalf("the documented defaults do not parse: %v", err)
	}
	if want := config.Default(); !reflect.DeepEqual(got, want) {
		t.Errorf("documented defaults\n%+v\ndiffer from Default()\n%+v", got, want)
	}
}

func TestParse_Empty(t *testing.T) {
	for _, in := range []string{"", "\n\n", "# only a comment\n", "---\n", "~\n", "null", "---\n# c\n...\n"} {
		c, err := config.Parse([]byte(in))
		if err != nil {
			t.Errorf("Parse(%q): %v", in, err)
			continue
		}
		if !reflect.DeepEqual(c, config.Default()) {
			t.Errorf("Parse(%q) = %+v, want Default()", in, c)
		}
	}
}

// TestParse_Sections sets every key of every section and checks the result; keys a
// row does not set must keep their defaults.
func TestParse_Sections(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want func(*config.Config)
	}{
		{"gates", `
gates:
  profile: strict
  max_note_bytes: 4096
  protected_blocks:
    - name: toc
      start: "<!-- toc -->"
      end: "<!-- /toc -->"
    - name: related
      start: "<!-- norn:related:start -->"
      end: "<!-- norn:related:end -->"
`, func(c *config.Config) {
			c.Gates.Profile = config.ProfileStrict
			c.Gates.MaxNoteBytes = 4096
			c.Gates.ProtectedBlocks = []config.ProtectedBlock{
				{Name: "toc", Start: "<!-- toc -->", End: "<!-- /toc -->"},
				{Name: "related", Start: "<!-- norn:related:start -->", End: "<!-- norn:related:end -->"},
			}
		}},
		{"gates off, no blocks", "gates: {profile: \"off\", protected_blocks: []}\n", func(c *config.Config) {
			c.Gates.Profile = config.ProfileOff
			c.Gates.ProtectedBlocks = []config.ProtectedBlock{}
		}},
		{"gates partial", "gates:\n  max_note_bytes: 1\n", func(c *config.Config) {
			c.Gates.MaxNoteBytes = 1
		}},
		{"privacy", "privacy:\n  folders: [personal-notes/, journal, work/secret/]\n", func(c *config.Config) {
			c.Privacy.Folders = []string{"personal-notes/", "journal/", "work/secret/"}
		}},
		{"privacy none", "privacy:\n  folders: []\n", func(c *config.Config) {
			c.Privacy.Folders = []string{}
		}},
		{"privacy dedup", "privacy:\n  folders: [a, a/]\n", func(c *config.Config) {
			c.Privacy.Folders = []string{"a/"}
		}},
		{"privacy tags", "privacy:\n  tags: [diary, '#Health/Private', DIARY, café-2]\n", func(c *config.Config) {
			c.Privacy.Tags = []string{"diary", "health/private", "café-2"}
		}},
		{"privacy tags none", "privacy:\n  tags: []\n", func(*config.Config) {}},
		{"inbox", "inbox: capture\n", func(c *config.Config) { c.Inbox = "capture/" }},
		{"inbox nested", "inbox: \"00 Inbox/daily/\"\n", func(c *config.Config) { c.Inbox = "00 Inbox/daily/" }},
		{"edges", "edges:\n  types: [supports, rebuts]\n  min_why: 0\n", func(c *config.Config) {
			c.Edges.Types = []string{"supports", "rebuts"}
			c.Edges.MinWhy = 0
		}},
		{"search", `
search:
  weights: {title: 10, body: 0.25}
  folder_factors:
    generated/: 0.5
    archive: 0
  diversity_cap: 3
  stop_words: [the, der]
  chunks_per_file: 2
`, func(c *config.Config) {
			c.Search.Weights.Title = 10
			c.Search.Weights.Body = 0.25
			c.Search.FolderFactors = map[string]float64{"generated/": 0.5, "archive/": 0}
			c.Search.DiversityCap = 3
			c.Search.StopWords = []string{"the", "der"}
			c.Search.ChunksPerFile = 2
		}},
		{"search ranking knobs", "search:\n  prefix: 0\n  proximity: 2\n  feedback: {docs: 0, terms: 10, weight: 0.25}\n", func(c *config.Config) {
			c.Search.Prefix, c.Search.Proximity = 0, 2
			c.Search.Feedback = config.Feedback{Docs: 0, Terms: 10, Weight: 0.25}
		}},
		{"search feedback partly", "search:\n  feedback:\n    docs: 10\n", func(c *config.Config) {
			c.Search.Feedback.Docs = 10
		}},
		{"search inbound field", "search:\n  inbound: {weight: 2.5, b: 0.25}\n", func(c *config.Config) {
			c.Search.Inbound = config.Inbound{Weight: 2.5, B: 0.25}
		}},
		{"search no stop words", "search:\n  stop_words: []\n", func(c *config.Config) {
			c.Search.StopWords = []string{}
		}},
		{"rerank", "rerank:\n  threshold: 1\n", func(c *config.Config) {
			c.Rerank = config.Rerank{Threshold: 1}
		}},
		{"rerank zero threshold, empty per-machine keys say nothing", "rerank: {threshold: 0, endpoint: \"\", model: ~}\nserve: {}\n", func(c *config.Config) {
			c.Rerank = config.Rerank{Threshold: 0}
		}},
		{"gc", "gc:\n  loose_objects: 0\n", func(c *config.Config) { c.GC.LooseObjects = 0 }},
		{"gc packs", "gc:\n  packs: 3\n", func(c *config.Config) { c.GC.Packs = 3 }},
		{"null values keep defaults", "gates:\nprivacy:\n  folders:\nsearch:\n  weights:\n  stop_words: ~\nrerank:\ninbox:\n", func(*config.Config) {}},
		{"comments and document markers", "---\n# settings\ngc: {loose_objects: 10} # pack often\n...\n", func(c *config.Config) {
			c.GC.LooseObjects = 10
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := config.Parse([]byte(tt.in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			want := config.Default()
			tt.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Parse =\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

func TestParse_UnknownKey(t *testing.T) {
	tests := []struct {
		in      string
		key     string
		line    int
		allowed string
	}{
		{"gate:\n  profile: strict\n", "gate", 1, "gates, privacy, inbox"},
		{"gates:\n  profile: strict\n  profle: default\n", "gates.profle", 3, "profile, max_note_bytes, protected_blocks"},
		{"search:\n  weights:\n    titel: 3\n", "search.weights.titel", 3, "title, aliases, tags"},
		{"gates:\n  protected_blocks:\n    - name: x\n      start: a\n      end: b\n      color: red\n", "gates.protected_blocks[0].color", 6, "name, start, end"},
		{"rerank:\n  url: http://x\n", "rerank.url", 2, "allowed here: threshold"},
		{"gc:\n  auto: true\n", "gc.auto", 2, "loose_objects"},
	}
	for _, tt := range tests {
		_, err := config.Parse([]byte(tt.in))
		var ce *config.Error
		if !errors.As(err, &ce) {
			t.Errorf("Parse(%q) = %v, want *config.Error", tt.in, err)
			continue
		}
		if !errors.Is(err, config.ErrInvalid) {
			t.Errorf("Parse(%q): error does not match ErrInvalid", tt.in)
		}
		if ce.Key != tt.key || ce.Line != tt.line || !strings.Contains(ce.Msg, "unknown key") ||
			!strings.Contains(ce.Msg, tt.allowed) {
			t.Errorf("Parse(%q) = %+v, want key %q line %d listing %q", tt.in, ce, tt.key, tt.line, tt.allowed)
		}
		if !strings.Contains(err.Error(), tt.key) {
			t.Errorf("Error() = %q does not name %q", err, tt.key)
		}
	}
}

func TestParse_BadValues(t *testing.T) {
	tests := []struct {
		name string
		in   string
		key  string
		line int
		msg  string // a fragment the message must hold (what is allowed)
	}{
		{"profile", "gates:\n  profile: lax\n", "gates.profile", 2, "allowed: default, strict, off"},
		{"profile not string", "gates:\n  profile: [a]\n", "gates.profile", 2, "want a string"},
		{"max bytes zero", "gates:\n  max_note_bytes: 0\n", "gates.max_note_bytes", 2, "from 1 to"},
		{"max bytes text", "gates:\n  max_note_bytes: 1MiB\n", "gates.max_note_bytes", 2, "whole number"},
		{"max bytes float", "gates:\n  max_note_bytes: 1.5\n", "gates.max_note_bytes", 2, "whole number"},
		{"max bytes huge", "gates:\n  max_note_bytes: 99999999999999\n", "gates.max_note_bytes", 2, "from 1 to"},
		{"blocks not list", "gates:\n  protected_blocks: related\n", "gates.protected_blocks", 2, "want a list"},
		{"block missing end", "gates:\n  protected_blocks:\n    - name: x\n      start: a\n", "gates.protected_blocks[0].end", 3, "missing"},
		{"block same markers", "gates:\n  protected_blocks:\n    - {name: x, start: a, end: a}\n", "gates.protected_blocks[0]", 3, "must differ"},
		{"block empty name", "gates:\n  protected_blocks:\n    - {name: \"\", start: a, end: b}\n", "gates.protected_blocks[0]", 3, "non-empty"},
		{"block multiline", "gates:\n  protected_blocks:\n    - {name: x, start: \"a\\nb\", end: c}\n", "gates.protected_blocks[0]", 3, "one line"},
		{"block dup name", "gates:\n  protected_blocks:\n    - {name: x, start: a, end: b}\n    - {name: x, start: c, end: d}\n", "gates.protected_blocks[1].name", 4, "unique"},
		{"block dup start", "gates:\n  protected_blocks:\n    - {name: x, start: a, end: b}\n    - {name: y, start: a, end: d}\n", "gates.protected_blocks[1].start", 4, "unique"},
		{"folders absolute", "privacy:\n  folders: [/home/me]\n", "privacy.folders[0]", 2, "absolute"},
		{"folders dotdot", "privacy:\n  folders:\n    - ok/\n    - a/../b\n", "privacy.folders[1]", 4, `".."`},
		{"folders backslash", "privacy:\n  folders: ['a\\b']\n", "privacy.folders[0]", 2, "backslash"},
		{"folders empty", "privacy:\n  folders: [\"\"]\n", "privacy.folders[0]", 2, "empty folder"},
		{"folders root", "privacy:\n  folders: [/]\n", "privacy.folders[0]", 2, "empty folder"},
		{"folders double slash", "privacy:\n  folders: [a//b]\n", "privacy.folders[0]", 2, "//"},
		{"folders not list", "privacy:\n  folders: personal/\n", "privacy.folders", 2, "want a list"},
		{"folders number", "privacy:\n  folders: [12]\n", "privacy.folders[0]", 2, "want a string"},
		{"folders null item", "privacy:\n  folders: [a, ~]\n", "privacy.folders[1]", 2, "empty list item"},
		{"tag space", "privacy:\n  tags: [\"my diary\"]\n", "privacy.tags[0]", 2, "cannot be part of a tag"},
		{"tag empty", "privacy:\n  tags: [\"#\"]\n", "privacy.tags[0]", 2, "empty tag"},
		{"tag digits", "privacy:\n  tags: [\"2026\"]\n", "privacy.tags[0]", 2, "no letter"},
		{"tag empty part", "privacy:\n  tags: [a//b]\n", "privacy.tags[0]", 2, "empty part"},
		{"tag comma", "privacy:\n  tags: [\"a,b\"]\n", "privacy.tags[0]", 2, "cannot be part of a tag"},
		{"tags not list", "privacy:\n  tags: diary\n", "privacy.tags", 2, "want a list"},
		{"privacy not mapping", "privacy: personal/\n", "privacy", 1, "want a mapping of folders"},
		{"inbox absolute", "inbox: /inbox\n", "inbox", 1, "absolute"},
		{"inbox number", "inbox: 5\n", "inbox", 1, "want a string"},
		{"edge type case", "edges:\n  types: [Supports]\n", "edges.types[0]", 2, "snake_case"},
		{"edge type dash", "edges:\n  types: [depends-on]\n", "edges.types[0]", 2, "snake_case"},
		{"edge types empty", "edges:\n  types: []\n", "edges.types", 2, "at least one"},
		{"min why negative", "edges:\n  min_why: -1\n", "edges.min_why", 2, "from 0 to 1000"},
		{"weight negative", "search:\n  weights: {title: -1}\n", "search.weights.title", 2, "from 0 to"},
		{"weight nan", "search:\n  weights: {title: .nan}\n", "search.weights.title", 2, "want a number"},
		{"weight inf", "search:\n  weights: {body: .inf}\n", "search.weights.body", 2, "want a number"},
		{"weight string", "search:\n  weights: {body: high}\n", "search.weights.body", 2, "want a number"},
		{"weights all zero", "search:\n  weights: {title: 0, aliases: 0, tags: 0, headings: 0, body: 0, path: 0, frontmatter: 0}\n", "search.weights", 2, "at least one weight must be positive"},
		{"factor negative", "search:\n  folder_factors: {generated/: -0.5}\n", "search.folder_factors.generated/", 2, "from 0"},
		{"factor null", "search:\n  folder_factors: {generated/: }\n", "search.folder_factors.generated/", 2, "want a number"},
		{"factor bad folder", "search:\n  folder_factors: {/abs: 1}\n", "search.folder_factors./abs", 2, "absolute"},
		{"factor dup folder", "search:\n  folder_factors: {gen: 1, gen/: 2}\n", "search.folder_factors.gen/", 2, "listed twice"},
		{"diversity negative", "search:\n  diversity_cap: -2\n", "search.diversity_cap", 2, "from 0"},
		{"stop word spaces", "search:\n  stop_words: [\"of the\"]\n", "search.stop_words[0]", 2, "whitespace"},
		{"chunks zero", "search:\n  chunks_per_file: 0\n", "search.chunks_per_file", 2, "from 1 to 1000"},
		{"prefix over 1", "search:\n  prefix: 1.5\n", "search.prefix", 2, "from 0 to 1"},
		{"proximity negative", "search:\n  proximity: -1\n", "search.proximity", 2, "from 0 to 100"},
		{"feedback docs", "search:\n  feedback: {docs: 51}\n", "search.feedback.docs", 2, "from 0 to 50"},
		{"feedback terms zero", "search:\n  feedback: {terms: 0}\n", "search.feedback.terms", 2, "from 1 to 100"},
		{"feedback weight", "search:\n  feedback: {weight: 2}\n", "search.feedback.weight", 2, "from 0 to 1"},
		{"feedback unknown", "search:\n  feedback: {depth: 2}\n", "search.feedback.depth", 2, "unknown key"},
		{"inbound b over 1", "search:\n  inbound: {b: 1.5}\n", "search.inbound.b", 2, "from 0 to 1"},
		{"inbound weight negative", "search:\n  inbound: {weight: -1}\n", "search.inbound.weight", 2, "from 0"},
		{"feedback not a mapping", "search:\n  feedback: on\n", "search.feedback", 2, "want a mapping"},
		{"threshold high", "rerank:\n  threshold: 1.5\n", "rerank.threshold", 2, "from 0 to 1"},
		{"gc negative", "gc:\n  loose_objects: -1\n", "gc.loose_objects", 2, "from 0"},
		{"gc bool", "gc:\n  loose_objects: yes\n", "gc.loose_objects", 2, "whole number"},
		{"duplicate key", "gc:\n  loose_objects: 1\n  loose_objects: 2\n", "gc.loose_objects", 3, "repeated (first at line 2)"},
		{"duplicate section", "gc: {}\ngc: {}\n", "gc", 2, "repeated"},
		{"alias", "x: &n 3\n", "x", 1, "unknown key"},
		{"alias value", "gc:\n  loose_objects: &n 3\nsearch:\n  diversity_cap: *n\n", "search.diversity_cap", 4, "aliases"},
		{"merge key", "gc:\n  <<: {loose_objects: 1}\n", "gc", 2, "merge keys (<<) are not allowed"},
		{"non-string key", "gates:\n  1: x\n", "gates", 2, "plain words"},
		{"section not mapping", "search: [a]\n", "search", 1, "want a mapping of weights"},
		{"root not mapping", "- a\n- b\n", "", 1, "must be a mapping of gates"},
		{"syntax", "gc:\n  loose_objects: 1: 2\n", "", 2, "YAML syntax: mapping values are not allowed"},
		{"unclosed flow", "gates:\n  profile: [strict\n", "", 2, "YAML syntax: did not find expected ',' or ']'"},
		{"missing key", "a:\n  - x\n  y: 1\n", "", 2, "YAML syntax: did not find expected '-' indicator"},
		{"tabs", "gates:\n\tprofile: strict\n", "", 2, "YAML syntax"},
		{"two documents", "gc: {}\n---\ngc: {}\n", "", 2, "more than one YAML document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := config.Parse([]byte(tt.in))
			if err == nil {
				t.Fatalf("Parse = %+v, want an error", c)
			}
			if !errors.Is(err, config.ErrInvalid) {
				t.Errorf("error %v does not match ErrInvalid", err)
			}
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is not a *config.Error", err)
			}
			if ce.Key != tt.key || ce.Line != tt.line || !strings.Contains(ce.Msg, tt.msg) {
				t.Errorf("error = {line %d, key %q, msg %q}, want line %d key %q with %q", ce.Line, ce.Key, ce.Msg, tt.line, tt.key, tt.msg)
			}
			if !reflect.DeepEqual(c, config.Config{}) {
				t.Errorf("Parse returned a non-zero Config with an error: %+v", c)
			}
		})
	}
}

// TestParse_AllErrors checks that one Parse reports every mistake, not just the first.
func TestParse_AllErrors(t *testing.T) {
	in := "gates:\n  profile: lax\n  max_note_bytes: -3\nsearch:\n  chunks_per_file: 0\nbogus: 1\n"
	_, err := config.Parse([]byte(in))
	multi, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("Parse error %v is not a joined error", err)
	}
	var got []string
	for _, e := range multi.Unwrap() {
		var ce *config.Error
		if !errors.As(e, &ce) {
			t.Fatalf("joined error %v is not a *config.Error", e)
		}
		got = append(got, ce.Key)
	}
	want := []string{"gates.profile", "gates.max_note_bytes", "search.chunks_per_file", "bogus"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("keys = %q, want %q", got, want)
	}
	if !errors.Is(err, config.ErrInvalid) {
		t.Error("joined error does not match ErrInvalid")
	}
}

func TestParse_TooLarge(t *testing.T) {
	b := []byte("# " + strings.Repeat("x", config.MaxSize) + "\n")
	if _, err := config.Parse(b); !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), "limit") {
		t.Errorf("Parse(%d bytes) = %v, want a size error", len(b), err)
	}
}

// TestParse_RoundTrip checks that yaml.Marshal of a Config writes a file Parse reads
// back to the same Config (so `norn init` can write the defaults out).
func TestParse_RoundTrip(t *testing.T) {
	custom := config.Default()
	custom.Gates.Profile = config.ProfileStrict
	custom.Search.FolderFactors["generated/"] = 0.5
	custom.Rerank.Threshold = 0.5
	for _, c := range []config.Config{config.Default(), custom} {
		b, err := yaml.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		got, err := config.Parse(b)
		if err != nil {
			t.Fatalf("Parse(Marshal(c)): %v\n%s", err, b)
		}
		if !reflect.DeepEqual(got, c) {
			t.Errorf("round trip changed the config:\n%s\ngot  %+v\nwant %+v", b, got, c)
		}
	}
}

func TestConfig_IsPrivate(t *testing.T) {
	c, err := config.Parse([]byte("privacy:\n  folders: [personal-notes/, work/hr]\n"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		fm   map[string]any
		want bool
	}{
		{"personal-notes/diary.md", nil, true},
		{"personal-notes/deep/down/x.md", nil, true},
		{"Personal-Notes/diary.md", nil, true},
		{"work/hr/salaries.md", nil, true},
		{"work/hrx/salaries.md", nil, false},
		{"personal-notes-public/x.md", nil, false},
		{"personal-notes.md", nil, false},
		{"tech/bloom.md", nil, false},
		{"tech/bloom.md", map[string]any{"private": true}, true},
		{"tech/bloom.md", map[string]any{"private": false}, false},
		{"tech/bloom.md", map[string]any{"private": "yes"}, true},
		{"tech/bloom.md", map[string]any{"private": "True"}, true},
		{"tech/bloom.md", map[string]any{"private": "no"}, false},
		{"tech/bloom.md", map[string]any{"private": 1}, false},
		{"tech/bloom.md", map[string]any{"Private": true}, false},
		{"tech/bloom.md", map[string]any{"title": "x"}, false},
	}
	for _, tt := range tests {
		if got := c.IsPrivate(note.Path(tt.path), tt.fm); got != tt.want {
			t.Errorf("IsPrivate(%q, %v) = %v, want %v", tt.path, tt.fm, got, tt.want)
		}
	}
	none, err := config.Parse([]byte("privacy: {folders: []}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if none.IsPrivate("personal-notes/diary.md", nil) {
		t.Error("with no privacy folders, a folder made a note private")
	}
}
