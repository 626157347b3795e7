package rerank_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// endpoint is a chat-completions server on 127.0.0.1 that records every request
// body byte and answers with reply (nil: score every candidate by scoreOf).
type endpoint struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies [][]byte
	auth   []string
	reply  func(n int, req chatReq) (status int, body string)
}

type chatReq struct {
	Model          string   `json:"model"`
	Temperature    *float64 `json:"temperature"`
	Messages       []struct{ Role, Content string }
	ResponseFormat json.RawMessage `json:"response_format"`
}

type wireQuery struct {
	Query      string `json:"query"`
	Candidates []struct {
		ID, Title, Path, Text string
	} `json:"candidates"`
}

func newEndpoint(t *testing.T, reply func(n int, req chatReq) (int, string)) *endpoint {
	t.Helper()
	e := &endpoint{reply: reply}
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		e.mu.Lock()
		e.bodies = append(e.bodies, b)
		e.auth = append(e.auth, r.Header.Get("Authorization"))
		n := len(e.bodies)
		e.mu.Unlock()
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			http.Error(w, "wrong path "+r.URL.Path, http.StatusNotFound)
			return
		}
		var req chatReq
		if err := json.Unmarshal(b, &req); err != nil {
			http.Error(w, "bad json", http.StatusBadRequest)
			return
		}
		status, body := e.reply(n, req)
		if status == -1 { // hang until the client gives up
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(e.srv.Close)
	return e
}

func (e *endpoint) url() string { return e.srv.URL + "/v1" }

func (e *endpoint) requests() [][]byte {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([][]byte(nil), e.bodies...)
}

// query decodes the wire contract's user message of req.
func (req chatReq) query(t *testing.T) wireQuery {
	t.Helper()
	var q wireQuery
	last := req.Messages[len(req.Messages)-1]
	if last.Role != "user" {
		t.Errorf("last message is %q", last.Role) // the handler's goroutine: no Fatal
	}
	if err := json.Unmarshal([]byte(last.Content), &q); err != nil {
		t.Errorf("user content is not the contract's JSON: %v", err)
	}
	return q
}

// completion wraps content as a chat-completions answer.
func completion(content string, in, out int) string {
	c, _ := json.Marshal(content)
	return fmt.Sprintf(`{"id":"x","object":"chat.completion","model":"served-model","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":%d,"completion_tokens":%d}}`, c, in, out)
}

// scoresJSON is {"scores": …} giving each id its score.
func scoresJSON(ids []string, score func(id string) float64) string {
	var b strings.Builder
	b.WriteString(`{"scores":[`)
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%q,"score":%g}`, id, score(id))
	}
	b.WriteString("]}")
	return b.String()
}

// favour answers with score 0.95 for the ids in top, 0.1 for the others.
func favour(t *testing.T, top ...string) func(int, chatReq) (int, string) {
	return func(_ int, req chatReq) (int, string) {
		q := req.query(t)
		var ids []string
		for _, c := range q.Candidates {
			ids = append(ids, c.ID)
		}
		return 200, completion(scoresJSON(ids, func(id string) float64 {
			for _, x := range top {
				if x == id {
					return 0.95
				}
			}
			return 0.1
		}), 100, 20)
	}
}
