package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/norn-vault/norn/errcode"
	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// TestWriteLocal_UnencodableAnswer: an answer JSON cannot hold (a NaN) reaches the
// client as a LocalError it can report, not as a 200 with a truncated body.
func TestWriteLocal_UnencodableAnswer(t *testing.T) {
	rec := httptest.NewRecorder()
	writeLocal(rec, 200, struct {
		Result any `json:"result"`
	}{map[string]float64{"score": math.NaN()}})
	var le LocalError
	if err := json.Unmarshal(rec.Body.Bytes(), &le); err != nil || le.Code != errcode.Internal || !strings.Contains(le.Message, "encode answer") {
		t.Fatalf("status %d body %q: %+v %v", rec.Code, rec.Body, le, err)
	}
	rec = httptest.NewRecorder()
	writeLocal(rec, 200, map[string]int{"n": 1})
	if rec.Body.String() != "{\"n\":1}\n" || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("plain answer: %q", rec.Body)
	}
}

// TestLocalError_CarriesTheCode: a failure crosses the local endpoint with the code
// errcode.Classify gave it in the server, so the client classifies (and the CLI
// renders) it exactly as it would have had it failed itself; a malformed query
// still matches graph.ErrQuery (search reports it as a usage error).
func TestLocalError_CarriesTheCode(t *testing.T) {
	for _, err := range []error{
		fmt.Errorf("links: %w: nope.md", repo.ErrNotFound),
		fmt.Errorf("local query: %w", repo.ErrInvalid),
		&graph.QueryError{Query: `"a`, Reason: "unclosed phrase"},
		&note.ParseError{Path: "a.md", Rule: note.RuleYAMLSyntax, Msg: "bad"},
		fmt.Errorf("graph: %w: %w", vault.ErrIndexUnavailable, graph.ErrLocked),
		fmt.Errorf("move: %w", vault.ErrForbidden),
		fmt.Errorf("search: %w", context.DeadlineExceeded),
		errors.New("disk on fire"),
	} {
		b, jerr := json.Marshal(localErrorOf(err))
		var le LocalError
		if jerr != nil || json.Unmarshal(b, &le) != nil {
			t.Fatalf("%v: %s %v", err, b, jerr)
		}
		want := errcode.Classify(err)
		if got := errcode.Classify(fmt.Errorf("ask: %w", &le)); got != want || le.Message != err.Error() {
			t.Errorf("%v: crossed as %s (code %q), want code %q", err, b, got, want)
		}
		if errors.Is(&le, graph.ErrQuery) != errors.Is(err, graph.ErrQuery) {
			t.Errorf("%v: crossed as %s; graph.ErrQuery lost or invented", err, b)
		}
	}
}
