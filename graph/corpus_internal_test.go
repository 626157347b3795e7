package graph

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/norn-vault/norn/bench/metric"
	"github.com/norn-vault/norn/note"
)

// corporaDir is ../shared/corpora (relative to the repository) seen from this package.
var corporaDir = filepath.Join("..", "..", "shared", "corpora")

// benchDir holds the bench scripts and the known-item query sets.
var benchDir = filepath.Join("..", "..", "shared", "bench")

func needDir(tb testing.TB, dir string) {
	tb.Helper()
	if _, err := os.Stat(dir); err != nil {
		tb.Skipf("corpus %s not present (%v): skipping", dir, err)
	}
}

// vaultDocs parses every .md file under root (skipping dot folders), in path
// order. Notes that fail to parse are counted in *bad and skipped.
func vaultDocs(tb testing.TB, root string, bad *int) []Doc {
	tb.Helper()
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	sort.Strings(paths)
	docs := make([]Doc, 0, len(paths))
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		np := note.Path(filepath.ToSlash(rel))
		n, err := note.Parse(np, raw)
		if err != nil {
			if bad != nil {
				*bad++
			}
			n = plainNote(np, raw)
		}
		docs = append(docs, Doc{Path: np, Revision: "r1", Note: n})
	}
	return docs
}

// rawVault reads every .md file under root as (path, bytes), without parsing.
func rawVault(tb testing.TB, root string) []rawNote {
	tb.Helper()
	var out []rawNote
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			raw, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			out = append(out, rawNote{note.Path(filepath.ToSlash(rel)), raw})
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

type rawNote struct {
	path note.Path
	raw  []byte
}

// plainNote is how a caller indexes a note that does not parse: as plain text
// titled by its file stem.
func plainNote(p note.Path, raw []byte) *note.Note {
	return &note.Note{Path: p, Raw: raw, Title: note.Stem(p), TitleSource: note.TitleFromPath}
}

// parsedSeq parses raw notes as it iterates (so a Rebuild benchmark includes the
// parse); notes that do not parse are indexed as plain text.
func parsedSeq(notes []rawNote) iter.Seq2[Doc, error] {
	return func(yield func(Doc, error) bool) {
		for _, r := range notes {
			n, err := note.Parse(r.path, r.raw)
			if err != nil {
				n = plainNote(r.path, r.raw)
			}
			if !yield(Doc{Path: r.path, Revision: "r1", Note: n}, nil) {
				return
			}
		}
	}
}

func sliceSeq(docs []Doc) iter.Seq2[Doc, error] {
	return func(yield func(Doc, error) bool) {
		for _, d := range docs {
			if !yield(d, nil) {
				return
			}
		}
	}
}

// irDocs turns an IR collection's docs.jsonl into notes exactly as
// bench/ir_to_vault.py writes them: docs/<id>.md with a JSON-quoted YAML title, a
// "# title" heading, a blank line and the text without its leading title.
func irDocs(tb testing.TB, corpus string) []Doc {
	tb.Helper()
	return irDocsStub(tb, corpus, nil)
}

// irDocsStub is irDocs with the text of the docs stub picks dropped (title only).
func irDocsStub(tb testing.TB, corpus string, stub func(id string) bool) []Doc {
	tb.Helper()
	f, err := os.Open(filepath.Join(corpus, "docs.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var docs []Doc
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var d struct{ ID, Title, Text string }
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			tb.Fatal(err)
		}
		if stub != nil && stub(d.ID) {
			d.Text = ""
		}
		raw := irNote(d.ID, d.Title, d.Text)
		p := note.Path("docs/" + d.ID + ".md")
		n, err := note.Parse(p, []byte(raw))
		if err != nil {
			tb.Fatalf("parse %s: %v", p, err)
		}
		docs = append(docs, Doc{Path: p, Revision: "r1", Note: n})
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return docs
}

// irNote is ir_to_vault.py's note text for one doc.
func irNote(id, title, text string) string {
	t := strings.TrimRight(strings.Join(strings.Fields(title), " "), " .")
	if t == "" {
		t = id
	}
	body := text
	if strings.HasPrefix(text, title) {
		body = strings.TrimSpace(text[len(title):])
	}
	return "---\ntitle: " + pyJSON(t) + "\n---\n# " + t + "\n\n" + strings.TrimSpace(body) + "\n"
}

// pyJSON quotes s as Python's json.dumps does (ensure_ascii).
func pyJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			switch {
			case r < 0x20 || (r >= 0x7f && r < 0x10000):
				fmt.Fprintf(&b, `\u%04x`, r)
			case r >= 0x10000:
				r1, r2 := utf16.EncodeRune(r)
				fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
			default:
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

type irQuery struct {
	ID   string
	Text string
}

func readQueries(tb testing.TB, path string) []irQuery {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var qs []irQuery
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var q struct {
			ID   json.RawMessage `json:"id"`
			QID  json.RawMessage `json:"qid"`
			Text string          `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			tb.Fatal(err)
		}
		id := q.ID
		if id == nil {
			id = q.QID
		}
		qs = append(qs, irQuery{ID: jsonID(id), Text: q.Text})
	}
	return qs
}

func jsonID(m json.RawMessage) string {
	var s string
	if json.Unmarshal(m, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(m, &n) == nil {
		return n.String()
	}
	return string(m)
}

func readQrels(tb testing.TB, path string) metric.Qrels {
	tb.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	q, err := metric.ParseQrels(raw)
	if err != nil {
		tb.Fatalf("qrels %s: %v", path, err)
	}
	return q
}
