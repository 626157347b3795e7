package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// interopTimeout bounds one run of scripts/mcp-interop.sh: two first-time package
// downloads (each given at most interopFetchTimeout before the script skips) and
// about 35 s of checks.
const (
	interopTimeout      = 6 * time.Minute
	interopFetchTimeout = "120" // seconds, MCP_INTEROP_FETCH_TIMEOUT
)

// TestMCPInterop runs scripts/mcp-interop.sh on the real binary: the official MCP
// Inspector CLI and the official MCP conformance suite against `norn serve --http`
// (docs/mcp.md, "Interoperability"). Without npx or the npm registry the script exits
// 77 and the test is skipped with its message; any other non-zero exit fails it with
// the script's output.
func TestMCPInterop(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the MCP interop script fetches and runs npm packages")
	}
	if _, err := exec.LookPath("npx"); err != nil {
		t.Skip("skipped: npx not available")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("skipped: bash not available")
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "mcp-interop.sh"))
	if err != nil {
		t.Fatal(err)
	}
	bin := buildNorn(t)

	ctx, cancel := context.WithTimeout(t.Context(), interopTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, script, bin)
	cmd.Env = append(os.Environ(), "MCP_INTEROP_FETCH_TIMEOUT="+interopFetchTimeout, "MCP_INTEROP_KEEP=")
	// The script, its server and its npx children share one process group, so that
	// a timeout stops all of them: SIGTERM first (the script's trap stops the
	// server), SIGKILL to the group if they are still there.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 15 * time.Second
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err = cmd.Run()
	if ctx.Err() != nil && cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}

	var exit *exec.ExitError
	switch {
	case err == nil:
		t.Logf("scripts/mcp-interop.sh:\n%s", summaryOf(out.String()))
	case ctx.Err() != nil:
		t.Fatalf("scripts/mcp-interop.sh did not finish in %v:\n%s", interopTimeout, out.String())
	case errors.As(err, &exit) && exit.ExitCode() == 77:
		t.Skip(skipLine(out.String()))
	default:
		t.Fatalf("scripts/mcp-interop.sh: %v\n%s", err, out.String())
	}
}

// summaryOf is the script's output from its summary on (all of it if it has none).
func summaryOf(s string) string {
	if i := strings.Index(s, "== summary"); i >= 0 {
		return s[i:]
	}
	return s
}

// skipLine is the script's "skipped: …" line (its last line if it has none).
func skipLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for _, l := range lines {
		if strings.HasPrefix(l, "skipped:") {
			return l
		}
	}
	return lines[len(lines)-1]
}
