package main

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server"
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

// TestCLI_ReindexBesideServer: norn reindex while a norn serve holds the index
// asks that server to rebuild it (its local endpoint); with the index held by a
// process that does not answer, it says what holds the index and how to get a
// rebuild, instead of "index locked by another process".
func TestCLI_ReindexBesideServer(t *testing.T) {
	dir := newVault(t)
	mustCLI(t, dir, "# Quokka\nThe zyzzyva note.\n", "write", "new.md")
	ctx := context.Background()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	v, err := server.Open(ctx, dir, repo.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	l, err := server.StartLocal(ctx, v, quiet)
	if err != nil {
		t.Fatal(err)
	}
	head := strings.TrimSpace(git(t, dir, "rev-parse", "HEAD"))
	m := decode(t, mustCLI(t, dir, "", "reindex", "--json"))
	if m["via"] != "norn serve" || m["index_commit"] != head {
		t.Fatalf("reindex beside a server: %v; want rebuilt by it at %s", m, head)
	}
	if out := mustCLI(t, dir, "", "search", "zyzzyva"); !strings.Contains(out, "new.md") {
		t.Fatalf("search after the server's rebuild: %s", out)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	_, errs, code := cli(t, dir, "", "reindex")
	if code != exitError || !strings.Contains(errs, "keeps it current") || !strings.Contains(errs, "stop that process") {
		t.Fatalf("reindex beside a silent holder: exit %d %q", code, errs)
	}
}
