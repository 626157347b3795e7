package web_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// hubCorpus is the obsidian-hub vault's notes (../shared/corpora, beside the
// repository).
var hubCorpus = filepath.Join("..", "..", "..", "shared", "corpora", "vault-obsidian-hub", "notes")

// TestBrowser_Perf measures, in the browser, the time to first render of a note
// and of the hubs graph on obsidian-hub (6,571 notes): from navigation start to
// the frame after the view rendered (the page's nornTimings), over fresh page
// loads; and the page's weight. Run with NORN_WEB_PERF=1 (it imports the corpus
// first, about a minute): docs/performance.md has the figures.
func TestBrowser_Perf(t *testing.T) {
	if os.Getenv("NORN_WEB_PERF") == "" {
		t.Skip("set NORN_WEB_PERF=1 to measure the explorer on obsidian-hub")
	}
	if _, err := os.Stat(hubCorpus); err != nil {
		t.Skipf("obsidian-hub corpus not found at %s (see ../shared/corpora/README.md, relative to the repository): %v", hubCorpus, err)
	}
	needBrowser(t)
	start := time.Now()
	s, err := startServer(func(dir string) error { return copyTree(hubCorpus, dir) })
	if err != nil {
		t.Fatal(err)
	}
	defer s.stop()
	t.Logf("imported and serving obsidian-hub in %v", time.Since(start))

	weight(t, s.base)
	tb := newTab(t)
	tb.login(s, "owner")
	tb.open("#/hubs")
	hub := eval[string](tb, `nornGraph.nodes().sort((a, b) => b.data("degree") - a.data("degree"))[0].id()`)
	t.Logf("the busiest hub: %s", hub)
	const runs = 7
	for _, route := range []struct{ name, hash string }{
		{"note", "#/note/" + hub},
		{"hubs", "#/hubs"},
	} {
		var ms, api, script []float64
		for range runs {
			tb.do(chromedp.Navigate("about:blank"), chromedp.Navigate(s.base+"/"+route.hash))
			tb.waitJS(fmt.Sprintf(`window.nornTimings && nornTimings[%q] !== undefined`, route.name))
			ms = append(ms, eval[float64](tb, fmt.Sprintf(`nornTimings[%q]`, route.name)))
			script = append(script, eval[float64](tb, `nornTimings.script`))
			api = append(api, eval[float64](tb, `Math.max(...performance.getEntriesByType("resource").filter(e => /\/web\/api\/(note|hubs)/.test(e.name)).map(e => e.duration))`))
		}
		slices.Sort(ms)
		slices.Sort(api)
		slices.Sort(script)
		t.Logf("%s: first render median %.0f ms (min %.0f, max %.0f) over %d loads; the script started at %.0f ms (median); its API call median %.0f ms",
			route.name, ms[runs/2], ms[0], ms[runs-1], runs, script[runs/2], api[runs/2])
	}
}

// weight logs the bytes of the page: the shell and every asset (the graph
// library's chunk is fetched by the graph views only), raw and gzipped.
func weight(t *testing.T, base string) {
	t.Helper()
	var raw, gz int
	paths := []string{"/"}
	assets, err := os.ReadDir(filepath.Join(distDir, "assets"))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range assets {
		paths = append(paths, "/assets/"+a.Name())
	}
	for _, p := range paths {
		resp, err := http.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var z bytes.Buffer
		w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
		w.Write(b)
		w.Close()
		raw += len(b)
		gz += z.Len()
		t.Logf("%s: %d bytes (%d gzipped)", p, len(b), z.Len())
	}
	out, _ := json.Marshal(map[string]int{"raw": raw, "gzip": gz})
	t.Logf("page weight: %s", out)
}
