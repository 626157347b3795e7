package rerank

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
)

// systemPrompt tells a general chat model what the wire contract asks. A proxy in
// front of a dedicated reranker can ignore it and read the user message.
const systemPrompt = `You rank search results. The user message is JSON: {"query": string, "candidates": [{"id","title","path","text"}]}. ` +
	`Judge how well each candidate answers the query. Reply with JSON only: {"scores": [{"id": string, "score": number}]}, ` +
	`one entry per candidate id, score from 0 (irrelevant) to 1 (answers the query). Use scores above 0.7 only when sure.`

// answerSchema is the JSON schema of the answer, sent as a structured response
// format.
const answerSchema = `{"type":"object","properties":{"scores":{"type":"array","items":{"type":"object",` +
	`"properties":{"id":{"type":"string"},"score":{"type":"number","minimum":0,"maximum":1}},` +
	`"required":["id","score"],"additionalProperties":false}}},"required":["scores"],"additionalProperties":false}`

// maxAnswer bounds the answer's message content.
const maxAnswer = 1 << 20

// ParseAnswer reads an answer's message content — {"scores": [{"id", "score"}]},
// alone or, from endpoints without structured output, inside a ```json fence or
// surrounded by prose — and checks it against the ids sent: every id scored
// exactly once, no other id, every score a number in [0, 1]. Any breach is
// ErrAnswer, and the scores are then not used at all.
func ParseAnswer(content string, ids []string) (map[string]float64, error) {
	if len(content) > maxAnswer {
		return nil, fmt.Errorf("%w: %d bytes", ErrAnswer, len(content))
	}
	raw := jsonObject(content)
	if raw == nil {
		return nil, fmt.Errorf("%w: no JSON object", ErrAnswer)
	}
	var a struct {
		Scores []struct {
			ID    *string  `json:"id"`
			Score *float64 `json:"score"`
		} `json:"scores"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%w: not JSON", ErrAnswer)
	}
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	out := make(map[string]float64, len(ids))
	for i, s := range a.Scores {
		switch {
		case s.ID == nil || s.Score == nil:
			return nil, fmt.Errorf("%w: entry %d lacks id or score", ErrAnswer, i)
		case !want[*s.ID]:
			return nil, fmt.Errorf("%w: unknown id at entry %d", ErrAnswer, i)
		case math.IsNaN(*s.Score) || *s.Score < 0 || *s.Score > 1:
			return nil, fmt.Errorf("%w: score out of range at entry %d", ErrAnswer, i)
		}
		if _, dup := out[*s.ID]; dup {
			return nil, fmt.Errorf("%w: id scored twice at entry %d", ErrAnswer, i)
		}
		out[*s.ID] = *s.Score
	}
	if len(out) != len(want) {
		return nil, fmt.Errorf("%w: %d of %d ids scored", ErrAnswer, len(out), len(want))
	}
	return out, nil
}

// jsonObject finds the JSON object in content: all of it when it is one, else the
// first balanced {…} (a fence or prose around it), else nil.
func jsonObject(content string) []byte {
	b := bytes.TrimSpace([]byte(content))
	if json.Valid(b) {
		return b
	}
	start := bytes.IndexByte(b, '{')
	if start < 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b[start:]))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil
	}
	return raw
}
