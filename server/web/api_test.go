package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/norn-vault/norn/internal/testvault"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

type treeFolder struct {
	Path, Name string
	Count      int
	Folders    []treeFolder
	Notes      []struct{ Path, Title string }
}

func findFolder(f treeFolder, path string) *treeFolder {
	if f.Path == path {
		return &f
	}
	for _, c := range f.Folders {
		if got := findFolder(c, path); got != nil {
			return got
		}
	}
	return nil
}

// TestAPI_Tree: a nested tree of folders with recursive counts of the notes the
// viewer sees.
func TestAPI_Tree(t *testing.T) {
	e := newEnv(t, fixture)
	for name, want := range map[string]map[string]int{
		"owner":  {"": 5, "tech": 3, "personal-notes": 1},
		"reader": {"": 3, "tech": 2, "personal-notes": -1},
	} {
		var tr struct{ Folders []treeFolder }
		e.login(name).get("/web/api/tree", &tr)
		if len(tr.Folders) != 1 || tr.Folders[0].Path != "" || tr.Folders[0].Name != "" {
			t.Fatalf("%s: root %+v", name, tr.Folders)
		}
		for path, n := range want {
			f := findFolder(tr.Folders[0], path)
			switch {
			case n < 0 && f != nil:
				t.Errorf("%s sees folder %q", name, path)
			case n >= 0 && (f == nil || f.Count != n):
				t.Errorf("%s: folder %q is %+v, want count %d", name, path, f, n)
			}
		}
		if tech := findFolder(tr.Folders[0], "tech"); tech == nil || tech.Name != "tech" || tech.Notes[0].Path != "tech/bloom.md" || tech.Notes[0].Title != "Bloom filters" {
			t.Errorf("%s: tech %+v", name, tech)
		}
	}
}

type noteAnswer struct {
	Path, Title, Revision, Commit, HTML string
	Frontmatter                         map[string]any
	Tags                                []string
	Edges                               []struct {
		Type, Target, Why string
		Resolved          bool
	}
	Backlinks []struct {
		Source, Title, Context string
		Line                   int
	}
	Archived bool
}

// TestAPI_Note: a note's rendered body (wikilinks resolved by Norn's resolver,
// broken ones marked), frontmatter, tags, typed edges and backlinks; an older
// revision with at; an archived note with archived=true; a missing one 404.
func TestAPI_Note(t *testing.T) {
	e := newEnv(t, fixture)
	b := e.login("owner")
	var n noteAnswer
	b.get("/web/api/note?path=tech/bloom.md", &n)
	if n.Path != "tech/bloom.md" || n.Title != "Bloom filters" || len(n.Revision) != 40 || len(n.Commit) != 40 || n.Archived {
		t.Fatalf("note %+v", n)
	}
	for _, want := range []string{
		`<a class="wikilink" href="#/note/tech/cms.md" data-path="tech/cms.md">the sketch</a>`,
		`<a class="wikilink" href="#/note/tech/cms.md" data-path="tech/cms.md" data-heading="Usage">Count-min sketch#Usage</a>`,
		`<a class="wikilink broken" data-target="Nowhere">Nowhere</a>`,
		`<a class="wikilink embed" href="#/note/tech/cms.md" data-path="tech/cms.md">cms</a>`,
		`<a class="wikilink" href="#/note/tech/bloom.md" data-path="tech/bloom.md" data-heading="Usage">#Usage</a>`,
		`<h2 id="usage">Usage</h2>`,
	} {
		if !strings.Contains(n.HTML, want) {
			t.Errorf("html lacks %s:\n%s", want, n.HTML)
		}
	}
	if n.Frontmatter["title"] != "Bloom filters" || strings.Join(n.Tags, ",") != "data-structures,hashing" {
		t.Errorf("frontmatter %v tags %v", n.Frontmatter, n.Tags)
	}
	if len(n.Edges) != 1 || n.Edges[0].Type != "same_mechanism_as" || n.Edges[0].Target != "tech/cms.md" || !n.Edges[0].Resolved || !strings.HasPrefix(n.Edges[0].Why, "Both hash") {
		t.Errorf("edges %+v", n.Edges)
	}
	srcs := map[string]int{}
	for _, bl := range n.Backlinks {
		srcs[bl.Source] = bl.Line
		if bl.Source == "tech/cms.md" && (bl.Title != "Count-min sketch" || !strings.Contains(bl.Context, "[[Bloom filters]]")) {
			t.Errorf("backlink %+v", bl)
		}
	}
	for _, s := range []string{"README.md", "tech/cms.md", "tech/secret.md", "personal-notes/diary.md"} {
		if srcs[s] == 0 {
			t.Errorf("no backlink from %s: %+v", s, n.Backlinks)
		}
	}

	// An older revision, by commit.
	first := headCommit(t, e.v)
	if err := testvault.Write(e.v, "tech/cms.md", "---\ntitle: Count-min sketch\ntags: [hashing]\n---\n# Count-min sketch\nChanged.\n"); err != nil {
		t.Fatal(err)
	}
	var old noteAnswer
	b.get("/web/api/note?path=tech/cms.md&at="+first, &old)
	if !strings.Contains(old.HTML, "but counting") || old.Commit != first {
		t.Errorf("at %s: %+v", first, old)
	}

	// Archived: the last revision, archived=true.
	if _, err := e.v.ArchiveNote(context.Background(), vault.ArchiveRequest{Path: "tech/cms.md", Reason: repo.ReasonArchived, Author: testvault.Owner}); err != nil {
		t.Fatal(err)
	}
	var arch noteAnswer
	b.get("/web/api/note?path=tech/cms.md", &arch)
	if !arch.Archived || !strings.Contains(arch.HTML, "Changed.") || len(arch.Revision) != 40 {
		t.Errorf("archived %+v", arch)
	}

	for _, path := range []string{"/web/api/note?path=nope.md", "/web/api/note?path=tech/bloom.md&at=0000000000000000000000000000000000000000"} {
		resp, body := b.do(http.MethodGet, path, "", nil)
		if resp.StatusCode != http.StatusNotFound || errCode(t, body) != "not_found" {
			t.Errorf("%s: %d %s", path, resp.StatusCode, body)
		}
	}
	for _, path := range []string{"/web/api/note", "/web/api/note?path=../x.md", "/web/api/note?path=a.md&path=b.md", "/web/api/note?path=a.md&at=HEAD%3Brm", "/web/api/note?path=pic.png"} {
		resp, body := b.do(http.MethodGet, path, "", nil)
		if resp.StatusCode != http.StatusBadRequest || errCode(t, body) != "invalid_input" {
			t.Errorf("%s: %d %s", path, resp.StatusCode, body)
		}
	}
}

// TestAPI_SearchGraphHistoryDiffRestore: the shapes of search, graph, hubs,
// history, diff and restore.
func TestAPI_SearchGraphHistoryDiffRestore(t *testing.T) {
	e := newEnv(t, fixture)
	b := e.login("owner")
	var s struct {
		Engine string
		Hits   []struct {
			Path, Title, Snippet string
			Score                float64
			Line                 int
			Matched              []string
		}
	}
	b.get("/web/api/search?q=hash+functions&limit=5", &s)
	if !strings.HasPrefix(s.Engine, "bm25") || len(s.Hits) == 0 || s.Hits[0].Path != "tech/bloom.md" || s.Hits[0].Title != "Bloom filters" ||
		s.Hits[0].Score <= 0 || s.Hits[0].Line == 0 || s.Hits[0].Snippet == "" || len(s.Hits[0].Matched) == 0 {
		t.Fatalf("search %+v", s)
	}
	if resp, body := b.do(http.MethodGet, "/web/api/search?q=", "", nil); resp.StatusCode != http.StatusBadRequest || errCode(t, body) != "invalid_input" {
		t.Fatalf("empty query: %d %s", resp.StatusCode, body)
	}

	type graphAnswer struct {
		Nodes []struct {
			ID, Title string
			Degree    int
			Center    bool
		}
		Edges     []struct{ Source, Target, Type string }
		Truncated bool
	}
	var g graphAnswer
	b.get("/web/api/graph?path=tech/bloom.md&depth=1&max=50", &g)
	if len(g.Nodes) < 3 || g.Nodes[0].ID != "tech/bloom.md" || !g.Nodes[0].Center || g.Nodes[0].Degree == 0 || len(g.Edges) == 0 {
		t.Fatalf("graph %+v", g)
	}
	var typed graphAnswer
	b.get("/web/api/graph?path=tech/bloom.md&types=same_mechanism_as", &typed)
	if len(typed.Edges) != 1 || typed.Edges[0].Type != "same_mechanism_as" || typed.Edges[0].Target != "tech/cms.md" {
		t.Fatalf("typed graph %+v", typed)
	}
	var hubs graphAnswer
	b.get("/web/api/hubs?max=2", &hubs)
	if len(hubs.Nodes) != 2 || hubs.Nodes[0].ID != "tech/bloom.md" || !hubs.Truncated || len(hubs.Edges) == 0 {
		t.Fatalf("hubs %+v", hubs)
	}
	if resp, _ := b.do(http.MethodGet, "/web/api/graph?path=tech/bloom.md&depth=9", "", nil); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("depth 9: %d", resp.StatusCode)
	}

	first := headCommit(t, e.v)
	if err := testvault.Write(e.v, "tech/cms.md", "---\ntitle: Count-min sketch\ntags: [hashing]\n---\n# Count-min sketch\nLike [[Bloom filters]] but counting. Not [[Secret plan]].\n\n## Usage\nCount twice.\n"); err != nil {
		t.Fatal(err)
	}
	type historyAnswer struct {
		Commits []struct {
			Commit, Author, Op, Reason, Time string
			Changes                          []struct{ Path, Kind, From string }
		}
		More bool
	}
	var h historyAnswer
	b.get("/web/api/history?path=tech/cms.md&n=1", &h)
	if len(h.Commits) != 1 || !h.More || h.Commits[0].Op != "write" || h.Commits[0].Time == "" || !strings.HasPrefix(h.Commits[0].Author, "a ") ||
		len(h.Commits[0].Changes) != 1 || h.Commits[0].Changes[0].Path != "tech/cms.md" || h.Commits[0].Changes[0].Kind == "" {
		t.Fatalf("history %+v", h)
	}
	var all historyAnswer
	b.get("/web/api/history?skip=1", &all)
	if len(all.Commits) == 0 || all.Commits[0].Commit != first || all.More {
		t.Fatalf("vault history from 1: %+v", all)
	}

	var d struct {
		From, To string
		Lines    []struct {
			Kind     string
			Old, New int
			Text     string
		}
	}
	b.get("/web/api/diff?path=tech/cms.md&from="+first+"&to=HEAD", &d)
	kinds := ""
	for _, l := range d.Lines {
		kinds += l.Kind[:1]
		if l.Text == "Count twice." && (l.Kind != "add" || l.New != 9 || l.Old != 0) {
			t.Errorf("added line %+v", l)
		}
	}
	if d.From != first || len(d.To) != 40 || kinds != "ccccccccda" {
		t.Fatalf("diff %+v (%s)", d, kinds)
	}

	// Restore an archived note by its revision: one commit, the note back.
	var n noteAnswer
	b.get("/web/api/note?path=README.md", &n)
	if _, err := e.v.ArchiveNote(context.Background(), vault.ArchiveRequest{Path: "README.md", Reason: repo.ReasonArchived, Author: testvault.Owner}); err != nil {
		t.Fatal(err)
	}
	reader := e.login("reader")
	if resp, body := reader.post("/web/api/restore", `{"path": "README.md", "revision": "`+n.Revision+`"}`); resp.StatusCode != http.StatusForbidden || errCode(t, body) != "forbidden" {
		t.Fatalf("reader restores: %d %s", resp.StatusCode, body)
	}
	resp, body := b.post("/web/api/restore", `{"path": "README.md", "revision": "`+n.Revision+`"}`)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"commit":"`+headCommit(t, e.v)+`"`) {
		t.Fatalf("restore: %d %s", resp.StatusCode, body)
	}
	if e.v.Revision(note.Path("README.md")) != repo.Revision(n.Revision) {
		t.Fatal("README.md not restored")
	}
	testvault.GitIn(t, e.v.Dir(), "fsck", "--strict")
	if got := testvault.GitIn(t, e.v.Dir(), "log", "-1", "--format=%an %(trailers:key=Norn-Op,valueonly)"); !strings.HasPrefix(got, "owner restore") {
		t.Fatalf("restore commit: %q", got)
	}
	// Again: the note exists now, a conflict; bad bodies are invalid input; nothing written.
	before := headCommit(t, e.v)
	for body, want := range map[string]int{
		`{"path": "README.md", "revision": "` + n.Revision + `"}`: http.StatusConflict,
		`{"path": "README.md", "revision": "HEAD"}`:               http.StatusBadRequest,
		`{"path": "README.md", "extra": 1}`:                       http.StatusBadRequest,
		`{"path": "README.md"`:                                    http.StatusBadRequest,
	} {
		if resp, out := b.post("/web/api/restore", body); resp.StatusCode != want {
			t.Errorf("restore %s: %d %s, want %d", body, resp.StatusCode, out, want)
		}
	}
	if headCommit(t, e.v) != before {
		t.Fatal("a refused restore wrote")
	}
}

// TestAPI_NoteUnparsed: a note whose frontmatter does not parse is shown as
// escaped text with parse_error; one that mentions private stays hidden.
func TestAPI_NoteUnparsed(t *testing.T) {
	e := newEnv(t, map[string]string{
		"bad.md":   "---\ntitle: [unclosed\n---\n<script>alert(1)</script>\n",
		"maybe.md": "---\nprivate: [yes\n---\n# quokka\n",
	})
	b := e.login("reader")
	var n struct {
		HTML       string
		ParseError string `json:"parse_error"`
	}
	b.get("/web/api/note?path=bad.md", &n)
	if n.ParseError == "" || !strings.HasPrefix(n.HTML, "<pre>") || strings.Contains(n.HTML, "<script") || !strings.Contains(n.HTML, "&lt;script&gt;") {
		t.Fatalf("unparsed note %+v", n)
	}
	if resp, body := b.do(http.MethodGet, "/web/api/note?path=maybe.md", "", nil); resp.StatusCode != http.StatusNotFound || strings.Contains(string(body), "quokka") {
		t.Fatalf("a note that may be private: %d %s", resp.StatusCode, body)
	}
}

// TestAPI_NoteLedger: the note view carries the claims read from the note, each
// fresh or stale, and a registered summary's synthesis freshness; a claim read
// from a private note reaches no reader.
func TestAPI_NoteLedger(t *testing.T) {
	e := newEnv(t, fixture)
	ctx := context.Background()
	agent := vault.Actor{Author: repo.Author{Name: "agent", Email: "agent@x"}, Roles: []string{"agent"}}
	owner := vault.Actor{Author: testvault.Owner, Roles: []string{"owner"}, Private: true}
	if _, err := e.v.AssertClaim(ctx, agent, vault.ClaimRequest{Subject: "bloom", Property: "kind", Scope: "global", Value: "set sketch", Source: "tech/bloom.md"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.v.AssertClaim(ctx, owner, vault.ClaimRequest{Subject: "plan", Property: "instrument", Scope: "global", Value: "xylophone", Source: "tech/secret.md"}); err != nil {
		t.Fatal(err)
	}
	vw, err := e.v.Viewer(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := vw.RegisterSynthesis(ctx, vault.SynthesisRequest{Summary: "README.md", Sources: []note.Path{"tech/bloom.md", "tech/cms.md"}, Author: testvault.Owner, Roles: []string{"owner"}}); err != nil {
		t.Fatal(err)
	}
	type ledgerNote struct {
		Claims []struct {
			Value string
			Fresh bool
		}
		Synthesis *struct{ Status string }
	}
	var n ledgerNote
	e.login("reader").get("/web/api/note?path="+q("tech/bloom.md"), &n)
	if len(n.Claims) != 1 || n.Claims[0].Value != "set sketch" || !n.Claims[0].Fresh || n.Synthesis != nil {
		t.Fatalf("bloom: %+v", n)
	}
	var r ledgerNote
	e.login("reader").get("/web/api/note?path="+q("README.md"), &r)
	if r.Synthesis == nil || r.Synthesis.Status != vault.SynthesisCurrent {
		t.Fatalf("summary: %+v", r)
	}
	if err := testvault.Write(e.v, "tech/cms.md", "---\ntitle: Count-min sketch\n---\n# Count-min sketch\nChanged.\n", "owner"); err != nil {
		t.Fatal(err)
	}
	e.login("reader").get("/web/api/note?path="+q("README.md"), &r)
	if r.Synthesis == nil || r.Synthesis.Status != vault.SynthesisStale {
		t.Fatalf("summary after a source's edit: %+v", r)
	}
	var s ledgerNote
	raw := e.login("owner").get("/web/api/note?path="+q("tech/secret.md"), &s)
	if len(s.Claims) != 1 || !strings.Contains(string(raw), "xylophone") {
		t.Fatalf("owner, secret: %s", raw)
	}
}
