package rerank

import (
	"encoding/json"
	"unicode/utf8"
)

// Candidate is one BM25 result handed to the reranker by its caller.
type Candidate struct {
	// ID names the candidate in the wire contract; unique within one call (the
	// caller's choice: Norn passes the path).
	ID       string
	Path     string
	Title    string
	Text     string // the best-matching section; capped before it is sent
	Revision string // the note's revision: part of the cache key
	Score    float64
	// Private candidates are never sent, not even counted: they keep their BM25
	// slots (Merge).
	Private bool
}

// wireCandidate is a candidate as the wire contract sends it.
type wireCandidate struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Path  string `json:"path"`
	Text  string `json:"text"`
}

// wireQuery is the last user message's content.
type wireQuery struct {
	Query      string          `json:"query"`
	Candidates []wireCandidate `json:"candidates"`
}

// approxTokens estimates the tokens of s as one per four bytes, the usual rule
// for English under BPE tokenizers (rounded up).
func approxTokens(n int) int { return (n + 3) / 4 }

// capText cuts s to at most n bytes at a rune boundary.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// userContent builds the user message for query and the public candidates: each
// text capped at textCap bytes, then all texts cut evenly until the message's
// estimated tokens fit maxTokens (titles and paths are never cut; a message that
// cannot fit even without texts is sent without them). It returns the content
// and its estimated tokens.
func userContent(query string, cands []Candidate, textCap, maxTokens int) (string, int) {
	w := wireQuery{Query: query, Candidates: make([]wireCandidate, len(cands))}
	for i, c := range cands {
		w.Candidates[i] = wireCandidate{ID: c.ID, Title: c.Title, Path: c.Path}
	}
	fixed := mustJSON(w)
	room := maxTokens*4 - len(fixed) - len(systemPrompt)
	if per := room / max(len(cands), 1); per < textCap {
		textCap = max(per-16, 0) // JSON escaping may grow a text a little
	}
	for {
		for i, c := range cands {
			w.Candidates[i].Text = capText(c.Text, textCap)
		}
		s := mustJSON(w)
		toks := approxTokens(len(s) + len(systemPrompt))
		if toks <= maxTokens || textCap == 0 {
			return s, toks
		}
		textCap /= 2 // escaping grew the texts: cut harder
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic("rerank: marshal: " + err.Error()) // only strings and numbers: cannot fail
	}
	return string(b)
}
