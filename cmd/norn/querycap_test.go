package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/norn-vault/norn/graph"
)

// TestSearch_QueryCap: `norn search` with a query over graph.MaxQueryBytes exits
// with the usage code, naming the limit and the size given, without echoing the
// query; in a --stdin run it is that line's error and the run goes on.
func TestSearch_QueryCap(t *testing.T) {
	dir := newVault(t)
	mustCLI(t, dir, "---\ntitle: A\n---\n# A\nalpha\n", "write", "a.md")
	long := strings.Repeat("alpha ", 1000)
	_, errOut, code := cli(t, dir, "", "search", long)
	if code != exitUsage || !strings.Contains(errOut, fmt.Sprintf("%d bytes, over the limit of %d", len(long), graph.MaxQueryBytes)) || len(errOut) > 1000 {
		t.Fatalf("exit %d: %q", code, errOut)
	}
	out := mustCLI(t, dir, long+"\nalpha\n", "search", "--stdin", "--json")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "over the limit") || !strings.Contains(lines[1], `"a.md"`) {
		t.Fatalf("--stdin: %q", out)
	}
}
