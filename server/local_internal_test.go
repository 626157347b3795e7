package server

import (
	"encoding/json"
	"math"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestWriteLocal_UnencodableAnswer: an answer JSON cannot hold (a NaN) reaches the
// client as a LocalError it can report, not as a 200 with a truncated body.
func TestWriteLocal_UnencodableAnswer(t *testing.T) {
	rec := httptest.NewRecorder()
	writeLocal(rec, 200, struct {
		Result any `json:"result"`
	}{map[string]float64{"score": math.NaN()}})
	var le LocalError
	if err := json.Unmarshal(rec.Body.Bytes(), &le); err != nil || le.Code != "error" || !strings.Contains(le.Message, "encode answer") {
		t.Fatalf("status %d body %q: %+v %v", rec.Code, rec.Body, le, err)
	}
	rec = httptest.NewRecorder()
	writeLocal(rec, 200, map[string]int{"n": 1})
	if rec.Body.String() != "{\"n\":1}\n" || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("plain answer: %q", rec.Body)
	}
}
