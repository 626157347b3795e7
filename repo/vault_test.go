package repo_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

func TestVault_PutReadUpdate(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	r1 := write(t, v, put("tech/bloom.md", "# Bloom\n", ""))
	if len(r1.Changes) != 1 || r1.Changes[0].Revision == "" || r1.Commit == "" {
		t.Fatalf("result: %+v", r1)
	}
	b, err := v.Read(ctx, "tech/bloom.md", "")
	if err != nil || string(b.Content) != "# Bloom\n" || b.Revision != r1.Changes[0].Revision {
		t.Fatalf("read: %+v %v", b, err)
	}
	if got := strings.TrimSpace(gitCmd(t, v.Dir(), "rev-parse", "HEAD:tech/bloom.md")); got != string(b.Revision) {
		t.Fatalf("git says revision %s, norn %s", got, b.Revision)
	}
	r2 := write(t, v, put("tech/bloom.md", "# Bloom\nv2\n", b.Revision))
	if r2.Parent != r1.Commit {
		t.Fatalf("parent %s, want %s", r2.Parent, r1.Commit)
	}
	if readFile(t, v, "tech/bloom.md") != "# Bloom\nv2\n" {
		t.Fatal("working tree not updated")
	}
	old, err := v.Read(ctx, "tech/bloom.md", string(r1.Commit))
	if err != nil || string(old.Content) != "# Bloom\n" {
		t.Fatalf("read at first commit: %v %q", err, old.Content)
	}
	log := gitCmd(t, v.Dir(), "log", "--format=%an|%cn|%(trailers:key=Norn-Op,valueonly)", "-1")
	if !strings.HasPrefix(log, "agent-a|norn|write") {
		t.Fatalf("git log: %q", log)
	}
	assertClean(t, v)
}

func TestVault_Conflicts(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	r1 := write(t, v, put("a.md", "one\n", ""))
	head := v.Head()
	status := gitCmd(t, v.Dir(), "status", "--porcelain")
	idx := gitCmd(t, v.Dir(), "ls-files", "--stage")
	cases := []struct {
		name string
		c    repo.Change
	}{
		{"blind overwrite", put("a.md", "two\n", "")},
		{"stale revision", put("a.md", "two\n", "0123456789012345678901234567890123456789")},
		{"update of a missing note", put("b.md", "two\n", r1.Changes[0].Revision)},
		{"restore over existing", repo.Change{Kind: repo.Restore, Path: "a.md", FromCommit: string(head)}},
		{"move onto existing", repo.Change{Kind: repo.Move, From: "a.md", Path: "a.md"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "x"}, Op: repo.OpWrite, Reason: repo.ReasonArchived, Changes: []repo.Change{tc.c}})
			if err == nil {
				t.Fatal("accepted")
			}
			var ce *repo.ConflictError
			if errors.Is(err, repo.ErrConflict) && errors.As(err, &ce) && tc.c.Kind == repo.Put && tc.c.Path == "a.md" {
				if ce.Current != r1.Changes[0].Revision {
					t.Fatalf("current revision %q, want %q", ce.Current, r1.Changes[0].Revision)
				}
			}
		})
	}
	if v.Head() != head {
		t.Fatal("HEAD moved")
	}
	if gitCmd(t, v.Dir(), "status", "--porcelain") != status {
		t.Fatal("working tree changed")
	}
	if gitCmd(t, v.Dir(), "ls-files", "--stage") != idx {
		t.Fatal("git index changed")
	}
	if readFile(t, v, "a.md") != "one\n" {
		t.Fatal("file changed")
	}
	assertClean(t, v)
}

func TestVault_ArchiveRestoreMove(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	r1 := write(t, v, put("notes/a.md", "alpha\n", ""), put("notes/b.md", "beta\n", ""))
	if len(r1.Changes) != 2 {
		t.Fatal(r1)
	}
	if !strings.Contains(gitCmd(t, v.Dir(), "log", "-1", "--format=%B"), "Norn-Txn: ") {
		t.Fatal("multi-file commit has no Norn-Txn trailer")
	}
	// Archive needs a reason.
	_, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "x"}, Op: repo.OpArchive, Changes: []repo.Change{{Kind: repo.Archive, Path: "notes/a.md"}}})
	if !errors.Is(err, repo.ErrInvalid) {
		t.Fatalf("archive without reason: %v", err)
	}
	ra, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "x"}, Op: repo.OpArchive, Reason: repo.ReasonSuperseded, Changes: []repo.Change{{Kind: repo.Archive, Path: "notes/a.md"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(v.Dir(), "notes/a.md")); !os.IsNotExist(err) {
		t.Fatal("archived file still in working tree")
	}
	if _, err := v.Read(ctx, "notes/a.md", ""); !errors.Is(err, repo.ErrNotFound) {
		t.Fatalf("read archived: %v", err)
	}
	if !strings.Contains(gitCmd(t, v.Dir(), "log", "-1", "--format=%B"), "Norn-Reason: superseded") {
		t.Fatal("no Norn-Reason trailer")
	}
	// Restore from the commit before the archive.
	_, err = v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "x"}, Op: repo.OpRestore, Changes: []repo.Change{{Kind: repo.Restore, Path: "notes/a.md", FromCommit: string(ra.Parent)}}})
	if err != nil {
		t.Fatal(err)
	}
	if readFile(t, v, "notes/a.md") != "alpha\n" {
		t.Fatal("restored bytes differ")
	}
	// Move, folder left empty disappears.
	_, err = v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "x"}, Op: repo.OpMove, Changes: []repo.Change{{Kind: repo.Move, From: "notes/b.md", Path: "other/b.md"}}})
	if err != nil {
		t.Fatal(err)
	}
	if readFile(t, v, "other/b.md") != "beta\n" {
		t.Fatal("moved bytes differ")
	}
	ents, err := v.List(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, string(e.Path))
	}
	if strings.Join(names, ",") != ".norn,notes,other" {
		t.Fatalf("root listing: %v", names)
	}
	lg, err := v.Log(ctx, "notes/a.md", 10)
	if err != nil || len(lg) != 3 {
		t.Fatalf("log notes/a.md: %d commits, %v", len(lg), err)
	}
	if lg[0].Op != repo.OpRestore || lg[1].Op != repo.OpArchive || lg[1].Reason != repo.ReasonSuperseded {
		t.Fatalf("log: %+v", lg[:2])
	}
	assertClean(t, v)
}

func TestVault_BadPaths(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	head := v.Head()
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(v.Dir(), "escape")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"", "/etc/passwd", "../x.md", "a/../../x.md", ".git/config", "a/.GIT/x.md", "a\\b.md", "a\x00b.md", "a//b.md", "./a.md", "escape/x.md", "bad\xffname.md"} {
		_, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "x"}, Op: repo.OpWrite, Changes: []repo.Change{put(p, "x\n", "")}})
		if !errors.Is(err, repo.ErrInvalid) {
			t.Errorf("path %q: got %v, want ErrInvalid", p, err)
		}
	}
	if v.Head() != head {
		t.Fatal("HEAD moved")
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Fatal("wrote through the symlink")
	}
	os.Remove(filepath.Join(v.Dir(), "escape"))
	assertClean(t, v)
}

func TestVault_External(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	write(t, v, put("a.md", "one\n", ""), put("b.md", "bee\n", ""))
	os.WriteFile(filepath.Join(v.Dir(), "a.md"), []byte("edited by hand\n"), 0o644)
	os.WriteFile(filepath.Join(v.Dir(), "new.md"), []byte("new\n"), 0o644)
	os.Remove(filepath.Join(v.Dir(), "b.md"))
	os.WriteFile(filepath.Join(v.Dir(), ".DS_Store"), []byte("junk"), 0o644)
	res, err := v.CommitExternal(ctx, "", "")
	if err != nil || res == nil {
		t.Fatal(res, err)
	}
	if len(res.Changes) != 3 {
		t.Fatalf("changes: %+v", res.Changes)
	}
	lg := gitCmd(t, v.Dir(), "log", "-1", "--format=%an|%(trailers:key=Norn-Op,valueonly)")
	if !strings.HasPrefix(lg, "Owner|external") {
		t.Fatalf("log: %q", lg)
	}
	b, _ := v.Read(ctx, note.Path("a.md"), "")
	if string(b.Content) != "edited by hand\n" {
		t.Fatal("external edit not committed")
	}
	os.Remove(filepath.Join(v.Dir(), ".DS_Store"))
	assertClean(t, v)
	again, err := v.CommitExternal(ctx, "", "")
	if err != nil || again != nil {
		t.Fatalf("second scan: %v %v", again, err)
	}
}

// TestVault_StaleLocks: a branch lock a crashed writer left behind does not wedge
// the vault. git's index.lock is never taken over (a long git command may hold
// it): as with git itself, a write is refused, saying to remove the file if no
// git command is running, and nothing is written; once it is gone, writes go on.
func TestVault_StaleLocks(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	write(t, v, put("a.md", "one\n", ""))
	if err := os.WriteFile(filepath.Join(v.GitDir(), "refs/heads/main.lock"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	write(t, v, put("b.md", "two\n", ""))
	lock := filepath.Join(v.GitDir(), "index.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	head := v.Head()
	_, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "agent-a"}, Op: repo.OpWrite, Changes: []repo.Change{put("c.md", "three\n", "")}})
	var busy *repo.BusyError
	if !errors.As(err, &busy) || !errors.Is(err, repo.ErrConflict) || !strings.Contains(err.Error(), "remove the file") {
		t.Fatalf("write with index.lock held: %v", err)
	}
	if !exists(lock) || v.Head() != head || exists(filepath.Join(v.Dir(), "c.md")) {
		t.Fatal("a refused write took the lock over or wrote something")
	}
	os.Remove(lock)
	write(t, v, put("c.md", "three\n", ""))
	// A lock git holds briefly (git status refreshing the index) is waited for.
	os.WriteFile(lock, nil, 0o644)
	go func() { time.Sleep(200 * time.Millisecond); os.Remove(lock) }()
	write(t, v, put("d.md", "four\n", ""))
	v.Close()
	assertClean(t, v)
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// TestVault_KeepsAPersonsUncommittedWork: a write never overwrites an edit a person
// made in the working tree that is not committed yet, nor an untracked file.
func TestVault_KeepsAPersonsUncommittedWork(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	r := write(t, v, put("a.md", "one\n", ""))
	rev := r.Changes[0].Revision
	os.WriteFile(filepath.Join(v.Dir(), "a.md"), []byte("edited by hand\n"), 0o644)
	os.WriteFile(filepath.Join(v.Dir(), "new.md"), []byte("not committed yet\n"), 0o644)
	head := v.Head()
	for _, c := range []repo.Change{
		put("a.md", "agent\n", rev),
		put("new.md", "agent\n", ""),
		{Kind: repo.Archive, Path: "a.md"},
		{Kind: repo.Move, From: "a.md", Path: "b.md"},
	} {
		_, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "agent"}, Op: repo.OpWrite, Reason: repo.ReasonArchived, Changes: []repo.Change{c}})
		if !errors.Is(err, repo.ErrConflict) || !strings.Contains(err.Error(), "norn commit") {
			t.Fatalf("%s %s: got %v, want a conflict", c.Kind, c.Path, err)
		}
	}
	if v.Head() != head || readFile(t, v, "a.md") != "edited by hand\n" || readFile(t, v, "new.md") != "not committed yet\n" {
		t.Fatal("a refused write changed something")
	}
	// Once committed, the agent's write goes through.
	if _, err := v.CommitExternal(ctx, "", ""); err != nil {
		t.Fatal(err)
	}
	write(t, v, put("a.md", "agent\n", v.Revision("a.md")))
	assertClean(t, v)
}

// TestVault_WorktreeFolderEmptiedAndRefilled: within one batch a folder that loses
// its only note (and is pruned) and gets another one ends up holding it: a move
// inside the folder, and an archive then a put in one transaction.
func TestVault_WorktreeFolderEmptiedAndRefilled(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	write(t, v, put("solo/a.md", "# A\n", ""), put("pair/x.md", "# X\n", ""))
	if _, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "x"}, Op: repo.OpMove,
		Changes: []repo.Change{{Kind: repo.Move, From: "solo/a.md", Path: "solo/b.md"}}}); err != nil {
		t.Fatal(err)
	}
	if readFile(t, v, "solo/b.md") != "# A\n" {
		t.Fatal("moved note missing from the working tree")
	}
	x := v.Revision("pair/x.md")
	if _, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: "x"}, Op: repo.OpArchive, Reason: repo.ReasonSuperseded,
		Changes: []repo.Change{{Kind: repo.Archive, Path: "pair/x.md", ExpectedRevision: x}, put("pair/y.md", "# Y\n", "")}}); err != nil {
		t.Fatal(err)
	}
	if readFile(t, v, "pair/y.md") != "# Y\n" {
		t.Fatal("new note missing from the working tree")
	}
	assertClean(t, v)
}

// TestVault_ExternalTrackedButIgnored: .gitignore hides untracked files only, as
// for git: an edit to (or the removal of) a tracked note under an ignored folder is
// committed; a new file there, and editor state, are not.
func TestVault_ExternalTrackedButIgnored(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	write(t, v, put(".gitignore", "ignored/\n*.log\n", ""), put("ignored/x.md", "one\n", ""),
		put("ignored/y.md", "why\n", ""), put("keep.log", "tracked log\n", ""))
	os.WriteFile(filepath.Join(v.Dir(), "ignored", "x.md"), []byte("edited by hand\n"), 0o644)
	os.Remove(filepath.Join(v.Dir(), "ignored", "y.md"))
	os.WriteFile(filepath.Join(v.Dir(), "keep.log"), []byte("tracked log, edited\n"), 0o644)
	os.WriteFile(filepath.Join(v.Dir(), "ignored", "new.md"), []byte("untracked\n"), 0o644)
	os.WriteFile(filepath.Join(v.Dir(), "other.log"), []byte("untracked\n"), 0o644)
	os.MkdirAll(filepath.Join(v.Dir(), ".obsidian"), 0o755)
	os.WriteFile(filepath.Join(v.Dir(), ".obsidian", "workspace.json"), []byte("{}"), 0o644)
	if st := gitCmd(t, v.Dir(), "status", "--porcelain"); st != " M ignored/x.md\n D ignored/y.md\n M keep.log\n?? .obsidian/\n" {
		t.Fatalf("git status before (the oracle): %q", st)
	}
	res, err := v.CommitExternal(ctx, "", "")
	if err != nil || res == nil {
		t.Fatal(res, err)
	}
	var got []string
	for _, c := range res.Changes {
		got = append(got, string(c.Kind)+" "+string(c.Path))
	}
	slices.Sort(got)
	if want := []string{"archive ignored/y.md", "put ignored/x.md", "put keep.log"}; !slices.Equal(got, want) {
		t.Fatalf("changes %v, want %v", got, want)
	}
	if st := gitCmd(t, v.Dir(), "status", "--porcelain"); st != "?? .obsidian/\n" {
		t.Fatalf("git status after: %q", st)
	}
}

// TestVault_OpenKeepsStagedChanges: opening the vault (what every command does)
// leaves what a person staged with git add and git mv as it is,
// and norn commit commits it; only a crash's leftover index is mended (the crash
// tests).
func TestVault_OpenKeepsStagedChanges(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	write(t, v, put("a.md", "one\n", ""), put("old.md", "old\n", ""), put("kept.md", "kept\n", ""))
	write(t, v, put("a.md", "two\n", v.Revision("a.md")))
	dir := v.Dir()
	v.Close()
	os.WriteFile(filepath.Join(dir, "a.md"), []byte("staged edit\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "new.md"), []byte("precious\n"), 0o644)
	gitCmd(t, dir, "add", "a.md", "new.md")
	gitCmd(t, dir, "mv", "old.md", "moved.md")
	want := "M  a.md\nR  old.md -> moved.md\nA  new.md\n"
	if st := gitCmd(t, dir, "status", "--porcelain"); st != want {
		t.Fatalf("git status before (the oracle): %q", st)
	}
	v2, err := repo.Open(ctx, dir, repo.Options{Owner: repo.Author{Name: "Owner", Email: "o@x"}})
	if err != nil {
		t.Fatal(err)
	}
	defer v2.Close()
	if st := gitCmd(t, dir, "status", "--porcelain"); st != want {
		t.Fatalf("opening the vault changed what was staged: %q", st)
	}
	if _, err := v2.CommitExternal(ctx, "", ""); err != nil {
		t.Fatal(err)
	}
	if st := gitCmd(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("after norn commit: %q", st)
	}
	if got := gitCmd(t, dir, "show", "HEAD:a.md") + gitCmd(t, dir, "show", "HEAD:new.md") + gitCmd(t, dir, "show", "HEAD:moved.md"); got != "staged edit\nprecious\nold\n" {
		t.Fatalf("committed: %q", got)
	}
}
