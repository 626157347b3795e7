package repo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

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
func Init(ctx context.Context, dir string, opts InitOptions) (*Vault, *InitResult, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("init %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, nil, fmt.Errorf("init %s: %w", abs, err)
	}
	res := &InitResult{}
	if exists(filepath.Join(abs, ".git")) {
		res.Adopted = true
	} else {
		branch := opts.Branch
		if branch == "" {
			branch = "main"
		}
		_, err := git.PlainInitWithOptions(abs, &git.PlainInitOptions{
			InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName(branch)},
		})
		if err != nil {
			return nil, nil, fmt.Errorf("init %s: %w", abs, err)
		}
		res.Created = true
	}
	v, err := Open(ctx, abs, opts.Options)
	if err != nil {
		return nil, nil, fmt.Errorf("init %s: %w", abs, err)
	}
	if v.Head() != "" {
		return v, res, nil
	}
	for p, b := range opts.Seed {
		if exists(filepath.Join(abs, filepath.FromSlash(p))) {
			continue
		}
		if err := v.writeFile(p, b, modeFile); err != nil {
			v.Close()
			return nil, nil, fmt.Errorf("init %s: seed %s: %w", abs, p, err)
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
