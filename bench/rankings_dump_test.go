package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestDumpRankings writes the shared sets' BM25 rankings to $NORN_RANK_DUMP (a
// folder) for offline study; skipped unless set.
func TestDumpRankings(t *testing.T) {
	dump := os.Getenv("NORN_RANK_DUMP")
	if dump == "" {
		t.Skip("NORN_RANK_DUMP not set")
	}
	for _, s := range studySets(t) {
		rs := s.rankings(t, 30)
		b, _ := json.Marshal(rs)
		if err := os.WriteFile(filepath.Join(dump, s.name+".json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
