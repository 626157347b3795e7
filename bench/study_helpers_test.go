package bench

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/norn-vault/norn/bench/metric"
)

const sharedDir = "../../shared"

// studySet is one of the shared collections: notes, queries and judgements.
type studySet struct {
	name, notes, corpus, queries, qrels string
}

// studySets lists the shared sets present; the test is skipped without ../shared.
// NORN_STUDY_SETS (comma-separated names) narrows the list.
func studySets(t *testing.T) []studySet {
	t.Helper()
	if _, err := os.Stat(sharedDir); err != nil {
		t.Skip("no ../shared")
	}
	c := filepath.Join(sharedDir, "corpora")
	q := filepath.Join(sharedDir, "bench", "queries")
	all := []studySet{
		{name: "cranfield", corpus: filepath.Join(c, "ir-cranfield")},
		{name: "cisi", corpus: filepath.Join(c, "ir-cisi")},
		{name: "cacm", corpus: filepath.Join(c, "ir-cacm")},
		{name: "obsidian-hub", notes: filepath.Join(c, "vault-obsidian-hub", "notes"),
			queries: filepath.Join(q, "obsidian-hub.queries.jsonl"), qrels: filepath.Join(q, "obsidian-hub.qrels.tsv")},
		{name: "cpp-docs", notes: filepath.Join(c, "md-cpp-docs", "notes"),
			queries: filepath.Join(q, "cpp-docs.queries.jsonl"), qrels: filepath.Join(q, "cpp-docs.qrels.tsv")},
	}
	want := map[string]bool{}
	for _, n := range filepath.SplitList(os.Getenv("NORN_STUDY_SETS")) {
		for _, m := range splitComma(n) {
			want[m] = true
		}
	}
	var out []studySet
	for _, s := range all {
		if s.corpus != "" {
			s.queries = filepath.Join(s.corpus, "queries.jsonl")
			s.qrels = filepath.Join(s.corpus, "qrels.tsv")
		}
		if _, err := os.Stat(s.queries); err != nil {
			continue
		}
		if len(want) > 0 && !want[s.name] {
			continue
		}
		out = append(out, s)
	}
	return out
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}

// rankings builds the set's index and returns its queries' top depth results.
func (s studySet) rankings(t *testing.T, depth int) map[string][]Ranked {
	t.Helper()
	notes := s.notes
	if s.corpus != "" {
		notes = t.TempDir()
		if err := IRNotes(s.corpus, notes); err != nil {
			t.Fatal(err)
		}
	}
	qs, err := LoadQueries(s.queries)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	rs, err := Rankings(context.Background(), notes, t.TempDir(), qs, depth, log)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func (s studySet) judgements(t *testing.T) metric.Qrels {
	t.Helper()
	q, err := LoadQrels(s.qrels)
	if err != nil {
		t.Fatal(err)
	}
	return q
}
