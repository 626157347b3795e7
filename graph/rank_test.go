package graph_test

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/norn-vault/norn/bench/metric"
	"github.com/norn-vault/norn/graph"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// TestRank_Golden ranks the fixture of testdata/rank (30 notes, 20 queries, each
// with the note it should find) and compares recall@1, recall@5, MRR and every
// query's rank and top three with testdata/rank/golden.txt. Any ranking change
// must update the golden in the same change: go test ./graph -run TestRank_Golden -update.
func TestRank_Golden(t *testing.T) {
	root := filepath.Join("testdata", "rank")
	var docs []graph.Doc
	notes := map[string]string{}
	err := filepath.WalkDir(filepath.Join(root, "notes"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(filepath.Join(root, "notes"), p)
		notes[filepath.ToSlash(rel)] = string(raw)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	docs = mkDocs(t, notes)
	ix, _ := openIndex(t, graph.Options{})
	if err := ix.Rebuild(context.Background(), "golden", graph.DocRecords(seq(docs)), nil); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(root, "queries.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out strings.Builder
	qrels, run := metric.Qrels{}, map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		q, want, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("bad line %q", line)
		}
		res := search(t, ix, q, graph.SearchOptions{Limit: 10})
		rank := 0
		var top []string
		for i, h := range res.Hits {
			if i < 3 {
				top = append(top, string(h.Path))
			}
			if string(h.Path) == want && rank == 0 {
				rank = i + 1
			}
			run[q] = append(run[q], string(h.Path))
		}
		qrels[q] = map[string]int{want: 1}
		fmt.Fprintf(&out, "%-40q rank %2d  top %s\n", q, rank, strings.Join(top, " "))
	}
	at10, at5 := metric.Score(qrels, run, 10), metric.Score(qrels, run, 5)
	fmt.Fprintf(&out, "queries %d  recall@1 %.4f  recall@5 %.4f  MRR %.4f\n", at10.Queries, at10.Recall1, at5.RecallK, at10.MRR)
	golden := filepath.Join(root, "golden.txt")
	if *update {
		if err := os.WriteFile(golden, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != out.String() {
		t.Errorf("ranking changed; if intended, run with -update and commit the golden.\n--- golden\n%s\n--- now\n%s", want, out.String())
	}
}
