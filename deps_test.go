package norn

import (
	"os/exec"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/norn-vault/norn"

// The layers, top to bottom (docs/architecture.md draws them): the surfaces, the
// vault (the application layer), the parts, and note under everything. A layer
// imports only the layers below it: surfaces may import vault and the parts (for
// their types); vault imports parts; parts never import vault; vault never
// imports a surface. Siblings within the parts do not import each other beyond
// the table.
var (
	// parts are the packages below the vault layer.
	parts = []string{"note", "config", "repo", "graph", "hooks", "rerank", "ledger", "sync/remote", "sync/feed", "errcode"}
	// vaultLayer is the application layer: parts and nothing above.
	vaultLayer = append([]string{}, parts...)
	// surface is what a surface may import: vault and the parts.
	surface = append([]string{"vault"}, parts...)
)

// allowed lists, for each package of ours, the packages of ours it may import
// (DESIGN.md §6: imports point down, siblings never import each other). A package
// missing from this table fails the test, so a new package must say where it sits.
var allowed = map[string][]string{
	"":            {},
	"note":        {},
	"config":      {"note"},
	"repo":        {"note"},
	"graph":       {"note"},
	"hooks":       {"note", "config"},
	"rerank":      {"note"},
	"ledger":      {"note", "repo"},
	"sync/remote": {"note", "repo", "config"},
	"sync/feed":   {"note", "repo"},
	"errcode":     {"note", "config", "repo", "graph", "hooks", "rerank", "sync/remote"},
	"vault":       vaultLayer,
	// The surfaces.
	"server/auth":  surface,
	"server/mcp":   append([]string{"server/auth"}, surface...),
	"server/web":   append([]string{"server/auth"}, surface...),
	"server":       append([]string{"server/auth", "server/mcp", "server/web"}, surface...),
	"bench/metric": {},
	"bench":        append([]string{"bench/metric"}, surface...),
	"cmd/norn":     append([]string{"server", "server/auth", "server/mcp", "server/web", "bench", "bench/metric"}, surface...),
}

func TestImportsPointDown(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := rel(fields[0])
		if strings.HasPrefix(pkg, "internal/") || strings.Contains(pkg, "/internal/") {
			continue // internal test helpers are checked through their importers
		}
		ok, known := allowed[pkg]
		if !known {
			t.Errorf("package %q is not in deps_test.go's table: add it with the packages it may import", pkg)
			continue
		}
		seen++
		okSet := map[string]bool{}
		for _, p := range ok {
			okSet[p] = true
		}
		for _, imp := range fields[1:] {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			dep := rel(imp)
			if strings.HasPrefix(dep, pkg+"/internal") {
				continue
			}
			if !okSet[dep] {
				t.Errorf("%s imports %s, which it may not (allowed: %s)", pkg, dep, strings.Join(sorted(ok), ", "))
			}
		}
	}
	if seen < 3 {
		t.Fatalf("go list saw only %d of our packages; is the module path %q right?", seen, module)
	}
}

func rel(importPath string) string {
	if importPath == module {
		return ""
	}
	return strings.TrimPrefix(importPath, module+"/")
}

func sorted(s []string) []string {
	c := append([]string(nil), s...)
	sort.Strings(c)
	return c
}
