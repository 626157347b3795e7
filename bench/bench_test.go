package bench

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestLatencyStats(t *testing.T) {
	var lat []time.Duration
	for i := 20; i >= 1; i-- { // unsorted on purpose
		lat = append(lat, time.Duration(i)*time.Millisecond)
	}
	p50, p95, mean, maxMS := latencyStats(lat)
	// The anchor's definitions: median of 1..20 is 10.5; p95 is sorted[int(0.95*19)] = sorted[18] = 19.
	if p50 != 10.5 || p95 != 19 || mean != 10.5 || maxMS != 20 {
		t.Fatalf("p50 %v p95 %v mean %v max %v", p50, p95, mean, maxMS)
	}
	if lat[0] != 20*time.Millisecond {
		t.Fatal("latencyStats sorted its argument")
	}
	if a, b, c, d := latencyStats(nil); a+b+c+d != 0 {
		t.Fatal("empty")
	}
}

// TestFindAnchor: the anchor script is found in a bench/ folder above the corpus
// (the shared material's layout), and not found when there is none.
func TestFindAnchor(t *testing.T) {
	root := t.TempDir()
	notes := filepath.Join(root, "shared", "corpora", "x", "notes")
	if err := os.MkdirAll(notes, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := FindAnchor(notes); got != "" {
		t.Fatalf("no script anywhere: found %q", got)
	}
	script := filepath.Join(root, "shared", "bench", "fts5_baseline.py")
	os.MkdirAll(filepath.Dir(script), 0o755)
	if err := os.WriteFile(script, []byte("# anchor\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := FindAnchor(notes); got != script {
		t.Fatalf("found %q, want %q", got, script)
	}
}
