package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestCLI_Search(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "", "init")
	mustCLI(t, dir, "---\ntitle: Bloom filters\ntags: [data-structures]\n---\n# Bloom filters\n\nA bloom filter hashes items into bits.\n", "write", "tech/bloom.md")
	mustCLI(t, dir, "# Count-min sketch\n\nCounts with hashing, like a filter of counters.\n", "write", "tech/cms.md")
	mustCLI(t, dir, "# Gardening\n\nTomatoes need sun.\n", "write", "life/garden.md")

	var r map[string]any
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "", "search", "bloom", "filter", "--json")), &r); err != nil {
		t.Fatal(err)
	}
	res := r["results"].([]any)
	if r["engine"] != "bm25" || r["index_stale"] != false || len(res) == 0 || res[0].(map[string]any)["path"] != "tech/bloom.md" {
		t.Fatalf("search: %v", r)
	}
	// --no-snippets: the same hits, without snippets or lines.
	var bare map[string]any
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "", "search", "bloom", "filter", "--json", "--no-snippets")), &bare); err != nil {
		t.Fatal(err)
	}
	if b := bare["results"].([]any); len(b) != len(res) {
		t.Fatalf("--no-snippets: %v, want the hits of %v", bare, r)
	}
	for i, h := range bare["results"].([]any) {
		got, want := h.(map[string]any), res[i].(map[string]any)
		if got["path"] != want["path"] || got["score"] != want["score"] || got["snippet"] != "" || got["line"] != 0.0 || want["snippet"] == "" {
			t.Errorf("--no-snippets hit %d: %v, want %v without its snippet", i, got, want)
		}
	}
	if out := mustCLI(t, dir, "", "search", "bloom", "--no-snippets"); !strings.Contains(out, "\ntech/bloom.md  Bloom filters  (") {
		t.Errorf("--no-snippets:\n%s", out)
	}
	// An exclusion first needs no "--": an argument naming no flag is query text.
	for _, args := range [][]string{
		{"search", "-tag:data-structures", "hashing"},
		{"search", "-tag:data-structures hashing", "--limit", "5"},
		{"search", "--limit=5", "-bloom", "-v", "hashing"},
		{"search", "--", "-bloom", "hashing"},
	} {
		if out := mustCLI(t, dir, "", args...); !strings.Contains(out, "tech/cms.md") || strings.Contains(out, "tech/bloom.md") {
			t.Errorf("%q:\n%s", args, out)
		}
	}
	for _, f := range []string{"../x", ".git", "a/../b"} {
		if _, errOut, code := cli(t, dir, "", "search", "hashing", "--folder", f); code != exitError || !strings.Contains(errOut, "--folder") {
			t.Errorf("--folder %s: exit %d %s", f, code, errOut)
		}
	}
	if _, errOut, code := cli(t, dir, "", "search", "hashing", "--limit"); code != exitUsage {
		t.Errorf("--limit without a value: exit %d %s", code, errOut)
	}
	// A write made after the index was built is found by the next search.
	mustCLI(t, dir, "# Zebra\n\nStripes.\n", "write", "life/zebra.md")
	if out := mustCLI(t, dir, "", "search", "stripes"); !strings.Contains(out, "life/zebra.md") || !strings.HasPrefix(out, "1 result (bm25") {
		t.Fatalf("new note not found:\n%s", out)
	}
	// --stdin --json: one JSON line per query, ids kept, a bad query reported in line.
	in := "{\"id\":\"q1\",\"text\":\"tomatoes\"}\nhashing\n{\"id\":\"q3\",\"text\":\"\\\"unclosed\"}\n"
	out := mustCLI(t, dir, in, "search", "--stdin", "--json", "--folder", "")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 lines:\n%s", out)
	}
	var l1, l3 map[string]any
	json.Unmarshal([]byte(lines[0]), &l1)
	json.Unmarshal([]byte(lines[2]), &l3)
	if l1["id"] != "q1" || l1["results"].([]any)[0].(map[string]any)["path"] != "life/garden.md" {
		t.Fatalf("line 1: %s", lines[0])
	}
	if l3["id"] != "q3" {
		t.Fatalf("line 3: %s", lines[2])
	}
	if _, _, code := cli(t, dir, "", "search"); code != exitUsage {
		t.Fatalf("search without a query: exit %d", code)
	}
	var st map[string]any
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "", "stats", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	links := st["links"].(map[string]any)
	if st["notes"].(float64) != 4 || links["total"].(float64) != 0 || links["broken"].(float64) != 0 {
		t.Fatalf("stats: %v", st)
	}
	var ln map[string]any
	mustCLI(t, dir, "# Hub\n[[Bloom filters]] and [[nowhere]]\n", "write", "hub.md")
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "", "links", "tech/bloom.md", "--json")), &ln); err != nil {
		t.Fatal(err)
	}
	if ln["backlinks_total"].(float64) != 1 {
		t.Fatalf("links: %v", ln)
	}
	if _, _, code := cli(t, dir, "", "links", "missing.md"); code != exitError {
		t.Fatalf("links of a missing note: exit %d", code)
	}
	if out := mustCLI(t, dir, "", "reindex"); !strings.Contains(out, "index rebuilt") {
		t.Fatalf("reindex: %s", out)
	}
}

// TestCLI_DoctorFindsDamagedIndex: a damaged block that opening the index does not
// read is found by doctor (which reads the whole index), and the index is rebuilt.
func TestCLI_DoctorFindsDamagedIndex(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		var b strings.Builder
		fmt.Fprintf(&b, "# Note %d\n\n", i)
		for range 80 {
			fmt.Fprintf(&b, "w%d ", rng.IntN(3000))
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("n%03d.md", i)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustCLI(t, dir, "", "init")
	mustCLI(t, dir, "", "reindex")
	if out := mustCLI(t, dir, "", "doctor"); !strings.Contains(out, "ok    index: at HEAD") {
		t.Fatalf("doctor on a sound index:\n%s", out)
	}
	tables, _ := filepath.Glob(filepath.Join(dir, ".git", "norn", "index", "*.sst"))
	biggest, size := "", int64(0)
	for _, f := range tables {
		if fi, err := os.Stat(f); err == nil && fi.Size() > size {
			biggest, size = f, fi.Size()
		}
	}
	b, err := os.ReadFile(biggest)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xAA
	if err := os.WriteFile(biggest, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if out := mustCLI(t, dir, "", "doctor"); !strings.Contains(out, "index: was damaged") || !strings.Contains(out, "rebuilt from HEAD") {
		t.Fatalf("doctor on a damaged index:\n%s", out)
	}
	if out := mustCLI(t, dir, "", "doctor"); !strings.Contains(out, "ok    index: at HEAD") {
		t.Fatalf("doctor after the repair:\n%s", out)
	}
	if r := decode(t, mustCLI(t, dir, "", "search", "w7", "--json")); r["engine"] != "bm25" {
		t.Fatalf("search after the repair: %v", r)
	}
}

// TestReindex_ProgressOnATerminal: on a terminal (script(1) gives the real binary
// one) reindex draws a bar that ends full and on its own line, before the summary.
func TestReindex_ProgressOnATerminal(t *testing.T) {
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("no script(1) here to give norn a terminal")
	}
	bin := buildNorn(t)
	dir := newVault(t)
	for i := range 3 {
		mustCLI(t, dir, fmt.Sprintf("# Note %d\n", i), "write", fmt.Sprintf("n%d.md", i))
	}
	cmd := exec.Command(script, "-qec", "'"+bin+"' reindex", "/dev/null")
	cmd.Env = append(os.Environ(), "NORN_VAULT="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("reindex on a terminal: %v\n%q", err, out)
	}
	bars := regexp.MustCompile(`indexing \[=*\s*\] (\d+)/(\d+)`).FindAllSubmatch(out, -1)
	if len(bars) == 0 {
		t.Fatalf("no progress bar in %q", out)
	}
	end := bars[len(bars)-1]
	if string(end[1]) != string(end[2]) || !regexp.MustCompile(`\] \d+/\d+\r?\n+index rebuilt at`).Match(out) {
		t.Fatalf("the bar does not end full on its own line: %q", out)
	}
}
