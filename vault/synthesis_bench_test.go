package vault_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// BenchmarkSynthesisStatus measures synthesis_status's walk (Viewer.SynthesisStatus
// with a fresh budget, as one response) in a vault of 10,000 notes: flat, a
// summary of 32 sources; nested, a summary of 4 registered summaries of 31
// sources each (128 checks, the whole default budget). index answers from the
// synthesis table of an index at HEAD; scan from the registration files at HEAD
// (a second process, the index locked). Each reports the p50 and p95 of a call.
func BenchmarkSynthesisStatus(b *testing.B) {
	const n = 10000
	ctx := context.Background()
	files := map[string]string{"top.md": "# Top\n", "nested.md": "# Nested\n"}
	for i := range n {
		files[fmt.Sprintf("n/%02d/%05d.md", i%100, i)] = fmt.Sprintf("# Note %d\nBody of note %d with some words.\n", i, i)
	}
	v := benchVault(b, files)
	c, err := v.Viewer(ctx, vault.Actor{Author: synthAgent, Roles: []string{"agent"}, Private: true})
	if err != nil {
		b.Fatal(err)
	}
	src := func(i int) note.Path { return note.Path(fmt.Sprintf("n/%02d/%05d.md", i%100, i)) }
	reg := func(summary note.Path, sources []note.Path) {
		if _, err := c.RegisterSynthesis(ctx, vault.SynthesisRequest{Summary: summary, Sources: sources, Author: synthAgent, Roles: []string{"agent"}}); err != nil {
			b.Fatal(err)
		}
	}
	var flat, mids []note.Path
	for i := range 32 {
		flat = append(flat, src(i))
	}
	reg("top.md", flat)
	for m := range 4 {
		mid := src(1000 + m)
		var ss []note.Path
		for i := range 31 {
			ss = append(ss, src(2000+m*31+i))
		}
		reg(mid, ss)
		mids = append(mids, mid)
	}
	reg("nested.md", mids)
	if _, err := v.Index.Graph(ctx); err != nil {
		b.Fatal(err)
	}
	x := vault.OpenIndexer(ctx, v.Repo(), graph.Options{}, nil)
	b.Cleanup(func() { x.Close() })
	scan := vault.Assemble(v.Repo(), v.Settings, x)
	cs, err := scan.Viewer(ctx, vault.Actor{Author: synthAgent, Private: true})
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		c       *vault.Viewer
		summary note.Path
		checks  int
	}{
		{"flat/index", c, "top.md", 32}, {"flat/scan", cs, "top.md", 32},
		{"nested/index", c, "nested.md", 128}, {"nested/scan", cs, "nested.md", 128},
	} {
		b.Run(fmt.Sprintf("notes=%d/%s", n, tc.name), func(b *testing.B) {
			b.ReportAllocs()
			var lat []time.Duration
			for b.Loop() {
				t0 := time.Now()
				st, err := tc.c.SynthesisStatus(ctx, tc.summary, nil)
				lat = append(lat, time.Since(t0))
				if err != nil || st.Status != vault.SynthesisCurrent || st.Checked != tc.checks {
					b.Fatalf("%+v, %v", st, err)
				}
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e6, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*95/100].Nanoseconds())/1e6, "p95-ms")
		})
	}
}

// benchVault imports files into a new vault and opens it with its index built.
func benchVault(b *testing.B, files map[string]string) *vault.Vault {
	b.Helper()
	ctx := context.Background()
	dir := b.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	owner := repo.Author{Name: "o", Email: "o@x"}
	v0, _, err := repo.Init(ctx, dir, repo.InitOptions{Options: repo.Options{Owner: owner}})
	if err != nil {
		b.Fatal(err)
	}
	v0.Close()
	v, err := vault.Open(ctx, dir, vault.Options{Repo: repo.Options{Owner: owner}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { v.Close() })
	return v
}
