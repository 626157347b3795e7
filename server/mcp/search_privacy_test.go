package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/internal/testvault"
	"github.com/norn-vault/norn/vault"
)

// TestMCP_SearchAsIfPrivateNotesWereNot: for a caller without the private scope,
// search answers byte for byte (timings and commit ids aside) as it does in the
// same vault without its private notes — hits, scores, snippets and total — so
// neither counts nor scores tell whether a private note, word or title exists.
// Before the public view, total counted private matches (canvas: 18 visible hits,
// a total of 49 at limit 1) and scores used their statistics.
func TestMCP_SearchAsIfPrivateNotesWereNot(t *testing.T) {
	public := map[string]string{}
	for i := range 18 {
		public[fmt.Sprintf("art/n%02d.md", i)] = fmt.Sprintf("---\ntitle: Note %d\ntags: [art]\n---\n# Oil %d\n%s oil brush painting %s\n",
			i, i, repeat("canvas ", 1+i%4), repeat("palette ", i%3))
	}
	for i := range 6 {
		public[fmt.Sprintf("misc/m%d.md", i)] = fmt.Sprintf("# Misc %d\nbrush and paint, no fabric here %d\n", i, i)
	}
	all := maps.Clone(public)
	for i := range 20 {
		all[fmt.Sprintf("personal-notes/d%02d.md", i)] = fmt.Sprintf("# Canvas diary %d\ncanvas canvases quokkaplasma %s\n", i, repeat("canvas ", i%5))
	}
	for i := range 10 {
		all[fmt.Sprintf("art/p%d.md", i)] = fmt.Sprintf("---\ntitle: Canvas plan %d\nprivate: true\ntags: [art]\n---\n# Canvas\ncanvas hornbeamtoken oil\n", i)
	}
	all["art/broken.md"] = "---\ntitle: [broken\nprivate: true\n---\ncanvas canvas hornbeamtoken quokkaplasma\n" // unparsed: private all the same

	_, eAll := testmcp.NewEnv(t, all)
	_, ePub := testmcp.NewEnv(t, public)
	cAll, ctxAll := eAll.Connect(&testmcp.Agent, false)
	cPub, ctxPub := ePub.Connect(&testmcp.Agent, false)
	answer := func(env string, args map[string]any) (string, float64) {
		t.Helper()
		var r map[string]any
		if env == "all" {
			testmcp.MustCall(t, cAll, ctxAll, "search", args, &r)
		} else {
			testmcp.MustCall(t, cPub, ctxPub, "search", args, &r)
		}
		for _, k := range []string{"took_ms", "index_commit", "head_commit"} {
			delete(r, k)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		return string(b), r["total"].(float64)
	}
	totals := map[string]float64{}
	for _, q := range []string{"canvas", "canvas -quokkaplasma", "canvas -hornbeamtoken", "quokkaplasma", "hornbeamtoken",
		"canv", "canvas oil", `"canvas oil"`, "tag:art canvas", "folder:art", "canvas OR quokkaplasma", "plan", "diary", "fabric"} {
		for _, page := range []map[string]any{{"limit": 1}, {"limit": 50}, {"limit": 5, "offset": 3}, {"literal": true},
			{"folder": "art"}, {"folder": "personal-notes"}} {
			args := maps.Clone(page)
			args["query"] = q
			got, total := answer("all", args)
			want, _ := answer("public", args)
			if got != want {
				t.Errorf("search %v without the private scope:\n%s\nthe vault without its private notes answers:\n%s", args, got, want)
			}
			if args["literal"] != nil || args["folder"] != nil {
				continue
			}
			if prev, ok := totals[q]; ok && prev != total {
				t.Errorf("search %q: total %v at %v, %v at another page", q, total, page, prev)
			}
			totals[q] = total
		}
	}
	if totals["canvas"] != 18 || totals["canvas -quokkaplasma"] != 18 || totals["canvas -hornbeamtoken"] != 18 || totals["quokkaplasma"] != 0 {
		t.Errorf("totals %v, want canvas 18 with or without exclusions, quokkaplasma 0", totals)
	}

	// The owner's view still has them.
	tc, tctx := eAll.Connect(&testmcp.Trusted, false)
	var r struct{ Total int }
	testmcp.MustCall(t, tc, tctx, "search", map[string]any{"query": "canvas", "limit": 1}, &r)
	if r.Total != 18+20+10+1 {
		t.Errorf("trusted: total %d, want every canvas note", r.Total)
	}
}

func repeat(s string, n int) string {
	out := ""
	for range n {
		out += s
	}
	return out
}

// TestMaintainer_PrivateFoldersFollowSettings: the index's private bits follow the
// privacy folders of .norn/config.yaml: other folders rebuild the index within one
// maintainer round (searches scan meanwhile, hiding by the new folders), and a
// search hiding private notes then leaves out the new folder's notes.
func TestMaintainer_PrivateFoldersFollowSettings(t *testing.T) {
	ctx := context.Background()
	files := testvault.HashingNotes()
	files["later/s.md"] = "# Bloom secrets\n\nA bloom filter of passwords.\n"
	v := testvault.OpenServed(t, files)
	m := &vault.Maintainer{Vault: v}
	find := func(q string, hide bool) *vault.SearchResponse {
		t.Helper()
		r, err := v.Index.Search(ctx, vault.SearchRequest{Query: q, Limit: 10, WaitForPendingWrites: true, HidePrivate: hide})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := find("bloom", true); r.Engine != vault.EngineBM25 || r.Total != 2 {
		t.Fatalf("before: %+v %+v", r, r.Hits)
	}
	if err := testvault.Write(v, ".norn/config.yaml", "privacy:\n  folders: [personal-notes/, later/]\n", "owner"); err != nil {
		t.Fatal(err)
	}
	if err := m.Round(ctx); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		r := find("bloom", true)
		if r.Total != 1 || r.Hits[0].Path != "a.md" {
			t.Fatalf("hiding private notes after the folder change (%s): %+v", r.Engine, r.Hits)
		}
		if r.Engine == vault.EngineBM25 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("index not back after the privacy change: %+v", r)
		}
	}
	if r := find("bloom", false); r.Total != 2 {
		t.Fatalf("the owner's view after the folder change: %+v", r.Hits)
	}

	// A note made private by its frontmatter, and back: catch-up judges it again.
	body := files["a.md"]
	for _, c := range []struct {
		content string
		want    int
	}{{"---\nprivate: yes\n---\n" + body, 0}, {body, 1}} {
		if err := testvault.Write(v, "a.md", c.content, "owner"); err != nil {
			t.Fatal(err)
		}
		if r := find("bloom", true); r.Engine != vault.EngineBM25 || r.Total != c.want {
			t.Fatalf("hiding private notes after a.md became %q: %s %+v", c.content[:10], r.Engine, r.Hits)
		}
		if r := find("bloom", false); r.Total != 2 {
			t.Fatalf("the owner's view after a.md became %q: %+v", c.content[:10], r.Hits)
		}
	}
}
