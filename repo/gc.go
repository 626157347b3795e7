package repo

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5"
)

// GCResult reports what a pack run did.
type GCResult struct {
	LooseBefore int    `json:"loose_before"`
	LooseAfter  int    `json:"loose_after"`
	PacksBefore int    `json:"packs_before"`
	PacksAfter  int    `json:"packs_after"`
	Tool        string `json:"tool"` // "git" or "go-git"
	// All says the run rolled every pack into one (more than PackLimit packs).
	All bool `json:"all"`
}

// GCOptions tune a pack run.
type GCOptions struct {
	// PackLimit: when the repository holds more packs than this, gc rolls them all
	// into one (git's gc.autoPackLimit); 0 never does, and gc only packs loose
	// objects and rolls small packs up geometrically. Norn's writes leave a pack per
	// group commit and merge only small ones (packwrite.go), so the packs of more
	// than a few thousand objects pile up until gc rolls them up.
	PackLimit int
}

// Packs counts the packs in the object store (as `git count-objects -v` does:
// the packs with an index).
func (v *Vault) Packs() int {
	n := 0
	entries, _ := os.ReadDir(filepath.Join(v.objs.dir, "pack"))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "pack-") && strings.HasSuffix(e.Name(), ".idx") {
			n++
		}
	}
	return n
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

// GC packs loose objects and rolls packs up so that neither grows without bound.
// It runs in the committer, so no write is in flight while it packs. It uses the
// git CLI when installed, go-git's repacker otherwise (which always makes one pack
// of the reachable objects). With the git CLI it runs git repack -d
// --geometric=2, which packs the loose objects and rolls up Norn's small packs,
// or, when there are more than opts.PackLimit packs, git repack -a -d -k, which
// rolls every pack and loose object into one pack (-k: unreachable objects too,
// so nothing is lost); then git prune-packed. Every revision reads back the same
// afterwards.
func (v *Vault) GC(ctx context.Context, opts GCOptions) (*GCResult, error) {
	res := &GCResult{}
	_, err := v.submit(ctx, &request{fn: func() error {
		res.LooseBefore = v.LooseObjects()
		res.PacksBefore = v.Packs()
		res.All = opts.PackLimit > 0 && res.PacksBefore > opts.PackLimit
		if gitBin, err := exec.LookPath("git"); err == nil {
			res.Tool = "git"
			repack := []string{"repack", "-d", "-q", "--geometric=2"}
			if res.All {
				repack = []string{"repack", "-a", "-d", "-k", "-q"}
			}
			for _, args := range [][]string{repack, {"prune-packed", "-q"}} {
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
		res.PacksAfter = v.Packs()
		return nil
	}})
	if err != nil {
		return nil, fmt.Errorf("gc: %w", err)
	}
	return res, nil
}
