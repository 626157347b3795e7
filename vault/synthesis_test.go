package vault_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/ledger"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

var synthAgent = repo.Author{Name: "agent-a", Email: "a@agents"}

// synthViewer is what an agent with (private) or without the private scope sees.
func synthViewer(t *testing.T, v *vault.Vault, private bool) *vault.Viewer {
	t.Helper()
	c, err := v.Viewer(context.Background(), vault.Actor{Author: synthAgent, Roles: []string{"agent"}, Private: private})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func register(t *testing.T, v *vault.Vault, summary string, sources ...string) *vault.SynthesisRegistered {
	t.Helper()
	var ps []note.Path
	for _, s := range sources {
		ps = append(ps, note.Path(s))
	}
	r, err := synthViewer(t, v, true).RegisterSynthesis(context.Background(),
		vault.SynthesisRequest{Summary: note.Path(summary), Sources: ps, Author: synthAgent, Roles: []string{"agent", "private"}})
	if err != nil {
		t.Fatalf("register %s: %v", summary, err)
	}
	return r
}

func synthStatus(t *testing.T, v *vault.Vault, summary string, private bool) *vault.SynthesisStatus {
	t.Helper()
	st, err := synthViewer(t, v, private).SynthesisStatus(context.Background(), note.Path(summary), nil)
	if err != nil {
		t.Fatalf("status %s: %v", summary, err)
	}
	return st
}

func rewrite(t *testing.T, v *vault.Vault, p, content string) repo.Revision {
	t.Helper()
	w, err := v.WriteNote(context.Background(), vault.WriteRequest{Path: note.Path(p), Content: []byte(content),
		ExpectedRevision: v.Revision(note.Path(p)), Author: synthAgent, Roles: []string{"agent", "private"}})
	if err != nil {
		t.Fatalf("write %s: %v", p, err)
	}
	return w.Revision
}

func body(s string) string { return "# " + s + "\nText of " + s + ".\n" }

// chainVault: top summarises mid and side; mid summarises leaf and other.
func chainVault(t *testing.T) *vault.Vault {
	t.Helper()
	v := openServed(t, map[string]string{"top.md": body("top"), "mid.md": body("mid"), "side.md": body("side"),
		"leaf.md": body("leaf"), "other.md": body("other")})
	register(t, v, "mid.md", "leaf.md", "other.md")
	register(t, v, "top.md", "mid.md", "side.md")
	return v
}

// TestSynthesis_ChainStale: a leaf edit two levels down makes the top stale,
// naming the leaf, its old and new revisions, and the summaries it is reached
// through; the index and a scan of HEAD answer alike.
func TestSynthesis_ChainStale(t *testing.T) {
	v := chainVault(t)
	st := synthStatus(t, v, "top.md", true)
	if st.Status != vault.SynthesisCurrent || !st.Complete || st.Checked != 4 || st.Depth != 2 || st.Scope != vault.ScopeAll {
		t.Fatalf("before the edit: %+v", st)
	}
	old := v.Revision("leaf.md")
	now := rewrite(t, v, "leaf.md", body("leaf, edited"))
	st = synthStatus(t, v, "top.md", true)
	want := []vault.SynthesisDrift{{Path: "leaf.md", Via: []note.Path{"top.md", "mid.md"}, OldRevision: old, NewRevision: now}}
	if st.Status != vault.SynthesisStale || !reflect.DeepEqual(st.Drifted, want) || !st.Complete {
		t.Fatalf("after the edit: %+v, want drifted %+v", st, want)
	}
	scanned, err := synthViewer(t, withoutIndex(t, v), true).SynthesisStatus(context.Background(), "top.md", nil)
	if err != nil || !reflect.DeepEqual(scanned, st) {
		t.Fatalf("scan answers %+v (%v), index %+v", scanned, err, st)
	}
	if mid := synthStatus(t, v, "mid.md", true); mid.Status != vault.SynthesisStale || !reflect.DeepEqual(mid.Drifted[0].Via, []note.Path{"mid.md"}) {
		t.Fatalf("mid: %+v", mid)
	}
	// Registering mid again brings the top back to current: mid's own bytes did
	// not change, only what it is bound to.
	register(t, v, "mid.md", "leaf.md", "other.md")
	if st := synthStatus(t, v, "top.md", true); st.Status != vault.SynthesisCurrent {
		t.Fatalf("after re-registering mid: %+v", st)
	}
	if st := synthStatus(t, v, "side.md", true); st.Status != vault.SynthesisUnregistered {
		t.Fatalf("side: %+v", st)
	}
	for _, p := range []note.Path{vault.ConfigPath, ".norn/synthesis/mid.md.yaml", "../top.md"} {
		if _, err := synthViewer(t, v, true).SynthesisStatus(context.Background(), p, nil); !errors.Is(err, repo.ErrInvalid) {
			t.Fatalf("status of %s: %v", p, err)
		}
	}
	// History keeps both registrations of mid, each by the agent, as claims.
	log := gitIn(t, v.Dir(), "log", "--format=%an %(trailers:key=Norn-Op,valueonly)", "--", ".norn/synthesis/mid.md.yaml")
	if strings.Count(log, "agent-a claim") != 2 {
		t.Fatalf("git log of mid's registration:\n%s", log)
	}
}

// TestSynthesis_Cycle: summaries that name each other end their walk.
func TestSynthesis_Cycle(t *testing.T) {
	v := openServed(t, map[string]string{"a.md": body("a"), "b.md": body("b"), "c.md": body("c")})
	register(t, v, "a.md", "b.md")
	register(t, v, "b.md", "a.md", "c.md")
	st := synthStatus(t, v, "a.md", true)
	if st.Status != vault.SynthesisCurrent || st.Checked != 3 {
		t.Fatalf("cycle: %+v", st)
	}
	rewrite(t, v, "c.md", body("c2"))
	if st := synthStatus(t, v, "a.md", true); st.Status != vault.SynthesisStale || len(st.Drifted) != 1 || st.Drifted[0].Path != "c.md" {
		t.Fatalf("cycle after edit: %+v", st)
	}
}

// TestSynthesis_BudgetIncomplete: a graph wider than the budget answers
// incomplete (never current), and states what it spent; one budget is shared by
// every summary a response evaluates.
func TestSynthesis_BudgetIncomplete(t *testing.T) {
	files := map[string]string{"top.md": body("top")}
	var mids, leaves []string
	for i := range ledger.MaxSources {
		mids = append(mids, fmt.Sprintf("mid/%02d.md", i))
		leaves = append(leaves, fmt.Sprintf("leaf/%02d.md", i))
		files[mids[i]], files[leaves[i]] = body(mids[i]), body(leaves[i])
	}
	v := openServed(t, files)
	for _, m := range mids {
		register(t, v, m, leaves...)
	}
	register(t, v, "top.md", mids...)
	c := synthViewer(t, v, true)
	b := c.SynthesisBudget()
	st, err := c.SynthesisStatus(context.Background(), "top.md", b)
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != vault.SynthesisIncomplete || st.Complete || st.Checked != 128 {
		t.Fatalf("wide graph: %+v", st)
	}
	if b.Checks != 128 || b.UsedChecks != 128 || b.Exhausted != "checks" || b.Bytes != 16<<20 || b.DeadlineMS != 250 || b.UsedBytes == 0 {
		t.Fatalf("budget: %+v", b)
	}
	// The same budget, spent, leaves a second summary incomplete at once.
	st, err = c.SynthesisStatus(context.Background(), "mid/00.md", b)
	if err != nil || st.Status != vault.SynthesisIncomplete || st.Checked != 0 {
		t.Fatalf("second summary on a spent budget: %+v, %v", st, err)
	}
	// A drift found before the budget runs out is reported: stale, incomplete.
	rewrite(t, v, "mid/00.md", body("mid 0 edited"))
	st = synthStatus(t, v, "top.md", true)
	if st.Status != vault.SynthesisStale || st.Complete || st.Drifted[0].Path != "mid/00.md" {
		t.Fatalf("stale and incomplete: %+v", st)
	}
}

// TestSynthesis_MoveArchiveSource: a source moved away (bytes unchanged) is
// drifted with where it went; an archived one is drifted with no new revision.
func TestSynthesis_MoveArchiveSource(t *testing.T) {
	ctx := context.Background()
	v := chainVault(t)
	old := v.Revision("side.md")
	if _, err := v.MoveNote(ctx, vault.MoveRequest{From: "side.md", To: "moved/side.md", Author: synthAgent, Roles: []string{"agent"}}); err != nil {
		t.Fatal(err)
	}
	st := synthStatus(t, v, "top.md", true)
	want := []vault.SynthesisDrift{{Path: "side.md", Via: []note.Path{"top.md"}, OldRevision: old, MovedTo: "moved/side.md"}}
	if st.Status != vault.SynthesisStale || !reflect.DeepEqual(st.Drifted, want) {
		t.Fatalf("moved: %+v", st)
	}
	oldLeaf := v.Revision("leaf.md")
	if _, err := v.ArchiveNote(ctx, vault.ArchiveRequest{Path: "leaf.md", Reason: repo.ReasonArchived, Author: synthAgent, Roles: []string{"agent"}}); err != nil {
		t.Fatal(err)
	}
	st = synthStatus(t, v, "top.md", true)
	if st.Status != vault.SynthesisStale || len(st.Drifted) != 2 ||
		!reflect.DeepEqual(st.Drifted[1], vault.SynthesisDrift{Path: "leaf.md", Via: []note.Path{"top.md", "mid.md"}, OldRevision: oldLeaf}) {
		t.Fatalf("archived: %+v", st)
	}
}

// TestSynthesis_RebuildEqualsIncremental: the synthesis table kept by catch-ups
// over registrations, re-registrations, a moved summary and edits equals a
// rebuild from HEAD.
func TestSynthesis_RebuildEqualsIncremental(t *testing.T) {
	ctx := context.Background()
	v := chainVault(t)
	register(t, v, "side.md", "leaf.md")
	register(t, v, "mid.md", "leaf.md")
	rewrite(t, v, "leaf.md", body("leaf 2"))
	commitFiles(t, v, map[string]string{".norn/synthesis/other.md.yaml": "summary: other.md\nsources: []\n"}) // a hand edit that does not decode
	rows := func() []string {
		ix, err := v.Index.Graph(ctx)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := ix.Rows(ctx, "synthesis", nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rs {
			out = append(out, string(r.Key)+"="+string(r.Value))
		}
		return out
	}
	inc := rows()
	if len(inc) != 4 {
		t.Fatalf("incremental rows: %q", inc)
	}
	if err := v.Index.Rebuild(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if reb := rows(); !reflect.DeepEqual(inc, reb) {
		t.Fatalf("incremental %q\nrebuilt %q", inc, reb)
	}
	_, err := synthViewer(t, v, true).SynthesisStatus(ctx, "other.md", nil)
	if !errors.Is(err, repo.ErrInvalid) || !strings.Contains(err.Error(), "register its sources again") {
		t.Fatalf("a registration that does not decode: %v", err)
	}
}

// TestSynthesis_RegisterRefusals: bad arguments are classified errors and write
// nothing.
func TestSynthesis_RegisterRefusals(t *testing.T) {
	files := map[string]string{"top.md": body("top"), "a.md": body("a"), "img.png": "png", "personal-notes/p.md": body("p")}
	var many []note.Path
	for i := range ledger.MaxSources + 1 {
		p := fmt.Sprintf("s/%02d.md", i)
		files[p] = body(p)
		many = append(many, note.Path(p))
	}
	v := openServed(t, files)
	head := v.Head()
	for _, tc := range []struct {
		name    string
		summary note.Path
		sources []note.Path
		private bool
		kind    error
	}{
		{"33 sources", "top.md", many, true, repo.ErrInvalid},
		{"no sources", "top.md", nil, true, repo.ErrInvalid},
		{"unknown note", "top.md", []note.Path{"a.md", "nope.md"}, true, repo.ErrNotFound},
		{"unknown summary", "nope.md", []note.Path{"a.md"}, true, repo.ErrNotFound},
		{"summary is a source", "top.md", []note.Path{"a.md", "top.md"}, true, repo.ErrInvalid},
		{"twice", "top.md", []note.Path{"a.md", "a.md"}, true, repo.ErrInvalid},
		{"not a note", "top.md", []note.Path{"img.png"}, true, repo.ErrInvalid},
		{"norn file", "top.md", []note.Path{".norn/config.yaml"}, true, repo.ErrInvalid},
		{"escape", "top.md", []note.Path{"../x.md"}, true, repo.ErrInvalid},
		{"private source unseen", "top.md", []note.Path{"personal-notes/p.md"}, false, repo.ErrNotFound},
		{"private summary unseen", "personal-notes/p.md", []note.Path{"a.md"}, false, repo.ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := synthViewer(t, v, tc.private).RegisterSynthesis(context.Background(),
				vault.SynthesisRequest{Summary: tc.summary, Sources: tc.sources, Author: synthAgent, Roles: []string{"agent"}})
			var ie *vault.InputError
			if !errors.Is(err, tc.kind) || !errors.As(err, &ie) {
				t.Fatalf("got %v, want an *InputError wrapping %v", err, tc.kind)
			}
			if tc.kind == repo.ErrNotFound && err.Error() != vault.MissingAt(ie.Path, "").Error() {
				t.Fatalf("a hidden note answers otherwise than a missing one: %v", err)
			}
			if v.Head() != head || gitIn(t, v.Dir(), "status", "--porcelain") != "" {
				t.Fatalf("a refused registration wrote something")
			}
		})
	}
}

// TestSynthesis_PrivateSource: to a viewer without the private scope a private
// source is never named nor counted and never changes the answer; the answer
// says it is judged on the visible sources, whether or not any is hidden.
func TestSynthesis_PrivateSource(t *testing.T) {
	v := openServed(t, map[string]string{"top.md": body("top"), "a.md": body("a"), "pub.md": body("pub"),
		"personal-notes/p.md": body("p"), "b.md": "---\nprivate: true\n---\n# b\n"})
	register(t, v, "top.md", "a.md", "personal-notes/p.md", "b.md")
	register(t, v, "pub.md", "a.md")
	rewrite(t, v, "personal-notes/p.md", body("p2"))
	rewrite(t, v, "b.md", "---\nprivate: true\n---\n# b2\n")
	pub := synthStatus(t, v, "top.md", false)
	if pub.Status != vault.SynthesisCurrent || pub.Checked != 1 || pub.Scope != vault.ScopeVisible || len(pub.Drifted) != 0 {
		t.Fatalf("public view: %+v", pub)
	}
	if other := synthStatus(t, v, "pub.md", false); other.Scope != pub.Scope || other.Checked != pub.Checked {
		t.Fatalf("a summary with no hidden source answers differently: %+v vs %+v", other, pub)
	}
	all := synthStatus(t, v, "top.md", true)
	if all.Status != vault.SynthesisStale || len(all.Drifted) != 2 || all.Scope != vault.ScopeAll {
		t.Fatalf("private view: %+v", all)
	}
	// The registration files name private notes: to the public view they are as
	// private notes, in every listing, history and read.
	pc := synthViewer(t, v, false)
	for _, f := range []note.Path{".norn/synthesis/top.md.yaml", ".norn/synthesis/pub.md.yaml"} {
		if pc.Visible(context.Background(), f) || pc.VisibleAt(context.Background(), f, v.Revision(f)) || !synthViewer(t, v, true).Visible(context.Background(), f) {
			t.Fatalf("%s: visible to the public view", f)
		}
	}
	// A public note made private by an edit drops out of the public view too.
	rewrite(t, v, "a.md", "---\nprivate: true\n---\n# a\n")
	if pub := synthStatus(t, v, "top.md", false); pub.Status != vault.SynthesisCurrent || pub.Checked != 0 {
		t.Fatalf("public view of a source made private: %+v", pub)
	}
}

// TestSynthesis_FilesAreNotNotes: registrations are never listed, searched or
// indexed as notes or attachments, and the gates refuse one that does not decode.
func TestSynthesis_FilesAreNotNotes(t *testing.T) {
	ctx := context.Background()
	v := chainVault(t)
	c := synthViewer(t, v, true)
	list, err := c.ListNotes(ctx, vault.ListRequest{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range list.Notes {
		if vault.IsNornPath(n.Path) {
			t.Fatalf("listed %s", n.Path)
		}
	}
	ix, err := v.Index.Graph(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st, err := ix.Stats(10, 0)
	if err != nil {
		t.Fatal(err)
	}
	if st.Notes != 5 || st.Files != 5 { // the five notes: no settings, no registrations
		t.Fatalf("the index holds %d notes and %d files", st.Notes, st.Files)
	}
	if scanned, err := vault.VaultStats(ctx, withoutIndex(t, v), 10, 0); err != nil || scanned.Files != st.Files || scanned.Notes != st.Notes {
		t.Fatalf("the scan counts otherwise: %+v, %v", scanned, err)
	}
	res, err := ix.Resolve("top.md", note.Link{Target: ".norn/synthesis/top.md.yaml"})
	if err != nil || res.Status == graph.LinkResolved {
		t.Fatalf("a link resolves to a registration: %+v, %v", res, err)
	}
	r, err := v.Search(ctx, vault.SearchRequest{Query: "revision sources summary", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range r.Hits {
		if vault.IsNornPath(h.Path) {
			t.Fatalf("search found %s", h.Path)
		}
	}
	_, err = v.WriteNote(ctx, vault.WriteRequest{Path: ".norn/synthesis/top.md.yaml", Content: []byte("summary: side.md\nsources: []\n"),
		ExpectedRevision: v.Revision(".norn/synthesis/top.md.yaml"), Author: synthAgent, Roles: []string{"owner"}})
	if err == nil || !strings.Contains(err.Error(), "synthesis-invalid") {
		t.Fatalf("an invalid registration written by the owner: %v", err)
	}
}
