package main

import (
	"strings"
	"testing"
)

// TestCLI_SearchFlagsAfterQuery: flags after the query are flags; an unknown
// "--flag" is a usage error naming it (not a query for "--author x"), while a
// single-dash word stays an exclusion in the query.
func TestCLI_SearchFlagsAfterQuery(t *testing.T) {
	dir := linkVault(t)
	m := decode(t, mustCLI(t, dir, "", "search", "bloom", "--limit", "1", "--json"))
	if rs := m["results"].([]any); len(rs) != 1 {
		t.Fatalf("search bloom --limit 1: %v", m)
	}
	_, errs, code := cli(t, dir, "", "search", "pdf", "--author", "x")
	if code != exitUsage || !strings.Contains(errs, "--author") || strings.Contains(errs, "doubled") {
		t.Fatalf("search pdf --author x: exit %d %q; want 2 naming --author", code, errs)
	}
	if out := mustCLI(t, dir, "", "search", "filters", "-sketch", "--json"); strings.Contains(out, "tech/cms.md") {
		t.Fatalf("search filters -sketch kept the excluded note:\n%s", out)
	}
}

// TestCLI_NeighborhoodTypes: --types refuses a type that is neither link nor
// registered, listing the registered ones; registered ones are followed.
func TestCLI_NeighborhoodTypes(t *testing.T) {
	dir := linkVault(t)
	_, errs, code := cli(t, dir, "", "neighborhood", "tech/bloom.md", "--types", "link,bogus")
	if code != exitUsage || !strings.Contains(errs, `"bogus"`) || !strings.Contains(errs, "supports, contradicts") {
		t.Fatalf("--types bogus: exit %d %q; want 2 listing the registered types", code, errs)
	}
	m := decode(t, mustCLI(t, dir, "", "neighborhood", "tech/bloom.md", "--types", "link", "--json"))
	if nodes := m["nodes"].([]any); len(nodes) < 2 {
		t.Fatalf("--types link: %v", m)
	}
	mustCLI(t, dir, "", "neighborhood", "tech/bloom.md", "--types", "supports")
}
