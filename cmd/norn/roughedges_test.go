package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server"
	"github.com/norn-vault/norn/vault"
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
	// A type the vault's edges have, though no longer registered (a hand edit, or
	// a type since dropped), is followed.
	old := "---\ntitle: Old\nedges:\n  - to: \"[[bloom]]\"\n    type: old_kind\n    why: Written before the type was dropped from edges.types.\n---\n# Old\n"
	if err := os.WriteFile(filepath.Join(dir, "old.md"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, dir, "", "commit")
	m = decode(t, mustCLI(t, dir, "", "neighborhood", "tech/bloom.md", "--types", "old_kind", "--json"))
	if edges := m["edges"].([]any); len(edges) != 1 {
		t.Fatalf("--types old_kind: %v", m)
	}
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
	v, err := vault.Open(ctx, dir, vault.Options{Repo: repo.Options{Logger: quiet}})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	l, err := server.StartLocal(ctx, v, server.LocalOptions{Logger: quiet})
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

// TestCLI_LogColumns: log's op and author columns are cut and padded as git log
// --format's %<(N,trunc) cuts and pads them, so that long ones do not run into
// the next column; git log is the oracle.
func TestCLI_LogColumns(t *testing.T) {
	dir := linkVault(t)
	long := "An Author With A Very Long Name Indeed"
	mustCLI(t, dir, "", "archive", "tech/cms.md", "--reason", "superseded", "--author", long)
	mustCLI(t, dir, "# Q\n", "write", "q.md", "--author", "Bo")
	out := strings.Split(strings.TrimSpace(mustCLI(t, dir, "", "log", "--limit", "2")), "\n")
	want := strings.Split(strings.TrimSpace(git(t, dir, "log", "-2", "--date=format:%Y-%m-%d %H:%M",
		"--format=%<(12,trunc)%H  %ad  XX  %<(16,trunc)%an  %s")), "\n")
	ops := []string{column("write", logOpWidth), "archive (superseded)"}
	if len(out) != 2 || len(want) != 2 {
		t.Fatalf("log: %q", out)
	}
	for i := range out {
		w := strings.Replace(want[i], "XX", ops[i], 1)
		if got := out[i][12:]; got != w[12:] { // git marks its cut hash with ".."; ours is the short id
			t.Errorf("log line %d:\n got %q\nwant %q", i, out[i], w)
		}
	}
	if strings.Count(out[1], long) != 0 || !strings.Contains(out[1], "An Author With..") {
		t.Errorf("long author not cut: %q", out[1])
	}
}
