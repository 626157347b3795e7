package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/norn-vault/norn/bench/metric"
)

// Query is one line of a queries file.
type Query struct {
	ID   string
	Text string
}

// LoadQueries reads {"id" or "qid", "text"} lines.
func LoadQueries(path string) ([]Query, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read queries: %w", err)
	}
	var out []Query
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		var q struct {
			ID   any    `json:"id"`
			QID  any    `json:"qid"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			return nil, fmt.Errorf("queries %s line %d: %w", path, i+1, err)
		}
		id := q.ID
		if id == nil {
			id = q.QID
		}
		if id == nil {
			return nil, fmt.Errorf("queries %s line %d: no id or qid", path, i+1)
		}
		out = append(out, Query{ID: fmt.Sprint(id), Text: q.Text})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("queries %s: no queries", path)
	}
	return out, nil
}

// LoadQrels reads a qrels file (metric.ParseQrels).
func LoadQrels(path string) (metric.Qrels, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read qrels: %w", err)
	}
	q, err := metric.ParseQrels(b)
	if err != nil {
		return nil, fmt.Errorf("qrels %s %w", path, err)
	}
	return q, nil
}

// copyTree copies the regular files of src into dst, skipping files and folders
// whose names start with "." (as the anchor does for folders). It returns the files
// copied and the entries skipped.
func copyTree(ctx context.Context, src, dst string) (files, skipped int, err error) {
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if p == src {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			skipped++
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		if !d.Type().IsRegular() {
			skipped++
			return nil
		}
		files++
		return copyFile(p, out)
	})
	if err != nil {
		return 0, 0, fmt.Errorf("copy %s: %w", src, err)
	}
	return files, skipped, nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// dirBytes is the size of the files under dir.
func dirBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
