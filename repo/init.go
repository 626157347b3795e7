package repo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// InitOptions configure Init.
type InitOptions struct {
	Options
	// Branch for a new repository (default "main").
	Branch string
	// Seed files are written into the working tree when absent (e.g. a default
	// .norn/config.yaml) and become part of the first commit. Existing repositories
	// with history are never seeded: nothing in them is rewritten.
	Seed map[string][]byte
	// Amend edits files of the working tree of a repository without history, after
	// the seeds and before the first commit: each function gets the file's bytes
	// (nil when absent) and returns the bytes to write, or nil to leave the file as
	// it is. A failed Init puts every amended file back as it was.
	Amend map[string]func(cur []byte) []byte
}

// InitResult says what Init found and did.
type InitResult struct {
	// Created: a new git repository was made. Adopted: an existing one was kept,
	// history and all.
	Created, Adopted bool
	// Imported is the first commit (Norn-Op: import) of the files already in the
	// folder, or of the seed files; nil when the repository already had history.
	Imported *Result
}

// Init creates a vault in dir, adopts a folder of Markdown (one import commit of
// everything in it) or adopts an existing git repository (history kept). It returns
// the open vault.
func Init(ctx context.Context, dir string, opts InitOptions) (v *Vault, res *InitResult, err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("init %s: %w", dir, err)
	}
	gitDir := filepath.Join(abs, ".git")
	adopt := exists(gitDir)
	if fi, err := os.Lstat(gitDir); err == nil && !fi.IsDir() {
		return nil, nil, fmt.Errorf("init %s: %w: .git is a file (a linked worktree or a submodule); Norn keeps its state in a repository's .git folder: run norn init in the main working tree", abs, ErrNotVault)
	}
	branch := opts.Branch
	if branch == "" {
		branch = "main"
	}
	// Everything is checked before anything is created.
	if !adopt {
		if err := validBranch(branch); err != nil {
			return nil, nil, fmt.Errorf("init %s: %w", abs, err)
		}
	} else if opts.Branch != "" {
		// An adopted repository keeps its branch; a different one asked for is a
		// mistake to say, not to ignore.
		ref, err := readSymbolicHead(gitDir)
		if err != nil {
			return nil, nil, fmt.Errorf("init %s: %w", abs, err)
		}
		if cur := strings.TrimPrefix(ref, "refs/heads/"); cur != opts.Branch {
			return nil, nil, fmt.Errorf("init %s: %w", abs, invalidf("the repository is on branch %q; --branch %q names the branch of a new repository only (git switch first to adopt another)", cur, opts.Branch))
		}
	}
	for p := range opts.Seed {
		if err := ValidPath(p); err != nil {
			return nil, nil, fmt.Errorf("init %s: seed: %w", abs, err)
		}
	}
	for p := range opts.Amend {
		if err := ValidPath(p); err != nil {
			return nil, nil, fmt.Errorf("init %s: amend: %w", abs, err)
		}
	}
	// What this call creates, it removes again when it fails: a failed init leaves
	// the folder as it found it, not a half-made repository.
	var created []string // newest last
	var restore []func() // put amended files back
	defer func() {
		if err == nil {
			return
		}
		for _, f := range restore {
			f()
		}
		for i := len(created) - 1; i >= 0; i-- {
			os.RemoveAll(created[i])
		}
	}()
	if top := topMissing(abs); top != "" {
		created = append(created, top)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, nil, fmt.Errorf("init %s: %w", abs, err)
	}
	res = &InitResult{}
	if adopt {
		res.Adopted = true
	} else {
		created = append(created, gitDir)
		_, err := git.PlainInitWithOptions(abs, &git.PlainInitOptions{
			InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName(branch)},
		})
		if err != nil {
			return nil, nil, fmt.Errorf("init %s: %w: %v", abs, ErrInvalid, err)
		}
		res.Created = true
	}
	v, err = Open(ctx, abs, opts.Options)
	if err != nil {
		return nil, nil, fmt.Errorf("init %s: %w", abs, err)
	}
	if v.Head() != "" {
		return v, res, nil
	}
	for p, b := range opts.Seed {
		full := filepath.Join(abs, filepath.FromSlash(p))
		if exists(full) {
			continue
		}
		if top := topMissing(full); top != "" && !adopt {
			created = append(created, top)
		}
		if err := v.writeFile(p, b, modeFile); err != nil {
			v.Close()
			return nil, nil, fmt.Errorf("init %s: seed %s: %w", abs, p, err)
		}
	}
	for p, edit := range opts.Amend {
		undo, err := v.amend(p, edit)
		if err != nil {
			v.Close()
			return nil, nil, fmt.Errorf("init %s: amend %s: %w", abs, p, err)
		}
		if undo != nil {
			restore = append(restore, undo)
		}
	}
	v.unmarkWorktree()
	imported, err := v.CommitExternal(ctx, OpImport, "import")
	if err != nil {
		v.Close()
		return nil, nil, fmt.Errorf("init %s: import: %w", abs, err)
	}
	res.Imported = imported
	return v, res, nil
}

// topMissing returns the topmost folder on p's path (or p itself) that does not
// exist, "" when p exists: removing it removes everything made to create p.
func topMissing(p string) string {
	top := ""
	for d := p; !exists(d); d = filepath.Dir(d) {
		top = d
		if filepath.Dir(d) == d {
			break
		}
	}
	return top
}

// validBranch refuses a branch name git would refuse (git check-ref-format).
func validBranch(b string) error {
	if b == "HEAD" || strings.HasPrefix(b, "-") || plumbing.NewBranchReferenceName(b).Validate() != nil {
		return invalidf("%q is not a valid branch name (git check-ref-format --branch refuses it): use letters, digits, '-', '_', '/' and '.', e.g. \"main\"", b)
	}
	return nil
}

// amend applies edit to the working-tree file p and returns how to put it back
// (nil when edit left it alone).
func (v *Vault) amend(p string, edit func(cur []byte) []byte) (func(), error) {
	full := filepath.Join(v.dir, filepath.FromSlash(p))
	cur, err := os.ReadFile(full)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	had := err == nil
	b := edit(cur)
	if b == nil {
		return nil, nil
	}
	if err := v.writeFile(p, b, modeFile); err != nil {
		return nil, err
	}
	return func() {
		if had {
			os.WriteFile(full, cur, 0o644)
		} else {
			os.Remove(full)
		}
	}, nil
}
