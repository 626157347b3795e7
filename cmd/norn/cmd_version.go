package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// commitStamp is the commit `make build` stamps in with -ldflags -X, for builds
// the Go toolchain did not stamp with VCS information (-buildvcs=false, a git
// worktree it does not read). It is never written at run time.
var commitStamp string

// buildInfo is what the binary knows of how it was built.
type buildInfo struct {
	// Version is the module version (a tag or a pseudo-version, which carries
	// the commit), or "devel" with "+COMMIT" when the build had none.
	Version string `json:"version"`
	// Commit is the VCS commit the binary was built from ("" when not stamped),
	// Modified whether the working tree had changes.
	Commit   string `json:"commit"`
	Modified bool   `json:"modified"`
	Go       string `json:"go"`
}

// readBuildInfo reads the build info the Go toolchain stamped into the binary.
func readBuildInfo() buildInfo {
	out := buildInfo{Version: "devel", Go: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = &debug.BuildInfo{}
	}
	out.Commit = commitStamp
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			out.Commit = s.Value
		case "vcs.modified":
			out.Modified = s.Value == "true"
		}
	}
	if c, ok := strings.CutSuffix(out.Commit, "-dirty"); ok {
		out.Commit, out.Modified = c, true
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		out.Version = v
	} else if out.Commit != "" {
		out.Version += "+" + out.Commit[:min(12, len(out.Commit))]
		if out.Modified {
			out.Version += ".dirty"
		}
	}
	return out
}

// buildVersion is the version norn reports: `norn version` and MCP's
// serverInfo.version.
func buildVersion() string { return readBuildInfo().Version }

func runVersion(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("version", g)
	if _, err := parseArgs(fs, args, 0, 0); err != nil {
		return err
	}
	bi := readBuildInfo()
	if g.json {
		return printJSON(e, bi)
	}
	fmt.Fprintf(e.stdout, "norn %s\n", bi.Version)
	if bi.Commit != "" && !strings.Contains(bi.Version, bi.Commit[:min(12, len(bi.Commit))]) || bi.Commit != "" && bi.Modified {
		mod := ""
		if bi.Modified {
			mod = " (with uncommitted changes)"
		}
		fmt.Fprintf(e.stdout, "commit %s%s\n", bi.Commit, mod)
	}
	fmt.Fprintf(e.stdout, "built with %s\n", bi.Go)
	return nil
}
