package rerank_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/norn-vault/norn/rerank"
)

// FuzzReadEgress: any input gives records or ErrEgress; records survive a
// round trip through JSON unchanged.
func FuzzReadEgress(f *testing.F) {
	for _, s := range []string{
		`{"time":"2026-12-01T10:00:00Z","host":"h:1","model":"m","query_sha256":"ab","paths":["a.md"],"tokens_in":1,"tokens_out":2,"latency_ms":3.5,"outcome":"ok"}` + "\n",
		"\n\n", `{"time":"x"}`, `{"time":"2026-12-01T10:00:00Z","paths":null}`, `{"time":"2026-12-01T10:00:00Z","zz":1}`, "[]", "{",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		recs, err := rerank.ReadEgress(strings.NewReader(in), time.Time{})
		if err != nil {
			if !errors.Is(err, rerank.ErrEgress) && !strings.HasPrefix(err.Error(), "egress:") {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		var buf bytes.Buffer
		for _, r := range recs {
			b, _ := json.Marshal(r)
			buf.Write(append(b, '\n'))
		}
		again, err := rerank.ReadEgress(&buf, time.Time{})
		if err != nil || len(again) != len(recs) {
			t.Fatalf("round trip: %d → %d, %v", len(recs), len(again), err)
		}
	})
}
