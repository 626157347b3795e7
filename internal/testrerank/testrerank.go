// Package testrerank holds what the rerank wiring's tests share: an
// OpenAI-compatible chat-completions endpoint on 127.0.0.1 that records every
// request body byte, and a randomized vault with many private notes whose every
// path, title, heading and body carries a marker that must never leave the
// machine.
package testrerank

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/norn-vault/norn/internal/testvault"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/rerank"
	"github.com/norn-vault/norn/vault"
)

// Marker starts every secret string of a private note; no request may hold it.
const Marker = "zqprivzq"

// Candidate is one candidate of the wire contract, as the endpoint read it.
type Candidate struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Path  string `json:"path"`
	Text  string `json:"text"`
}

// Query is the wire contract's user message.
type Query struct {
	Query      string      `json:"query"`
	Candidates []Candidate `json:"candidates"`
}

// Reply answers one request: an HTTP status and a body. Status -1 hangs until the
// client gives up.
type Reply func(q Query) (status int, body string)

// Endpoint is a chat-completions server on 127.0.0.1 recording every request.
type Endpoint struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies [][]byte
	reply  Reply
}

// New starts an endpoint answering with reply; it stops when the test ends.
func New(t testing.TB, reply Reply) *Endpoint {
	t.Helper()
	e := &Endpoint{reply: reply}
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		e.mu.Lock()
		e.bodies = append(e.bodies, b)
		e.mu.Unlock()
		var req struct {
			Messages []struct{ Role, Content string } `json:"messages"`
		}
		var q Query
		if r.URL.Path != "/v1/chat/completions" || json.Unmarshal(b, &req) != nil || len(req.Messages) == 0 ||
			json.Unmarshal([]byte(req.Messages[len(req.Messages)-1].Content), &q) != nil {
			http.Error(w, "not the wire contract", http.StatusBadRequest)
			return
		}
		status, body := e.reply(q)
		if status == -1 {
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

// URL is the endpoint's base URL (…/v1), as machine settings name it.
func (e *Endpoint) URL() string { return e.srv.URL + "/v1" }

// Bodies are the request bodies received so far, byte for byte.
func (e *Endpoint) Bodies() [][]byte {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([][]byte(nil), e.bodies...)
}

// Completion wraps content as a chat-completions answer.
func Completion(content string) string {
	c, _ := json.Marshal(content)
	return fmt.Sprintf(`{"id":"x","object":"chat.completion","model":"served","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":120,"completion_tokens":30}}`, c)
}

// Last trusts the last candidate sent (score 1) and no other (0): a reranked
// answer moves it to the first public slot.
func Last(q Query) (int, string) {
	var b strings.Builder
	b.WriteString(`{"scores":[`)
	for i, c := range q.Candidates {
		if i > 0 {
			b.WriteByte(',')
		}
		s := 0.0
		if i == len(q.Candidates)-1 {
			s = 1
		}
		fmt.Fprintf(&b, `{"id":%q,"score":%g}`, c.ID, s)
	}
	b.WriteString("]}")
	return 200, Completion(b.String())
}

// Leaks returns what of secrets the bodies hold (the marker, or a whole secret).
func Leaks(bodies [][]byte, secrets []string) []string {
	var out []string
	for i, b := range bodies {
		if bytes.Contains(b, []byte(Marker)) {
			out = append(out, fmt.Sprintf("request %d holds the marker", i))
		}
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				out = append(out, fmt.Sprintf("request %d holds %q", i, s))
			}
		}
	}
	return out
}

// Vault is a randomized vault: public notes and many private ones (under
// personal-notes/, and `private: true` elsewhere), all sharing the query words.
type Vault struct {
	Files   map[string]string
	Private map[string]bool // the private notes' paths
	// Secrets are every private path, title and heading, and a line of each body.
	Secrets []string
	Queries []string
}

var words = []string{"bloom", "filter", "hashing", "sketch", "cache", "index", "merge", "graph", "token", "shard"}

// PrivateTag is the private tag of the vaults Open makes (privacy.tags): NewVault
// makes some notes private by it alone.
const PrivateTag = "hushtag"

// PrivacyConfig is the privacy section of the vaults Open makes: a vault made
// otherwise needs PrivateTag among its privacy.tags for NewVault's tagged notes
// to be private.
const PrivacyConfig = "privacy:\n  tags: [" + PrivateTag + "]\n"

// NewVault builds a vault from seed: n public notes and as many private ones
// (by folder, by `private: true`, by PrivateTag in the frontmatter or inline),
// each note holding two or three of the shared words (in its title, a heading
// and its body) so that queries of those words hit public and private notes
// alike, often with a contested top.
func NewVault(seed uint64, n int) *Vault {
	rng := rand.New(rand.NewPCG(seed, 28))
	v := &Vault{Files: map[string]string{}, Private: map[string]bool{}}
	pick := func() []string {
		k := 2 + rng.IntN(2)
		out := make([]string, 0, k)
		for _, i := range rng.Perm(len(words))[:k] {
			out = append(out, words[i])
		}
		return out
	}
	for i := range n {
		w := pick()
		p := fmt.Sprintf("notes/%s-%d.md", w[0], i)
		v.Files[p] = fmt.Sprintf("---\ntitle: %s %s %d\n---\n# %s %s\n\nAbout %s.\n\n## More on %s\n\n%s and %s, public text %d.\n",
			w[0], w[1], i, w[0], w[1], strings.Join(w, " "), w[len(w)-1], w[0], w[len(w)-1], i)
	}
	for i := range n {
		w := pick()
		id := fmt.Sprintf("%s%d%04x", Marker, i, rng.Uint32()&0xffff)
		title := fmt.Sprintf("%s %s %st", w[0], w[1], id)
		heading := fmt.Sprintf("%s %sh", w[len(w)-1], id)
		line := fmt.Sprintf("%s %s secret %sb.", w[0], w[len(w)-1], id)
		var p, content string
		switch i % 4 {
		case 0:
			p = fmt.Sprintf("personal-notes/%s-%s.md", w[0], id)
			content = fmt.Sprintf("---\ntitle: %s\n---\n# %s\n\n%s\n\n## %s\n\n%s %s\n", title, title, line, heading, strings.Join(w, " "), line)
		case 1:
			p = fmt.Sprintf("notes/%s-%s.md", w[0], id)
			content = fmt.Sprintf("---\ntitle: %s\nprivate: true\n---\n# %s\n\n%s\n\n## %s\n\n%s %s\n", title, title, line, heading, strings.Join(w, " "), line)
		case 2: // a private tag in the frontmatter
			p = fmt.Sprintf("notes/%s-%s.md", w[0], id)
			content = fmt.Sprintf("---\ntitle: %s\ntags: [%s]\n---\n# %s\n\n%s\n\n## %s\n\n%s %s\n", title, PrivateTag, title, line, heading, strings.Join(w, " "), line)
		default: // a private tag inline, nested
			p = fmt.Sprintf("notes/%s-%s.md", w[0], id)
			content = fmt.Sprintf("---\ntitle: %s\n---\n# %s\n\n%s #%s/deep\n\n## %s\n\n%s %s\n", title, title, line, PrivateTag, heading, strings.Join(w, " "), line)
		}
		v.Files[p] = content
		v.Private[p] = true
		v.Secrets = append(v.Secrets, p, title, heading, line)
	}
	for range 12 {
		v.Queries = append(v.Queries, strings.Join(pick(), " "))
	}
	return v
}

// Open imports files into a new vault (gate profile default, pinned clock) and
// opens it with a reranker at url, model m1, egress in its git directory,
// modified by mod; without a reranker when url is "". It is closed when the test
// ends.
func Open(t testing.TB, files map[string]string, url string, mod func(*rerank.Options)) *vault.Vault {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	testvault.WriteFiles(t, dir, files)
	v0, _, err := repo.Init(ctx, dir, repo.InitOptions{Options: repo.Options{Owner: testvault.Owner, Now: testvault.Clock},
		Seed: map[string][]byte{string(vault.ConfigPath): []byte("gates:\n  profile: default\n" + PrivacyConfig)}})
	if err != nil {
		t.Fatal(err)
	}
	v0.Close()
	o := vault.Options{Repo: repo.Options{Owner: testvault.Owner, Now: testvault.Clock}}
	if url != "" {
		o.Rerank = func(gitDir string) (*rerank.Reranker, error) {
			ro := rerank.Options{Endpoint: url, Model: "m1", EgressPath: filepath.Join(gitDir, "norn", "egress.jsonl")}
			if mod != nil {
				mod(&ro)
			}
			return rerank.New(ro)
		}
	}
	v, err := vault.Open(ctx, dir, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}
