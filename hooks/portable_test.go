package hooks_test

import (
	"context"
	"errors"
	"iter"
	"slices"
	"strings"
	"testing"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/note"
)

// tree is a NamesFunc over a list of file paths, as package repo answers it from
// HEAD's tree.
func tree(paths ...string) hooks.NamesFunc {
	return func(folder string) iter.Seq2[string, bool] {
		return func(yield func(string, bool) bool) {
			seen := map[string]bool{}
			prefix := ""
			if folder != "" {
				prefix = folder + "/"
			}
			for _, p := range paths {
				rest, ok := strings.CutPrefix(p, prefix)
				if !ok {
					continue
				}
				name, _, dir := strings.Cut(rest, "/")
				if seen[name] {
					continue
				}
				seen[name] = true
				if !yield(name, dir) {
					return
				}
			}
		}
	}
}

// unportable are the names of the issue and their kin: each refused for a new path
// by path-portable.
var unportable = []string{
	"CON.md", "nul.md", "aux/x.md", "COM1.md", "lpt9.md", "com¹.md", "LPT³.txt.md", "con.tar.md",
	"conin$.md", "prn/a/b.md", "con/sole.md", "a/Aux.md", "NUL .md",
	"ab:c.md", "x?.md", "x*.md", "a<b>.md", "a|b.md", `a"b.md`,
	" m/space.md", "m /space.md", " lead.md", "dot./x.md", "trail.md ", "trail.md.",
	"a\u202eb.md", "a\u200bb.md", "a\u2028b.md", "a\u2029b.md", "a\u200eb.md", "a\u2066b.md", "\ufeffa.md", "a\u200db.md",
}

// portable are names that look close to those and are fine.
var portable = []string{
	"console.md", "cons/ole.md", "aux-notes.md", "com10.md", "com0.md", "lpt.md", "nully.md", "x.con.md",
	"a b.md", "a.b.c.md", ".hidden.md", "notes/ünïcödé/日本語.md", "emoji 😀.md", "a-b_c (d) [e].md",
}

func TestGates_PathPortable(t *testing.T) {
	g := hooks.New(config.Default())
	ctx := context.Background()
	for _, p := range unportable {
		t.Run(p, func(t *testing.T) {
			np := note.Path(p)
			for _, c := range []hooks.Change{
				{Kind: hooks.KindPut, Path: np, New: []byte(good)},
				{Kind: hooks.KindRestore, Path: np, New: []byte(good)},
				{Kind: hooks.KindMove, From: "ok.md", Path: np, Old: []byte(good), New: []byte(good)},
			} {
				if got := hits(check(t, g, hooks.Proposal{Writer: owner, Changes: []hooks.Change{c}})); !slices.Contains(got, hit{hooks.RulePathPortable, 0}) {
					t.Errorf("%s to %q: %v, want path-portable", c.Kind, p, got)
				}
			}
			// An existing note with such a name stays editable, archivable and
			// movable to a good name.
			for _, c := range []hooks.Change{
				{Kind: hooks.KindPut, Path: np, Old: []byte(good), New: []byte(good + "More.\n")},
				{Kind: hooks.KindArchive, Path: np, Old: []byte(good)},
				{Kind: hooks.KindMove, From: np, Path: "renamed.md", Old: []byte(good), New: []byte(good)},
			} {
				err := g.Check(ctx, hooks.Proposal{Writer: owner, Changes: []hooks.Change{c}})
				var rej *hooks.Rejection
				if errors.As(err, &rej) {
					for _, v := range rej.Violations {
						if v.Rule == hooks.RulePathPortable {
							t.Errorf("%s of existing %q: %v", c.Kind, p, err)
						}
					}
				}
			}
		})
	}
	for _, p := range portable {
		if err := g.Check(ctx, hooks.Proposal{Writer: owner, Changes: []hooks.Change{{Kind: hooks.KindPut, Path: note.Path(p), New: []byte(good)}}}); err != nil {
			t.Errorf("%q: %v", p, err)
		}
	}
}

func TestGates_PathCaseCollision(t *testing.T) {
	g := hooks.New(config.Default())
	head := tree("Case/Foo.md", "README.md", "caf\u00e9.md", "Dir/sub/a.md", "Old.md", "Gone/only.md", "Both/a.md", "Both/b.md",
		"Dup/x.md", "dup/y.md")
	put := func(p string) hooks.Change {
		return hooks.Change{Kind: hooks.KindPut, Path: note.Path(p), New: []byte(good)}
	}
	tests := []struct {
		name    string
		changes []hooks.Change
		want    []string // paths refused with path-case-collision; nil: passes
	}{
		{"same folder, other case", []hooks.Change{put("Case/foo.md")}, []string{"Case/foo.md"}},
		{"folder differs in case", []hooks.Change{put("case/Foo.md")}, []string{"case/Foo.md"}},
		{"folder differs, new name", []hooks.Change{put("CASE/new.md")}, []string{"CASE/new.md"}},
		{"root file", []hooks.Change{put("readme.md")}, []string{"readme.md"}},
		{"deep folder", []hooks.Change{put("Dir/SUB/b.md")}, []string{"Dir/SUB/b.md"}},
		{"NFD against NFC", []hooks.Change{put("cafe\u0301.md")}, []string{"cafe\u0301.md"}},
		{"NFD and case", []hooks.Change{put("CAFE\u0301.md")}, []string{"CAFE\u0301.md"}},
		{"Kelvin sign", []hooks.Change{put("\u212aey.md"), put("key.md")}, []string{"key.md"}},
		{"two in one change", []hooks.Change{put("New/a.md"), put("new/b.md")}, []string{"new/b.md"}},
		{"two files in one change", []hooks.Change{put("x/A.md"), put("x/a.md")}, []string{"x/a.md"}},
		{"restore", []hooks.Change{{Kind: hooks.KindRestore, Path: "case/foo.md", New: []byte(good)}}, []string{"case/foo.md"}},
		{"move onto a twin", []hooks.Change{{Kind: hooks.KindMove, From: "Old.md", Path: "readme.md", Old: []byte(good), New: []byte(good)}}, []string{"readme.md"}},
		{"folder kept by its other files", []hooks.Change{{Kind: hooks.KindMove, From: "Both/a.md", Path: "both/a.md", Old: []byte(good), New: []byte(good)}}, []string{"both/a.md"}},

		{"into the existing folder", []hooks.Change{put("Case/bar.md")}, nil},
		{"distinct name", []hooks.Change{put("Cases/Foo.md")}, nil},
		{"edit of the note itself", []hooks.Change{{Kind: hooks.KindPut, Path: "Case/Foo.md", Old: []byte(good), New: []byte(good + "x\n")}}, nil},
		{"rename in case", []hooks.Change{{Kind: hooks.KindMove, From: "Old.md", Path: "old.md", Old: []byte(good), New: []byte(good)}}, nil},
		{"folder rename in case", []hooks.Change{{Kind: hooks.KindMove, From: "Gone/only.md", Path: "gone/only.md", Old: []byte(good), New: []byte(good)}}, nil},
		{"archive and create", []hooks.Change{{Kind: hooks.KindArchive, Path: "README.md", Old: []byte(good)}, put("readme.md")}, nil},
		{"inside folders that already collide", []hooks.Change{put("Dup/z.md"), put("dup/w.md")}, nil},
		{"same path twice in prefixes", []hooks.Change{put("n/a.md"), put("n/b.md")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := g.Check(context.Background(), hooks.Proposal{Writer: owner, Changes: tt.changes, Names: head})
			var got []string
			var rej *hooks.Rejection
			if errors.As(err, &rej) {
				for _, v := range rej.Violations {
					if v.Rule != hooks.RulePathCaseCollision {
						t.Fatalf("other rule: %v", v)
					}
					got = append(got, string(v.Path))
					if !strings.Contains(v.Message, "only in letter case") {
						t.Errorf("message: %s", v.Message)
					}
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("refused %q, want %q (%v)", got, tt.want, err)
			}
		})
	}
	// Without Names only the change's own paths are compared.
	err := g.Check(context.Background(), hooks.Proposal{Writer: owner, Changes: []hooks.Change{put("Case/foo.md")}})
	if err != nil {
		t.Fatalf("no Names: %v", err)
	}
}

func TestGates_ContentNUL(t *testing.T) {
	g := hooks.New(config.Config{Gates: config.Gates{Profile: config.ProfileOff}})
	withNUL := []byte("# A\nline two\nx\x00y\n")
	got := hits(check(t, g, hooks.Proposal{Writer: owner, Changes: []hooks.Change{{Kind: hooks.KindPut, Path: "a.md", New: withNUL}}}))
	if !slices.Equal(got, []hit{{hooks.RuleContentNUL, 3}}) {
		t.Fatalf("new note: %v", got)
	}
	err := g.Check(context.Background(), hooks.Proposal{Writer: owner, Changes: []hooks.Change{{Kind: hooks.KindPut, Path: "a.md", New: withNUL}}})
	if !strings.Contains(err.Error(), "byte offset 14") {
		t.Fatalf("message: %v", err)
	}
	// Under .norn/ too: git diffs those files as well.
	if got := hits(check(t, g, hooks.Proposal{Writer: owner, Changes: []hooks.Change{{Kind: hooks.KindPut, Path: ".norn/x.yaml", New: []byte("a: \x00\n")}}})); !slices.Equal(got, []hit{{hooks.RuleContentNUL, 1}}) {
		t.Fatalf(".norn: %v", got)
	}
	// A note that holds one already may be edited and moved as long as no NUL is added.
	for _, c := range []hooks.Change{
		{Kind: hooks.KindPut, Path: "a.md", Old: withNUL, New: append([]byte("More.\n"), withNUL...)},
		{Kind: hooks.KindMove, From: "a.md", Path: "b.md", Old: withNUL, New: withNUL},
		{Kind: hooks.KindPut, Path: "a.md", Old: withNUL, New: []byte("# A\n")},
	} {
		if err := g.Check(context.Background(), hooks.Proposal{Writer: owner, Changes: []hooks.Change{c}}); err != nil {
			t.Errorf("%s %s: %v", c.Kind, c.Path, err)
		}
	}
	if got := hits(check(t, g, hooks.Proposal{Writer: owner, Changes: []hooks.Change{{Kind: hooks.KindPut, Path: "a.md", Old: withNUL, New: append(withNUL, 0)}}})); !slices.Equal(got, []hit{{hooks.RuleContentNUL, 3}}) {
		t.Fatalf("a second NUL: %v", got)
	}
	// Lint reports any NUL.
	if vs := g.Lint("a.md", withNUL); len(vs) != 1 || vs[0].Rule != hooks.RuleContentNUL || vs[0].Line != 3 {
		t.Fatalf("lint: %v", vs)
	}
}

func TestLintPaths(t *testing.T) {
	got := hooks.LintPaths([]note.Path{"Case/Foo.md", "case/foo.md", "case/bar.md", "CON.md", "ok.md", "x/A.md", "x/a.md", "caf\u00e9.md", "cafe\u0301.md"})
	var hits []string
	for _, v := range got {
		hits = append(hits, v.Rule+" "+string(v.Path))
	}
	want := []string{
		"path-portable CON.md",
		"path-case-collision caf\u00e9.md",
		"path-case-collision case",
		"path-case-collision x/a.md",
	}
	slices.Sort(want)
	slices.Sort(hits)
	if !slices.Equal(hits, want) {
		t.Fatalf("got %q\nwant %q", hits, want)
	}
	if hooks.LintPaths([]note.Path{"a.md", "b/c.md"}) != nil {
		t.Fatal("clean paths reported")
	}
}
