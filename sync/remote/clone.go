package remote

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"

	"github.com/norn-vault/norn/repo"
)

// Clone makes dir (absent or an empty folder) a git repository whose remote
// "origin" is url, fetches the branch and checks it out: the branch at the remote's
// tip, tracking origin (so `git pull` works there too), the working tree and git's
// index matching it. An empty remote leaves a repository without commits. It
// returns the tip ("" for an empty remote). When it fails, what it created is
// removed. The caller opens the result as a vault (repo.Init adopts it).
func Clone(ctx context.Context, url, dir string, opts Options, progress Progress) (tip repo.CommitID, err error) {
	if _, err := ParseURL(url); err != nil {
		return "", err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("clone into %s: %w", dir, err)
	}
	entries, err := os.ReadDir(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", fmt.Errorf("clone into %s: %w", abs, err)
	case len(entries) > 0:
		return "", fmt.Errorf("clone into %s: %w: the folder is not empty", abs, ErrInvalid)
	}
	if opts.Branch == "" {
		opts.Branch = "main"
	}
	if plumbing.NewBranchReferenceName(opts.Branch).Validate() != nil {
		return "", fmt.Errorf("clone: %w: branch %q", ErrInvalid, opts.Branch)
	}
	// Remove what this call made when it fails: the folder, or only .git in a
	// folder that was there (empty) before.
	made := abs
	if len(entries) == 0 && err == nil {
		made = filepath.Join(abs, ".git")
	}
	defer func() {
		if err != nil {
			os.RemoveAll(made)
			if made != abs {
				clearDir(abs)
			}
		}
	}()
	branch := plumbing.NewBranchReferenceName(opts.Branch)
	gr, err := git.PlainInitWithOptions(abs, &git.PlainInitOptions{InitOptions: git.InitOptions{DefaultBranch: branch}})
	if err != nil {
		return "", fmt.Errorf("clone into %s: %w", abs, err)
	}
	r, err := Open(filepath.Join(abs, ".git"), opts)
	if err != nil {
		return "", err
	}
	if err = r.Add("origin", url); err != nil {
		return "", fmt.Errorf("clone: %w", err)
	}
	if tip, err = r.Fetch(ctx, "origin", progress); err != nil {
		return "", err
	}
	if err = r.track("origin"); err != nil || tip == "" {
		return "", err
	}
	if err = gr.Storer.SetReference(plumbing.NewHashReference(branch, plumbing.NewHash(string(tip)))); err != nil {
		return "", fmt.Errorf("clone: set %s: %w", branch, err)
	}
	wt, err := gr.Worktree()
	if err != nil {
		return "", fmt.Errorf("clone: %w", err)
	}
	if err = wt.Reset(&git.ResetOptions{Commit: plumbing.NewHash(string(tip)), Mode: git.HardReset}); err != nil {
		return "", fmt.Errorf("clone: check out %s: %w", tip.Short(), err)
	}
	return tip, nil
}

// track makes the branch track the remote (branch.BRANCH.remote and .merge).
func (r *Remotes) track(name string) error {
	return r.editConfig(func(cfg *gitconfig.Config) error {
		cfg.Section("branch").Subsection(r.opts.Branch).
			SetOption("remote", name).
			SetOption("merge", plumbing.NewBranchReferenceName(r.opts.Branch).String())
		return nil
	})
}

// clearDir empties dir, keeping dir itself.
func clearDir(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}
