package graph

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestDebugQuery prints the top hits of NORN_DEBUG_Q on NORN_DEBUG_CORPUS (an IR
// collection name). A tool for tuning; skipped unless both are set.
func TestDebugQuery(t *testing.T) {
	q, c := os.Getenv("NORN_DEBUG_Q"), os.Getenv("NORN_DEBUG_CORPUS")
	if q == "" || c == "" {
		t.Skip("set NORN_DEBUG_Q and NORN_DEBUG_CORPUS")
	}
	dir := filepath.Join(corporaDir, c)
	ix := buildIndex(t, irDocs(t, dir), Options{})
	rel := readQrels(t, filepath.Join(dir, "qrels.tsv"))[os.Getenv("NORN_DEBUG_QID")]
	res, err := ix.Search(context.Background(), q, SearchOptions{Limit: 15, Literal: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range res.Hits {
		id := string(h.Path[5 : len(h.Path)-3])
		fmt.Printf("%2d %-6s rel=%d %.3f %v | %s\n", i+1, id, rel[id], h.Score, h.Matched, h.Title)
	}
	fmt.Println("relevant:", rel)
}
