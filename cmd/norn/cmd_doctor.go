package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// machineChecks are doctor's findings about this machine's settings: machine.yaml
// (and the environment) must load, and the committed config must name no
// per-machine setting (those are ignored: listed by key and line).
func machineChecks(e *env, gitDir string, ignored []config.Warning) []check {
	var cs []check
	if _, err := loadMachine(e, gitDir); err != nil {
		cs = append(cs, check{"machine", "fail", err.Error()})
	} else {
		cs = append(cs, check{"machine", "ok", ""})
	}
	if len(ignored) == 0 {
		return append(cs, check{"config-machine-keys", "ok", ""})
	}
	keys := make([]string, len(ignored))
	for i, w := range ignored {
		keys[i] = fmt.Sprintf("%s (line %d)", w.Key, w.Line)
	}
	return append(cs, check{"config-machine-keys", "warn", fmt.Sprintf(
		"%s names per-machine settings, ignored: %s; move them to %s or the environment and remove them from the committed file",
		vault.ConfigPath, strings.Join(keys, ", "), machinePath(gitDir))})
}

// check is one finding of `norn doctor`.
type check struct {
	Name   string `json:"name"`
	Status string `json:"status"` // ok | warn | fail | skip
	Detail string `json:"detail,omitempty"`
}

type doctorReport struct {
	Vault    string            `json:"vault"`
	Head     repo.CommitID     `json:"head"`
	Checks   []check           `json:"checks"`
	Warnings []hooks.Violation `json:"warnings"`
	// Truncated says the warnings list was cut at --max-warnings.
	Truncated bool `json:"truncated,omitempty"`
}

func (r *doctorReport) add(name, status, detail string) {
	r.Checks = append(r.Checks, check{name, status, detail})
}

func runDoctor(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("doctor", g)
	maxWarn := fs.Int("max-warnings", 200, "list at most this many gate warnings")
	if _, err := parseArgs(fs, args, 0, 0); err != nil {
		return err
	}
	v, settings, err := openVault(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	rep := doctorReport{Vault: v.Dir(), Head: v.Head()}
	add := rep.add

	// Git integrity, by git itself.
	if gitBin, err := exec.LookPath("git"); err != nil {
		add("git-fsck", "skip", "the git CLI is not installed")
	} else {
		out, err := exec.CommandContext(ctx, gitBin, "-C", v.Dir(), "fsck", "--strict", "--no-progress", "--no-dangling").CombinedOutput()
		if err != nil {
			add("git-fsck", "fail", strings.TrimSpace(string(out)))
		} else {
			add("git-fsck", "ok", "")
		}
	}

	// Temporary files a crashed writer left (Open removes them when it knows of the
	// crash; after a power loss it may not).
	switch n, err := v.RemoveTempFiles(ctx); {
	case err != nil:
		add("temp-files", "fail", err.Error())
	case n > 0:
		add("temp-files", "ok", fmt.Sprintf("removed %s left by an interrupted write", plural(n, "temporary file")))
	default:
		add("temp-files", "ok", "")
	}

	// Settings.
	cfg, gates, cfgErr := settings.Current(ctx)
	if cfgErr != nil {
		add("config", "fail", cfgErr.Error()+" (the defaults are in force)")
	} else {
		add("config", "ok", "")
	}
	rep.Checks = append(rep.Checks, machineChecks(e, v.GitDir(), cfg.Ignored)...)

	// The working tree.
	changes, err := v.Changes(ctx)
	switch {
	case errors.Is(err, repo.ErrConflict):
		add("working-tree", "warn", err.Error()) // git is busy there: not a defect
	case err != nil:
		add("working-tree", "fail", err.Error())
	case len(changes) > 0:
		add("working-tree", "warn", fmt.Sprintf("%s edited outside norn; run `norn commit`", plural(len(changes), "file")))
	default:
		add("working-tree", "ok", "")
	}

	if err := doctorGates(ctx, v, gates, &rep, *maxWarn); err != nil {
		return err
	}
	doctorIndex(ctx, v, &rep)

	failed := false
	for _, c := range rep.Checks {
		failed = failed || c.Status == "fail"
	}
	if err := printDoctor(e, g, &rep); err != nil {
		return err
	}
	if failed {
		return fmt.Errorf("the vault has problems (see above)")
	}
	return nil
}

// doctorGates lints every note and every path, adding warnings to rep and the
// portable-paths and gates checks.
func doctorGates(ctx context.Context, v *vault.Vault, gates *hooks.Gates, rep *doctorReport, maxWarn int) error {
	add := rep.add
	// Gates over every note, as warnings.
	files, _, err := v.Files(ctx, "")
	if err != nil {
		return err
	}
	notes, warned := 0, 0
	for f, b := range v.Contents(ctx, files) {
		if !note.IsNote(f.Path) {
			continue
		}
		notes++
		vs := gates.Lint(f.Path, b)
		if len(vs) > 0 {
			warned++
		}
		for _, w := range vs {
			if len(rep.Warnings) >= maxWarn {
				rep.Truncated = true
				break
			}
			rep.Warnings = append(rep.Warnings, w)
		}
	}
	paths := make([]note.Path, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	if pvs := hooks.LintPaths(paths); len(pvs) > 0 {
		add("portable-paths", "warn", fmt.Sprintf("%s that a clone on Windows or macOS cannot check out (rename them with `norn mv`)", plural(len(pvs), "path problem")))
		for _, w := range pvs {
			if len(rep.Warnings) >= maxWarn {
				rep.Truncated = true
				break
			}
			rep.Warnings = append(rep.Warnings, w)
		}
	} else {
		add("portable-paths", "ok", fmt.Sprintf("%s checked", plural(len(paths), "path")))
	}
	if warned > 0 {
		add("gates", "warn", fmt.Sprintf("%s of %d break a gate rule (existing notes are not rewritten; fix them when you next edit)", plural(warned, "note"), notes))
	} else {
		add("gates", "ok", fmt.Sprintf("%s checked", plural(notes, "note")))
	}
	return nil
}

// doctorIndex checks the search index (and rebuilds it when damaged).
func doctorIndex(ctx context.Context, v *vault.Vault, rep *doctorReport) {
	add := rep.add
	x := v.Index
	commit, problem := x.Status()
	verr := x.Verify(ctx) // damage starts a rebuild, which Close waits for
	x.Close()
	switch {
	case errors.Is(verr, graph.ErrCorrupt):
		after := v.OpenIndexer(ctx)
		if c, p := after.Status(); p == "" && c == string(v.Head()) {
			add("index", "warn", fmt.Sprintf("was damaged (%v): rebuilt from HEAD", verr))
		} else {
			add("index", "fail", fmt.Sprintf("damaged (%v); rebuilding it failed: %s (`norn reindex` retries)", verr, p))
		}
		after.Close()
	case verr != nil:
		add("index", "warn", fmt.Sprintf("could not be read through: %v", verr))
	case problem != "":
		add("index", "warn", problem+" (searches scan meanwhile; `norn reindex` repairs)")
	case commit == "":
		add("index", "warn", "no search index yet; `norn reindex` builds it (the first search does too)")
	case commit != string(v.Head()):
		add("index", "ok", fmt.Sprintf("at %.12s, behind HEAD: the next search catches up", commit))
	default:
		add("index", "ok", fmt.Sprintf("at HEAD %.12s", commit))
	}

}

// printDoctor prints rep, as JSON with --json.
func printDoctor(e *env, g *globals, rep *doctorReport) error {
	if g.json {
		if err := printJSON(e, rep); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(e.stdout, "vault %s at %s\n", rep.Vault, rep.Head.Short())
		for _, c := range rep.Checks {
			line := fmt.Sprintf("  %-5s %s", c.Status, c.Name)
			if c.Detail != "" {
				line += ": " + c.Detail
			}
			fmt.Fprintln(e.stdout, line)
		}
		for _, w := range rep.Warnings {
			fmt.Fprintf(e.stdout, "  warning %s\n", w)
		}
		if rep.Truncated {
			fmt.Fprintf(e.stdout, "  … more warnings not shown (--max-warnings)\n")
		}
	}
	return nil
}
