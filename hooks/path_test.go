package hooks_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/note"
)

func TestValidPath(t *testing.T) {
	tests := []struct {
		path  string
		rules []string // sorted; nil means valid
	}{
		// Valid paths.
		{"a.md", nil},
		{"tech/bloom-filters.md", nil},
		{"Projects/Q3 plan: draft (v2).md", nil},
		{"notes/ünïcödé/日本語.md", nil},
		{"a/.gitignore-notes.md", nil},
		{"a/git/x.md", nil},
		{".norn/config.yaml", nil},
		{".norn/claims/abc.yaml", nil},
		{"x.MD", nil},
		{"..md", nil},
		{"a/...md", nil},
		{".md", nil},

		// Traversal and escapes.
		{"../x.md", []string{"path-dotdot"}},
		{"a/../../x.md", []string{"path-dotdot"}},
		{"a/..", []string{"path-dotdot", "path-not-markdown"}},
		{"/etc/passwd", []string{"path-absolute", "path-not-markdown"}},
		{"/x.md", []string{"path-absolute"}},
		{"//server/share/x.md", []string{"path-absolute"}},
		{`C:\x.md`, []string{"path-absolute", "path-invalid"}},
		{"C:/x.md", []string{"path-absolute"}},
		{"c:x.md", []string{"path-absolute"}},
		{`a\b.md`, []string{"path-invalid"}},
		{`a\\b.md`, []string{"path-invalid"}},
		{`..\x.md`, []string{"path-invalid"}},

		// git's own folder, in every disguise.
		{".git/config", []string{"path-git-dir", "path-not-markdown"}},
		{".git/x.md", []string{"path-git-dir"}},
		{"a/.GIT/x.md", []string{"path-git-dir"}},
		{"a/.Git/b/c.md", []string{"path-git-dir"}},
		{".git./x.md", []string{"path-git-dir"}},
		{".git /x.md", []string{"path-git-dir"}},
		{"GIT~1/x.md", []string{"path-git-dir"}},
		{".g\u200cit/x.md", []string{"path-git-dir"}},
		{"\ufeff.git/x.md", []string{"path-git-dir"}},
		{".git", []string{"path-git-dir", "path-not-markdown"}},
		{"a/.git.md", nil},

		// Malformed.
		{"", []string{"path-invalid"}},
		{"a\x00b.md", []string{"path-invalid"}},
		{"a\nb.md", []string{"path-invalid"}},
		{"a\tb.md", []string{"path-invalid"}},
		{"a\x7fb.md", []string{"path-invalid"}},
		{"a\u0085b.md", []string{"path-invalid"}},
		{"a\xffb.md", []string{"path-invalid"}},
		{"a/", []string{"path-invalid", "path-not-markdown"}},
		{"a/b.md/", []string{"path-invalid"}},
		{"a//b.md", []string{"path-invalid"}},
		{"./a.md", []string{"path-invalid"}},
		{"a/./b.md", []string{"path-invalid"}},
		{strings.Repeat("a", 1022) + ".md", []string{"path-invalid"}},
		{strings.Repeat("a", 1021) + ".md", []string{"path-invalid"}}, // a name over 255 bytes
		{strings.Repeat("a/", 300) + "b.md", nil},
		{strings.Repeat("n", 252) + ".md", nil},
		{strings.Repeat("n", 253) + ".md", []string{"path-invalid"}},
		{strings.Repeat("é", 128) + "/x.md", []string{"path-invalid"}},

		// Norn's temporary files.
		{".norn-tmp-a.md", []string{"path-invalid"}},
		{"a/.NORN-TMP-x/b.md", []string{"path-invalid"}},
		{".norn-tmp-", []string{"path-invalid", "path-not-markdown"}},
		{".norn-tmpa.md", nil},
		{"a/x.norn-tmp-.md", nil},

		// Not a note.
		{"x.txt", []string{"path-not-markdown"}},
		{"x", []string{"path-not-markdown"}},
		{"a/b.md.bak", []string{"path-not-markdown"}},
		{".gitmodules", []string{"path-not-markdown"}},
		{".norn/x.md", []string{"path-not-markdown"}},
		{".norn/config.yml", []string{"path-not-markdown"}},
		{".norn", []string{"path-not-markdown"}},
	}
	for _, tt := range tests {
		err := hooks.ValidPath(tt.path)
		got := rulesOf(t, err)
		if !reflect.DeepEqual(got, tt.rules) {
			t.Errorf("ValidPath(%q) rules = %q, want %q (err: %v)", tt.path, got, tt.rules, err)
		}
		var rej *hooks.Rejection
		if errors.As(err, &rej) {
			for _, v := range rej.Violations {
				if v.Path != note.Path(tt.path) || v.Message == "" {
					t.Errorf("ValidPath(%q): violation %+v lacks the path or a message", tt.path, v)
				}
			}
		}
	}
}

// TestGates_CheckPaths: path safety alone, judged as Check judges it; a path a
// change only removes (an archive, a move's source) may keep a name Norn would not
// create.
func TestGates_CheckPaths(t *testing.T) {
	g := hooks.New(config.Default())
	long := note.Path(strings.Repeat("n", 253) + ".md")
	tmp := note.Path(".norn-tmp-a.md")
	tests := []struct {
		change hooks.Change
		rules  []string
	}{
		{hooks.Change{Kind: hooks.KindPut, Path: long}, []string{"path-invalid"}},
		{hooks.Change{Kind: hooks.KindPut, Path: tmp}, []string{"path-invalid"}},
		{hooks.Change{Kind: hooks.KindRestore, Path: tmp}, []string{"path-invalid"}},
		{hooks.Change{Kind: hooks.KindArchive, Path: long}, nil},
		{hooks.Change{Kind: hooks.KindArchive, Path: tmp}, nil},
		{hooks.Change{Kind: hooks.KindMove, From: tmp, Path: "a.md"}, nil},
		{hooks.Change{Kind: hooks.KindMove, From: "a.md", Path: long}, []string{"path-invalid"}},
		{hooks.Change{Kind: hooks.KindPut, Path: "../x.md"}, []string{"path-dotdot"}},
		{hooks.Change{Kind: hooks.KindPut, Path: "d/x.md"}, []string{"path-symlink-escape"}},
		{hooks.Change{Kind: hooks.KindPut, Path: ".norn/x.yaml"}, []string{"path-norn-dir"}},
	}
	for _, tt := range tests {
		p := hooks.Proposal{
			Writer:    hooks.Writer{Name: "claude", Roles: []string{hooks.RoleAgent}},
			Changes:   []hooks.Change{tt.change},
			IsSymlink: func(p string) bool { return p == "d" },
		}
		err := g.CheckPaths(context.Background(), p)
		if got := rulesOf(t, err); !reflect.DeepEqual(got, tt.rules) {
			t.Errorf("CheckPaths(%s %s) rules = %q, want %q", tt.change.Kind, tt.change.Path, got, tt.rules)
		}
		// Check agrees on the path rules (its content rules see a valid note).
		p.Changes[0].New = nil
		if tt.change.Kind != hooks.KindArchive {
			p.Changes[0].New = []byte("# T\n")
		}
		if got := rulesOf(t, g.Check(context.Background(), p)); !reflect.DeepEqual(got, tt.rules) {
			t.Errorf("Check(%s %s) rules = %q, want %q", tt.change.Kind, tt.change.Path, got, tt.rules)
		}
	}
}

// rulesOf returns the rule ids of err's violations in order, nil for a nil error.
func rulesOf(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var rej *hooks.Rejection
	if !errors.As(err, &rej) {
		t.Fatalf("error %v is not a *hooks.Rejection", err)
	}
	if !errors.Is(err, hooks.ErrRejected) {
		t.Errorf("error %v does not match ErrRejected", err)
	}
	if len(rej.Violations) == 0 {
		t.Fatalf("a Rejection with no violations")
	}
	var out []string
	for _, v := range rej.Violations {
		out = append(out, v.Rule)
	}
	return out
}

// TestGates_Check_PathMessages checks a few messages say how to fix the path.
func TestGates_Check_PathMessages(t *testing.T) {
	g := hooks.New(config.Default())
	tests := []struct{ path, rule, fragment string }{
		{"x.txt", "path-not-markdown", `write "x.md", not "x.txt"`},
		{"/etc/passwd", "path-absolute", "relative to the vault root"},
		{"a/../x.md", "path-dotdot", `without ".."`},
		{"a\x00.md", "path-invalid", "NUL"},
	}
	for _, tt := range tests {
		err := g.Check(context.Background(), hooks.Proposal{
			Writer:  hooks.Writer{Name: "claude", Roles: []string{hooks.RoleAgent}},
			Changes: []hooks.Change{{Kind: hooks.KindPut, Path: note.Path(tt.path), New: []byte("x\n")}},
		})
		var rej *hooks.Rejection
		if !errors.As(err, &rej) {
			t.Fatalf("Check(%q) = %v, want a Rejection", tt.path, err)
		}
		found := false
		for _, v := range rej.Violations {
			if v.Rule == tt.rule && strings.Contains(v.Message, tt.fragment) {
				found = true
			}
		}
		if !found {
			t.Errorf("Check(%q): no %s violation saying %q in %v", tt.path, tt.rule, tt.fragment, rej.Violations)
		}
	}
}
