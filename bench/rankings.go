package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// Ranked is one result of a BM25 ranking kept for the rerank study: what the
// reranker would be given for it.
type Ranked struct {
	Path     string  `json:"path"`
	Title    string  `json:"title"`
	Revision string  `json:"revision"`
	Score    float64 `json:"score"`
	Text     string  `json:"text"` // the best section's snippet
}

// Rankings builds a throw-away vault and index from notesDir (in dir, a new
// empty folder) and returns each query's top depth BM25 results.
func Rankings(ctx context.Context, notesDir, dir string, queries []Query, depth int, log *slog.Logger) (map[string][]Ranked, error) {
	if log == nil {
		log = slog.Default()
	}
	if _, _, err := copyTree(ctx, notesDir, dir); err != nil {
		return nil, err
	}
	v, _, err := repo.Init(ctx, dir, repo.InitOptions{Options: repo.Options{Logger: log}})
	if err != nil {
		return nil, err
	}
	defer v.Close()
	settings := vault.NewSettings()
	settings.Bind(v)
	cfg, _, _ := settings.Current(ctx)
	x := vault.OpenIndexer(ctx, v, vault.SearchOptionsFrom(cfg, log), log)
	defer x.Close()
	if err := x.Rebuild(ctx, nil); err != nil {
		return nil, err
	}
	out := make(map[string][]Ranked, len(queries))
	for _, q := range queries {
		resp, err := x.Search(ctx, vault.SearchRequest{Query: q.Text, Limit: depth, Literal: true})
		if err != nil {
			return nil, fmt.Errorf("bench: query %s: %w", q.ID, err)
		}
		rs := make([]Ranked, 0, len(resp.Hits))
		for _, h := range resp.Hits {
			rs = append(rs, Ranked{Path: string(h.Path), Title: h.Title, Revision: h.Revision, Score: h.Score, Text: h.Snippet})
		}
		out[q.ID] = rs
	}
	return out, nil
}

// IRNotes writes an IR collection's docs.jsonl as notes under out/docs/<id>.md,
// as ../shared/bench/ir_to_vault.py does, so a result's file stem is its doc id.
func IRNotes(corpus, out string) error {
	f, err := os.Open(filepath.Join(corpus, "docs.jsonl"))
	if err != nil {
		return fmt.Errorf("ir notes: %w", err)
	}
	defer f.Close()
	if err := os.MkdirAll(filepath.Join(out, "docs"), 0o755); err != nil {
		return fmt.Errorf("ir notes: %w", err)
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var d struct{ ID, Title, Text string }
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return fmt.Errorf("ir notes: %w", err)
		}
		title := strings.TrimRight(strings.Join(strings.Fields(d.Title), " "), " .")
		if title == "" {
			title = d.ID
		}
		body := d.Text
		if d.Title != "" && strings.HasPrefix(body, d.Title) {
			body = strings.TrimSpace(body[len(d.Title):])
		}
		tj, _ := json.Marshal(title)
		note := "---\ntitle: " + string(tj) + "\n---\n# " + title + "\n\n" + strings.TrimSpace(body) + "\n"
		if err := os.WriteFile(filepath.Join(out, "docs", d.ID+".md"), []byte(note), 0o644); err != nil {
			return fmt.Errorf("ir notes: %w", err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("ir notes: %w", err)
	}
	return nil
}
