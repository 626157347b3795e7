package rerank

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"
)

// Egress is one call's record in .git/norn/egress.jsonl: what left the machine.
// It never holds the API key, the query's text nor any note text.
type Egress struct {
	Time      time.Time `json:"time"`
	Host      string    `json:"host"` // the endpoint's host[:port]
	Model     string    `json:"model"`
	QueryHash string    `json:"query_sha256"`
	Paths     []string  `json:"paths"` // the paths sent, in the order sent
	TokensIn  int       `json:"tokens_in"`
	TokensOut int       `json:"tokens_out"`
	// Estimated: the endpoint reported no usage, so TokensIn is the prompt's
	// estimate (about 4 bytes a token), not the endpoint's count.
	Estimated bool    `json:"tokens_estimated,omitempty"`
	LatencyMS float64 `json:"latency_ms"`
	Outcome   string  `json:"outcome"` // "ok" or the failure ("timeout", "http 503"…)
}

// appendEgress appends e as one line to path (created 0600).
func appendEgress(path string, e Egress) error {
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("egress: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("egress: %w", err)
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("egress: %w", err)
	}
	return f.Close()
}

// ReadEgress reads egress records from r, keeping those at or after since (zero:
// all). A line that is not a record is ErrEgress naming the line; blank lines
// are skipped.
func ReadEgress(r io.Reader, since time.Time) ([]Egress, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var out []Egress
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var e Egress
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil || e.Time.IsZero() {
			return nil, fmt.Errorf("%w: line %d", ErrEgress, n)
		}
		if !e.Time.Before(since) {
			out = append(out, e)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("egress: %w", err)
	}
	return out, nil
}

// spentToday sums the calls and tokens the egress file at path records for day
// (UTC, YYYY-MM-DD), so a budget holds across processes (each norn command is
// one). Lines that are not records are skipped: the budget errs on no side but
// never stops a search for a damaged log.
func spentToday(path, day string) (calls, tokens int) {
	if path == "" {
		return 0, 0
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var e Egress
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Time.UTC().Format(time.DateOnly) != day {
			continue
		}
		calls++
		tokens += e.TokensIn + e.TokensOut
	}
	return calls, tokens
}
