package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// defaultConfig seeds a new vault's .norn/config.yaml; docs/config.md lists every key.
const defaultConfig = `# Norn vault settings (docs/config.md lists every key and its default).
gates:
  profile: default        # default | strict | off
privacy:
  folders: [personal-notes/]
inbox: inbox/
`

func runInit(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("init", g)
	branch := ""
	fs.Var(checkedString{&branch, nonEmpty}, "branch", "branch of a new repository (default main); an adopted repository keeps its own")
	args, err := parseArgs(fs, args, 0, 1)
	if err != nil {
		return err
	}
	dir := vaultDir(e, g)
	if len(args) == 1 {
		dir = args[0]
	}
	settings := vault.NewSettings()
	// A folder Obsidian opened gets .gitignore lines for its per-device state in
	// the first commit (docs/cli.md, "init"); a repository with history is left
	// alone.
	var ignored []string
	amend := map[string]func([]byte) []byte{}
	if isObsidianVault(dir) {
		amend[".gitignore"] = func(cur []byte) []byte {
			var out []byte
			out, ignored = obsidianGitignore(cur)
			return out
		}
	}
	v, res, err := repo.Init(ctx, dir, repo.InitOptions{
		Options: repo.Options{Logger: logger(e, g), Gate: settings.Gate, PathGate: settings.PathGate},
		Branch:  branch,
		Seed:    map[string][]byte{string(vault.ConfigPath): []byte(defaultConfig)},
		Amend:   amend,
	})
	if err != nil {
		return err
	}
	defer v.Close()
	if g.json {
		out := map[string]any{"dir": v.Dir(), "created": res.Created, "adopted": res.Adopted, "head": v.Head()}
		if res.Imported != nil {
			out["commit"] = res.Imported.Commit
			out["imported"] = len(res.Imported.Changes)
		}
		out["gitignore_added"] = append([]string{}, ignored...) // [] when none
		return printJSON(e, out)
	}
	if ignored != nil {
		fmt.Fprintf(e.stdout, "an Obsidian vault: .gitignore now ignores %s\n", strings.Join(ignored, ", "))
	}
	switch {
	case res.Created && res.Imported != nil:
		fmt.Fprintf(e.stdout, "created vault %s: imported %s in commit %s\n", v.Dir(), plural(len(res.Imported.Changes), "file"), res.Imported.Commit.Short())
	case res.Imported != nil:
		fmt.Fprintf(e.stdout, "adopted git repository %s: imported %s in commit %s\n", v.Dir(), plural(len(res.Imported.Changes), "file"), res.Imported.Commit.Short())
	default:
		fmt.Fprintf(e.stdout, "adopted git repository %s at %s (history kept, nothing rewritten)\n", v.Dir(), v.Head().Short())
	}
	return nil
}
