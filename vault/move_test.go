package vault

// White-box: the concurrent-edit test commits between planning and applying a
// move, which only the package itself can do without a timing race.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

var testOwner = repo.Author{Name: "o", Email: "o@x"}

// servedVault imports files into a new vault (one import commit) and opens it
// with vault.Open: gates and index wired.
func servedVault(t *testing.T, files map[string]string) *Vault {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	clock := func() time.Time { return time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC) }
	v0, _, err := repo.Init(ctx, dir, repo.InitOptions{Options: repo.Options{Owner: testOwner, Now: clock},
		Seed: map[string][]byte{string(ConfigPath): []byte("gates:\n  profile: default\n")}})
	if err != nil {
		t.Fatal(err)
	}
	v0.Close()
	v, err := Open(ctx, dir, Options{Repo: repo.Options{Owner: testOwner, Now: clock}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// assertClean checks the git CLI's view: nothing uncommitted, objects sound.
func assertClean(t *testing.T, v *Vault) {
	t.Helper()
	if st := gitOut(t, v.Dir(), "status", "--porcelain"); st != "" {
		t.Fatalf("git status not clean:\n%s", st)
	}
	gitOut(t, v.Dir(), "fsck", "--strict")
}

func headAndDisk(t *testing.T, v *Vault, p string) string {
	t.Helper()
	b, err := v.Read(context.Background(), note.Path(p), "")
	if err != nil {
		t.Fatal(err)
	}
	disk, err := os.ReadFile(filepath.Join(v.Dir(), filepath.FromSlash(p)))
	if err != nil || string(disk) != string(b.Content) {
		t.Fatalf("%s: working tree differs from HEAD (%v)", p, err)
	}
	return string(b.Content)
}

func presentAt(v *Vault, p string) bool {
	_, err := os.Stat(filepath.Join(v.Dir(), filepath.FromSlash(p)))
	return err == nil && v.Revision(note.Path(p)) != ""
}

// moveFixture links a/Old.md in every way the codec knows.
var moveFixture = map[string]string{
	"a/Old.md": "---\ntitle: Old note\nedges:\n  - to: \"[[x]]\"\n    type: supports\n    why: The second note gives the evidence for this one.\n---\n" +
		"# Old note\n## Part\nSelf [[#Part]] and [[Old#Part]]; sibling [[sib]]; up [x](../b/x.md), [missing](../todo/plan.md) and [self](Old.md).\n",
	"a/sib.md": "# Sib\n",
	"c/sib.md": "# Other sib\n",
	"b/x.md": "---\nedges:\n  - to: \"[[Old]]\"\n    type: refines\n    why: It narrows the claim the old note makes about sketches.\n---\n# X\n" +
		"See [[Old]], [[Old|the old one]], [[Old#Part]], ![[Old]], [[a/Old]] and [[Old note]].\n" +
		"| cell | [[Old\\|shown]] |\n|---|---|\n" +
		"[md](../a/Old.md#part \"t\") and `[[Old]]` in code and [[Other]].\n",
	"c/y.md":   "# Y\n[spaced](<../a/Old.md>) [[a/Old.md]] [[Other]]\n",
	"Other.md": "# Other\nNo link to it here.\n",
}

func TestVault_MoveNote(t *testing.T) {
	ctx := context.Background()
	v := servedVault(t, moveFixture)
	before := v.Head()
	req := MoveRequest{From: "a/Old.md", To: "d/e/New.md", Author: repo.Author{Name: "agent"}, Roles: []string{"agent"}}

	dry := req
	dry.DryRun = true
	res, err := v.MoveNote(ctx, dry)
	if err != nil {
		t.Fatal(err)
	}
	wantRewritten := []note.Path{"b/x.md", "c/y.md", "d/e/New.md"}
	if !res.DryRun || !reflect.DeepEqual(res.Rewritten, wantRewritten) || len(res.Changes) != 3 {
		t.Fatalf("dry run: %+v %v", res.Result, res.Rewritten)
	}
	if v.Head() != before || !presentAt(v, "a/Old.md") || presentAt(v, "d/e/New.md") {
		t.Fatal("the dry run wrote something")
	}

	res, err = v.MoveNote(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Rewritten, wantRewritten) || res.Commit == "" || res.Parent != before {
		t.Fatalf("move: %+v %v", res.Result, res.Rewritten)
	}
	wantX := "---\nedges:\n  - to: \"[[New]]\"\n    type: refines\n    why: It narrows the claim the old note makes about sketches.\n---\n# X\n" +
		"See [[New]], [[New|the old one]], [[New#Part]], ![[New]], [[d/e/New]] and [[Old note]].\n" +
		"| cell | [[New\\|shown]] |\n|---|---|\n" +
		"[md](../d/e/New.md#part \"t\") and `[[Old]]` in code and [[Other]].\n"
	if got := headAndDisk(t, v, "b/x.md"); got != wantX {
		t.Fatalf("b/x.md:\n%s\nwant:\n%s", got, wantX)
	}
	if got, want := headAndDisk(t, v, "c/y.md"), "# Y\n[spaced](<../d/e/New.md>) [[d/e/New.md]] [[Other]]\n"; got != want {
		t.Fatalf("c/y.md: %q, want %q", got, want)
	}
	wantNew := "---\ntitle: Old note\nedges:\n  - to: \"[[x]]\"\n    type: supports\n    why: The second note gives the evidence for this one.\n---\n" +
		"# Old note\n## Part\nSelf [[#Part]] and [[New#Part]]; sibling [[a/sib]]; up [x](../../b/x.md), [missing](../../todo/plan.md) and [self](New.md).\n"
	if got := headAndDisk(t, v, "d/e/New.md"); got != wantNew {
		t.Fatalf("d/e/New.md:\n%s\nwant:\n%s", got, wantNew)
	}
	if presentAt(v, "a/Old.md") {
		t.Fatal("a/Old.md still there")
	}
	// One commit holding exactly the move and the rewritten notes.
	names := strings.Fields(gitOut(t, v.Dir(), "show", "--name-status", "--no-renames", "--format=", "HEAD"))
	if want := []string{"D", "a/Old.md", "M", "b/x.md", "M", "c/y.md", "A", "d/e/New.md"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("git show: %v, want %v", names, want)
	}
	msg := gitOut(t, v.Dir(), "log", "-1", "--format=%B")
	if !strings.Contains(msg, "Norn-Op: move") || !strings.Contains(msg, "Norn-Txn: ") || gitOut(t, v.Dir(), "rev-parse", "HEAD~1") != string(before)+"\n" {
		t.Fatalf("commit message %q", msg)
	}
	assertClean(t, v)
	// Every link resolves as before, the old note's at its new path.
	vn, err := loadNotes(ctx, v.repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range vn.notes {
		for _, l := range sitesOf(n) {
			res := vn.resolver.Resolve(n.Path, l)
			broken := res.Status != graph.LinkResolved
			if broken != (l.Target == "../../todo/plan.md") {
				t.Errorf("%s:%d %q: %+v", n.Path, l.Line, l.Target, res)
			}
		}
	}
	// The index followed the commit.
	sr, err := v.Index.Search(ctx, SearchRequest{Query: "old note"})
	if err != nil || sr.Total == 0 || sr.Hits[0].Path != "d/e/New.md" || sr.IndexStale {
		t.Fatalf("search after move: %+v %v", sr, err)
	}
}

// TestVault_MoveNote_NameTaken: when the new file name is taken elsewhere, name
// links become the shortest path that resolves; a note in the same folder as the
// new one still gets the bare name.
func TestVault_MoveNote_NameTaken(t *testing.T) {
	v := servedVault(t, map[string]string{
		"a/Old.md":    "# Old\n",
		"y/dup.md":    "# Dup elsewhere\n",
		"q/src.md":    "# Src\n[[Old|alias]] ![[Old#Old]] [[Old.md]]\n",
		"p/x/near.md": "# Near\n[[Old]]\n",
	})
	res, err := v.MoveNote(context.Background(), MoveRequest{From: "a/Old.md", To: "p/x/dup.md", Author: testOwner, Roles: []string{"owner"}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Rewritten, []note.Path{"p/x/near.md", "q/src.md"}) {
		t.Fatalf("rewritten %v", res.Rewritten)
	}
	if got, want := headAndDisk(t, v, "q/src.md"), "# Src\n[[x/dup|alias]] ![[x/dup#Old]] [[x/dup.md]]\n"; got != want {
		t.Fatalf("q/src.md: %q, want %q", got, want)
	}
	if got, want := headAndDisk(t, v, "p/x/near.md"), "# Near\n[[dup]]\n"; got != want {
		t.Fatalf("p/x/near.md: %q, want %q", got, want)
	}
	assertClean(t, v)
}

func TestVault_MoveNote_ConcurrentEditConflicts(t *testing.T) {
	ctx := context.Background()
	v := servedVault(t, moveFixture)
	req := MoveRequest{From: "a/Old.md", To: "d/New.md", Author: repo.Author{Name: "agent"}, Roles: []string{"agent"}}
	plan, err := v.planMove(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	// Someone edits a note the move rewrites, after the move read HEAD.
	edited := strings.Replace(moveFixture["b/x.md"], "# X\n", "# X\nA new line.\n", 1)
	if _, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "person"}, Op: repo.OpEdit,
		Changes: []repo.Change{{Kind: repo.Put, Path: "b/x.md", Content: []byte(edited), ExpectedRevision: v.Revision("b/x.md")}}}); err != nil {
		t.Fatal(err)
	}
	head := v.Head()
	_, err = v.applyMove(ctx, req, plan)
	var stale *repo.StaleBaseError
	if !errors.As(err, &stale) || !errors.Is(err, repo.ErrConflict) {
		t.Fatalf("got %v, want a conflict: the vault moved since the plan", err)
	}
	if v.Head() != head || !presentAt(v, "a/Old.md") || presentAt(v, "d/New.md") || headAndDisk(t, v, "b/x.md") != edited {
		t.Fatal("a conflicting move changed something")
	}
	assertClean(t, v)
	// Planned again, the move goes through and keeps the edit.
	if _, err := v.MoveNote(ctx, req); err != nil {
		t.Fatal(err)
	}
	if got := headAndDisk(t, v, "b/x.md"); !strings.Contains(got, "A new line.") || !strings.Contains(got, "See [[New]]") {
		t.Fatalf("b/x.md after the retry: %q", got)
	}

	// A person's uncommitted edit of a note to rewrite is a conflict too.
	w := servedVault(t, moveFixture)
	if err := os.WriteFile(filepath.Join(w.Dir(), "c", "y.md"), []byte("# Y\nmine, not committed [[a/Old.md]]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	head = w.Head()
	if _, err := w.MoveNote(ctx, req); !errors.Is(err, repo.ErrConflict) {
		t.Fatalf("working-tree edit: %v", err)
	}
	if w.Head() != head || !presentAt(w, "a/Old.md") {
		t.Fatal("the move wrote despite the conflict")
	}
	if b, _ := os.ReadFile(filepath.Join(w.Dir(), "c", "y.md")); !strings.Contains(string(b), "mine, not committed") {
		t.Fatal("the person's edit was overwritten")
	}
}

func TestVault_MoveNote_Refuses(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{
		"a/Old.md":    "# Old\n",
		"p/Target.md": "---\ntitle: Fresh\n---\n# Target\n",
		"q/src.md":    "# Src\n[[Fresh]] [[Old]]\n",
		"z/taken.md":  "# Taken\n",
		"pic.png":     "not really a png\n",
	}
	v := servedVault(t, files)
	head := v.Head()
	rev := v.Revision("a/Old.md")
	tests := []struct {
		name     string
		req      MoveRequest
		sentinel error
		says     string
	}{
		{"captures a link resolved by title", MoveRequest{From: "a/Old.md", To: "a/Fresh.md"}, repo.ErrInvalid, "q/src.md:2 [[Fresh]] resolved to p/Target.md, would resolve to a/Fresh.md"},
		{"destination exists", MoveRequest{From: "a/Old.md", To: "z/taken.md"}, repo.ErrInvalid, "never overwrites"},
		{"missing note", MoveRequest{From: "a/Nope.md", To: "a/New.md"}, repo.ErrNotFound, "does not exist"},
		{"not a note", MoveRequest{From: "pic.png", To: "img/pic.png"}, repo.ErrInvalid, "not a note"},
		{"onto itself", MoveRequest{From: "a/Old.md", To: "a/Old.md"}, repo.ErrInvalid, "onto itself"},
		{"path escapes", MoveRequest{From: "a/Old.md", To: "../Old.md"}, hooks.ErrRejected, "path-dotdot"}, // the new path is written: a gate rule names the refusal
		{"stale revision", MoveRequest{From: "a/Old.md", To: "a/New.md", ExpectedRevision: repo.Revision(strings.Repeat("0", 40))}, repo.ErrConflict, "changed since you read it"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.req
			r.Author, r.Roles = repo.Author{Name: "agent"}, []string{"agent"}
			_, err := v.MoveNote(ctx, r)
			if !errors.Is(err, tc.sentinel) || !strings.Contains(errText(err), tc.says) {
				t.Fatalf("got %v, want %v saying %q", err, tc.sentinel, tc.says)
			}
			if v.Head() != head || v.Revision("a/Old.md") != rev {
				t.Fatal("a refused move changed the vault")
			}
		})
	}
	assertClean(t, v)
	// The gates see every note of the move: an agent may not rewrite a private
	// note's links.
	w := servedVault(t, map[string]string{"a/Old.md": "# Old\n", "personal-notes/diary.md": "# Diary\n[[Old]]\n"})
	_, err := w.MoveNote(ctx, MoveRequest{From: "a/Old.md", To: "a/New.md", Author: repo.Author{Name: "agent"}, Roles: []string{"agent"}})
	var rej *hooks.Rejection
	if !errors.Is(err, repo.ErrRejected) || !errors.As(err, &rej) || rej.Violations[0].Rule != "private-note" {
		t.Fatalf("private note: %v", err)
	}
	if _, err := w.MoveNote(ctx, MoveRequest{From: "a/Old.md", To: "a/New.md", Author: testOwner, Roles: []string{"owner"}}); err != nil {
		t.Fatalf("the owner may: %v", err)
	}
	if got := headAndDisk(t, w, "personal-notes/diary.md"); got != "# Diary\n[[New]]\n" {
		t.Fatalf("diary: %q", got)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestVault_ArchiveNote(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{
		"a/Gone.md":  "# Gone\nSelf [[#Gone]] and [[Gone]].\n",
		"b/one.md":   "---\nedges:\n  - to: \"[[Gone]]\"\n    type: refines\n    why: It narrows what the gone note claims.\n---\n# One\nSee [[Gone]] and [[a/Gone#Gone|there]].\n",
		"c/two.md":   "# Two\n[md](../a/Gone.md)\n",
		"d/other.md": "# Gone\n", // titled Gone: name links fall back to it
	}
	v := servedVault(t, files)
	head := v.Head()
	req := ArchiveRequest{Path: "a/Gone.md", Reason: repo.ReasonSuperseded, Author: repo.Author{Name: "agent"}, Roles: []string{"agent"}, DryRun: true}
	res, err := v.ArchiveNote(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	type ref struct {
		from   note.Path
		line   int
		kind   string
		status string
		to     note.Path
		ctx    string
	}
	var got []ref
	for _, d := range res.Dangling {
		got = append(got, ref{d.From, d.Line, d.Kind, string(d.Status), d.To, d.Context})
	}
	// Name links resolve by title to d/other.md once a/Gone.md is gone; the path
	// link and the Markdown link break. The note's links to itself are not listed.
	want := []ref{
		{"b/one.md", 3, "edge", "resolved", "d/other.md", `- to: "[[Gone]]"`},
		{"b/one.md", 8, "wikilink", "resolved", "d/other.md", "See [[Gone]] and [[a/Gone#Gone|there]]."},
		{"b/one.md", 8, "wikilink", "broken", "", "See [[Gone]] and [[a/Gone#Gone|there]]."},
		{"c/two.md", 2, "markdown", "broken", "", "[md](../a/Gone.md)"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("dangling:\n%v\nwant\n%v", got, want)
	}
	if !res.DryRun || v.Head() != head || !presentAt(v, "a/Gone.md") {
		t.Fatal("the dry run wrote something")
	}
	req.DryRun = false
	res2, err := v.ArchiveNote(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res2.Dangling, res.Dangling) || res2.Commit == "" || presentAt(v, "a/Gone.md") {
		t.Fatalf("archive: %+v", res2.Result)
	}
	if msg := gitOut(t, v.Dir(), "log", "-1", "--format=%B"); !strings.Contains(msg, "Norn-Op: archive") || !strings.Contains(msg, "Norn-Reason: superseded") {
		t.Fatalf("message %q", msg)
	}
	if names := gitOut(t, v.Dir(), "show", "--name-status", "--format=", "HEAD"); names != "D\ta/Gone.md\n" {
		t.Fatalf("git show: %q", names)
	}
	assertClean(t, v)

	head = v.Head()
	for _, bad := range []ArchiveRequest{
		{Path: "a/Gone.md", Reason: repo.ReasonArchived},
		{Path: "c/two.md", Reason: "deleted"},
		{Path: "c/two.md", Reason: repo.ReasonArchived, ExpectedRevision: repo.Revision(strings.Repeat("1", 40))},
	} {
		bad.Author = repo.Author{Name: "agent"}
		if _, err := v.ArchiveNote(ctx, bad); err == nil || !(errors.Is(err, repo.ErrNotFound) || errors.Is(err, repo.ErrInvalid) || errors.Is(err, repo.ErrConflict)) {
			t.Fatalf("%+v: %v", bad, err)
		}
	}
	if v.Head() != head {
		t.Fatal("a refused archive changed the vault")
	}
}

// TestVault_MoveNote_Corpus moves a well-linked note of the Obsidian Hub vault to
// another folder under a new name and checks every link of the vault still
// resolves where it did.
func TestVault_MoveNote_Corpus(t *testing.T) {
	root := filepath.Join("..", "..", "shared", "corpora", "vault-obsidian-hub", "notes")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("corpus not found at %s (see ../shared/corpora/README.md, relative to the repository)", root)
	}
	ctx := context.Background()
	dir := t.TempDir()
	if out, err := exec.Command("cp", "-R", root+string(filepath.Separator)+".", dir).CombinedOutput(); err != nil {
		t.Fatalf("copy the corpus: %v\n%s", err, out)
	}
	// No search index: this test is about links, and a CLI process writes so too.
	// The corpus breaks the default profile's content rules (tags such as `MOC`),
	// and a rewritten note is judged whole: run the profile that judges no format.
	if err := os.MkdirAll(filepath.Join(dir, ".norn"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".norn", "config.yaml"), []byte("gates:\n  profile: \"off\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Import with the git CLI (quicker than repo.Init under the race detector);
	// Norn adopts the repository as it is.
	gitOut(t, dir, "init", "-q", "-b", "main")
	gitOut(t, dir, "add", "-A")
	gitOut(t, dir, "-c", "user.name=o", "-c", "user.email=o@x", "commit", "-q", "-m", "import")
	v, err := Open(ctx, dir, Options{Repo: repo.Options{Owner: testOwner}, LazyIndex: true})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	rv := v.repo

	from := note.Path("02 - Community Expansions/02.05 All Community Expansions/Plugins/dataview.md")
	to := note.Path("05 - Concepts/Dataview plugin.md")
	snapshot := func() (*vaultNotes, map[note.Path][]graph.Resolution) {
		vn, err := loadNotes(ctx, rv)
		if err != nil {
			t.Fatal(err)
		}
		out := map[note.Path][]graph.Resolution{}
		for _, n := range vn.notes {
			for _, l := range sitesOf(n) {
				out[n.Path] = append(out[n.Path], vn.resolver.Resolve(n.Path, l))
			}
		}
		return vn, out
	}
	vn0, before := snapshot()
	inbound := 0
	for _, rs := range before {
		for _, r := range rs {
			if r.Target == from {
				inbound++
			}
		}
	}
	if inbound < 40 {
		t.Fatalf("the corpus changed: only %d links to %s", inbound, from)
	}
	res, err := v.MoveNote(ctx, MoveRequest{From: from, To: to, Author: repo.Author{Name: "agent"}, Roles: []string{"agent"}})
	if err != nil {
		t.Fatal(err)
	}
	vn1, after := snapshot()
	if len(vn1.notes) != len(vn0.notes) {
		t.Fatalf("notes %d → %d", len(vn0.notes), len(vn1.notes))
	}
	moved := map[note.Path]note.Path{from: to}
	for p, rs := range before {
		q := p
		if m, ok := moved[p]; ok {
			q = m
		}
		rs1 := after[q]
		if len(rs1) != len(rs) {
			t.Fatalf("%s: %d links → %d", p, len(rs), len(rs1))
		}
		for i, r := range rs {
			if r.Status != graph.LinkResolved {
				continue
			}
			want := r.Target
			if m, ok := moved[want]; ok {
				want = m
			}
			if rs1[i].Status != graph.LinkResolved || rs1[i].Target != want {
				t.Errorf("%s link %d: resolved to %s, now %+v", p, i, r.Target, rs1[i])
			}
		}
	}
	// The commit holds the move and exactly the rewritten notes.
	var want []string
	for _, p := range res.Rewritten {
		if p != to {
			want = append(want, string(p))
		}
	}
	want = append(want, string(from), string(to))
	sort.Strings(want)
	got := strings.Split(strings.TrimSpace(gitOut(t, dir, "-c", "core.quotepath=off", "show", "--name-only", "--no-renames", "--format=", "HEAD")), "\n")
	sort.Strings(got)
	if !reflect.DeepEqual(got, want) || len(res.Rewritten) < 10 {
		t.Fatalf("git show lists %d paths:\n%v\nwant %d:\n%v", len(got), got, len(want), want)
	}
	if st := gitOut(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("git status: %s", st)
	}
}

// TestVault_MoveNote_NewReferrerMeanwhile: a note that links to the moved note,
// written after the move was planned and before it commits, kept a link the move
// broke (and a private one was broken by a caller who may not rewrite it). The
// plan commits only on the commit it was worked out at; MoveNote plans again.
func TestVault_MoveNote_NewReferrerMeanwhile(t *testing.T) {
	ctx := context.Background()
	v := servedVault(t, moveFixture)
	req := MoveRequest{From: "a/Old.md", To: "d/New.md", Author: repo.Author{Name: "agent"}, Roles: []string{"agent"}}
	plan, err := v.planMove(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "other"}, Op: repo.OpWrite,
		Changes: []repo.Change{{Kind: repo.Put, Path: "c/late.md", Content: []byte("# Late\nSee [[a/Old]].\n")}}}); err != nil {
		t.Fatal(err)
	}
	head := v.Head()
	if plan.stillHolds(ctx, v, head) {
		t.Fatal("the plan holds past a new note linking to the moved one")
	}
	if _, err := v.applyMove(ctx, req, plan); !errors.Is(err, repo.ErrConflict) {
		t.Fatalf("the stale plan: %v", err)
	}
	if v.Head() != head || !presentAt(v, "a/Old.md") {
		t.Fatal("a stale plan changed something")
	}
	res, err := v.MoveNote(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.Rewritten, "c/late.md") || !strings.Contains(headAndDisk(t, v, "c/late.md"), "[[d/New]]") {
		t.Fatalf("the late referrer was not rewritten: %v %q", res.Rewritten, headAndDisk(t, v, "c/late.md"))
	}
	for _, p := range []string{"c/late.md", "c/y.md"} {
		if got := headAndDisk(t, v, p); strings.Contains(got, "a/Old") {
			t.Fatalf("a link to the old path left in %s: %q", p, got)
		}
	}

	// A private note written meanwhile: the caller who may not see it is refused
	// once the move is planned again, and nothing is written.
	priv := MoveRequest{From: "d/New.md", To: "d/Newer.md", Author: repo.Author{Name: "agent"}, Roles: []string{"agent"},
		Hidden: func(p note.Path) bool { return strings.HasPrefix(string(p), "personal-notes/") }}
	plan, err = v.planMove(ctx, priv)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Apply(ctx, repo.Tx{Author: testOwner, Roles: []string{"owner"}, Op: repo.OpWrite,
		Changes: []repo.Change{{Kind: repo.Put, Path: "personal-notes/p.md", Content: []byte("# P\nAbout [[d/New]].\n")}}}); err != nil {
		t.Fatal(err)
	}
	head = v.Head()
	if _, err := v.applyMove(ctx, priv, plan); !errors.Is(err, repo.ErrConflict) {
		t.Fatalf("the stale plan past a private referrer: %v", err)
	}
	if _, err := v.MoveNote(ctx, priv); !errors.Is(err, ErrForbidden) {
		t.Fatalf("planned again past a private referrer: %v", err)
	}
	if v.Head() != head {
		t.Fatal("a refused move changed something")
	}
	assertClean(t, v)
}

// TestVault_MoveNote_UnrelatedWritesMeanwhile: commits that cannot touch a move's
// plan (other notes, no mention of the moved note's names) leave it standing, so
// moves are not starved on a busy vault; the move commits on top of them.
func TestVault_MoveNote_UnrelatedWritesMeanwhile(t *testing.T) {
	ctx := context.Background()
	v := servedVault(t, moveFixture)
	req := MoveRequest{From: "a/Old.md", To: "d/New.md", Author: repo.Author{Name: "agent"}, Roles: []string{"agent"}}
	plan, err := v.planMove(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "other"}, Op: repo.OpWrite,
			Changes: []repo.Change{{Kind: repo.Put, Path: note.Path(fmt.Sprintf("z/n%d.md", i)), Content: []byte("# Z\nnothing to see\n")}}}); err != nil {
			t.Fatal(err)
		}
	}
	if !plan.stillHolds(ctx, v, v.Head()) {
		t.Fatal("unrelated notes made the plan stale")
	}
	// A note that names the moved note by its title does not (it may link to it).
	if _, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "other"}, Op: repo.OpWrite,
		Changes: []repo.Change{{Kind: repo.Put, Path: "z/mention.md", Content: []byte("# M\nAbout the old note.\n")}}}); err != nil {
		t.Fatal(err)
	}
	if plan.stillHolds(ctx, v, v.Head()) {
		t.Fatal("a note naming the moved note's title left the plan standing")
	}
	// An edit of a note the move rewrites does not either.
	edited := strings.Replace(moveFixture["c/y.md"], "# Y\n", "# Y\nMore.\n", 1)
	if _, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "other"}, Op: repo.OpEdit,
		Changes: []repo.Change{{Kind: repo.Put, Path: "c/y.md", Content: []byte(edited), ExpectedRevision: v.Revision("c/y.md")}}}); err != nil {
		t.Fatal(err)
	}
	if plan.stillHolds(ctx, v, v.Head()) {
		t.Fatal("an edit of a rewritten note left the plan standing")
	}
	res, err := v.MoveNote(ctx, req)
	if err != nil || res.Commit == "" {
		t.Fatalf("the move: %+v %v", res, err)
	}
	assertClean(t, v)
}
