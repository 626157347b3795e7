package repo

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/go-git/go-git/v5"
)

// GCResult reports what a pack run did.
type GCResult struct {
	LooseBefore int    `json:"loose_before"`
	LooseAfter  int    `json:"loose_after"`
	Tool        string `json:"tool"` // "git" or "go-git"
}

// LooseObjects counts the loose object files.
func (v *Vault) LooseObjects() int {
	n := 0
	entries, _ := os.ReadDir(v.objs.dir)
	for _, e := range entries {
		if !e.IsDir() || len(e.Name()) != 2 {
			continue
		}
		files, _ := os.ReadDir(filepath.Join(v.objs.dir, e.Name()))
		for _, f := range files {
			if len(f.Name()) == 38 {
				n++
			}
		}
	}
	return n
}

// GC packs loose objects so they do not grow without bound. It runs in the
// committer, so no write is in flight while it packs. It uses the git CLI when
// installed (git repack -d --geometric=2, which also rolls up Norn's small packs,
// then git prune-packed), go-git's repacker otherwise.
// Every revision reads back the same afterwards.
func (v *Vault) GC(ctx context.Context) (*GCResult, error) {
	res := &GCResult{}
	_, err := v.submit(ctx, &request{fn: func() error {
		res.LooseBefore = v.LooseObjects()
		if gitBin, err := exec.LookPath("git"); err == nil {
			res.Tool = "git"
			for _, args := range [][]string{{"repack", "-d", "-q", "--geometric=2"}, {"prune-packed", "-q"}} {
				cmd := exec.CommandContext(ctx, gitBin, append([]string{"-C", v.dir}, args...)...)
				if out, err := cmd.CombinedOutput(); err != nil {
					return fmt.Errorf("git %s: %w: %s", args[0], err, out)
				}
			}
		} else {
			res.Tool = "go-git"
			g := v.objs.lockGit()
			r, err := git.Open(g, nil)
			if err == nil {
				err = r.RepackObjects(&git.RepackConfig{})
			}
			v.objs.mu.Unlock()
			if err != nil {
				return fmt.Errorf("repack: %w", err)
			}
		}
		v.objs.reload(v.gitDir)
		res.LooseAfter = v.LooseObjects()
		return nil
	}})
	if err != nil {
		return nil, fmt.Errorf("gc: %w", err)
	}
	return res, nil
}
