package rerank

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Defaults and bounds of Options.
const (
	DefaultK         = 20
	MaxK             = 50
	DefaultTimeout   = 2 * time.Second
	DefaultTextChars = 600
	DefaultMaxTokens = 6000
	DefaultRetries   = 2
	DefaultCalls     = 500     // calls per day
	DefaultTokens    = 2000000 // tokens (in + out) per day
	cacheSize        = 1024
)

// Options configure a Reranker. Zero values take the defaults above.
type Options struct {
	Endpoint string // base URL of an OpenAI-compatible API, e.g. https://api.openai.com/v1
	Model    string // sent as the request's model; "" lets the endpoint choose
	APIKey   string // sent as a bearer token; never logged, never in an error
	Gate     Gate   // when the top is contested (Threshold from config)
	K        int    // public candidates sent, 1..MaxK
	// Timeout bounds a whole Rerank (retries included).
	Timeout time.Duration
	// TextChars caps each candidate's text; MaxTokens bounds the whole prompt
	// (estimated at 4 bytes a token), texts cut evenly to fit.
	TextChars, MaxTokens int
	Retries              int // retries on 429 and 5xx within Timeout; -1: none
	// Confident is the model score from which Merge trusts it (default 0.7).
	Confident float64
	// CallsPerDay and TokensPerDay bound the calls and tokens of one UTC day.
	CallsPerDay, TokensPerDay int
	// EgressPath is the file egress records are appended to ("" keeps none).
	EgressPath string
	Client     *http.Client // nil: a client without its own timeout
	Logger     *slog.Logger // nil: slog.Default()
	Now        func() time.Time
}

// Mode is a caller's choice per query.
type Mode int

const (
	Auto  Mode = iota // call when the gate says the top is contested
	Off               // never call
	Force             // call whatever the gate says
)

// Result is what a Rerank did.
type Result struct {
	Candidates []Candidate // the final order: all the candidates given
	// Engine says what produced the order: "bm25", "bm25+rerank:<model>",
	// "bm25 (rerank failed: <why>)" or "bm25 (rerank skipped: <why>)".
	Engine    string
	Reranked  bool
	Cached    bool
	Gate      Decision
	TokensIn  int
	TokensOut int
	// TokensEstimated: the endpoint reported no usage (a failed call, or one
	// without a usage block), so TokensIn is the prompt's estimate (the one
	// its bound in tokens is judged by) rather than the endpoint's count.
	TokensEstimated bool
	Latency         time.Duration
}

// Reranker is safe for concurrent use. It holds no goroutine.
type Reranker struct {
	o    Options
	url  string // chat completions URL
	host string
	log  *slog.Logger

	mu     sync.Mutex
	cache  map[string]map[string]float64
	fifo   []string
	day    string
	calls  int
	tokens int
}

// New checks o and returns a Reranker; a bad endpoint or bound is ErrConfig.
func New(o Options) (*Reranker, error) {
	u, err := url.Parse(o.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return nil, fmt.Errorf("%w: endpoint must be an http(s) URL without credentials", ErrConfig)
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&o.K, DefaultK)
	def(&o.TextChars, DefaultTextChars)
	def(&o.MaxTokens, DefaultMaxTokens)
	def(&o.Retries, DefaultRetries)
	def(&o.CallsPerDay, DefaultCalls)
	def(&o.TokensPerDay, DefaultTokens)
	if o.K < 1 || o.K > MaxK || o.TextChars < 0 || o.MaxTokens < 0 || o.CallsPerDay < 0 || o.TokensPerDay < 0 {
		return nil, fmt.Errorf("%w: k from 1 to %d, bounds not negative", ErrConfig, MaxK)
	}
	if o.Gate.Threshold < 0 || o.Gate.Threshold > 1 {
		return nil, fmt.Errorf("%w: threshold from 0 to 1", ErrConfig)
	}
	o.Retries = max(o.Retries, 0)
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Confident == 0 {
		o.Confident = DefaultConfident
	}
	if o.Client == nil {
		o.Client = &http.Client{}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	r := &Reranker{o: o, url: strings.TrimRight(o.Endpoint, "/") + "/chat/completions", host: u.Host,
		log: log, cache: map[string]map[string]float64{}}
	r.day = o.Now().UTC().Format(time.DateOnly)
	r.calls, r.tokens = spentToday(o.EgressPath, r.day)
	return r, nil
}

// Label names the engine of a successful rerank: the configured model, else
// the one the endpoint named, else "default".
func (r *Reranker) Label(answered string) string {
	m := r.o.Model
	if m == "" {
		m = answered
	}
	if m == "" {
		m = "default"
	}
	return "bm25+rerank:" + m
}

// EngineNoEndpoint is the engine of a search asked to rerank (mode force) on a
// machine that names no endpoint: nothing was sent, the BM25 order stands.
const EngineNoEndpoint = "bm25 (rerank skipped: no endpoint configured)"

// K is how many public candidates a call sends at most (Options.K).
func (r *Reranker) K() int { return r.o.K }

// Rerank reorders cands (BM25 order, best first) for query under mode, gated by
// Options.Gate. It never fails: whatever goes wrong, the BM25 order stands and
// Engine says why.
func (r *Reranker) Rerank(ctx context.Context, mode Mode, query string, cands []Candidate) Result {
	return r.RerankGated(ctx, r.o.Gate, mode, query, cands)
}

// RerankGated is Rerank under gate g instead of Options.Gate (a vault passes the
// threshold of its current settings).
func (r *Reranker) RerankGated(ctx context.Context, g Gate, mode Mode, query string, cands []Candidate) Result {
	res := Result{Candidates: cands, Engine: "bm25"}
	var ask bool
	if res.Gate, ask = Decide(g, mode, cands); !ask {
		return res
	}
	return r.rerank(ctx, query, cands, res)
}

// Decide is the gate's verdict on cands (BM25 order, best first) and whether,
// under mode, a rerank asks the model (or its cache): a caller that must work
// to fill the candidates' texts does so only then. The gate sees public scores
// only, so calling says nothing of a private note; without a public candidate
// there is nothing to ask.
func Decide(g Gate, mode Mode, cands []Candidate) (Decision, bool) {
	var top [2]float64
	n := 0
	for _, c := range cands {
		if n == 2 {
			break
		}
		if !c.Private {
			top[n] = c.Score
			n++
		}
	}
	d := g.Decide(top[:n])
	return d, n > 0 && (mode == Force || (mode == Auto && d.Contested))
}

// rerank sends the top K public candidates and merges the answer into res.
func (r *Reranker) rerank(ctx context.Context, query string, cands []Candidate, res Result) Result {
	sent := make([]int, 0, r.o.K)
	for i, c := range cands {
		if !c.Private && len(sent) < r.o.K {
			sent = append(sent, i)
		}
	}
	public := make([]Candidate, len(sent))
	ids := make([]string, len(sent))
	for i, s := range sent {
		public[i], ids[i] = cands[s], cands[s].ID
	}
	key := cacheKey(r.o.Model, query, public)
	if scores, ok := r.cached(key); ok {
		res.Candidates = Merge(cands, sent, scores, r.o.Confident)
		res.Engine, res.Reranked, res.Cached = r.Label(""), true, true
		return res
	}
	content, estimate := userContent(query, public, r.o.TextChars, r.o.MaxTokens)
	if !r.spend(estimate) {
		res.Engine = "bm25 (rerank skipped: budget)"
		return res
	}
	ctx, cancel := context.WithTimeout(ctx, r.o.Timeout)
	defer cancel()
	start := time.Now()
	rep, err := r.call(ctx, content)
	var scores map[string]float64
	if err == nil {
		if scores, err = ParseAnswer(rep.content, ids); err != nil {
			err = &callError{"malformed answer", err}
		}
	}
	res.Latency = time.Since(start)
	res.TokensIn, res.TokensOut = rep.tokensIn, rep.tokensOut
	if res.TokensIn == 0 {
		// No usage reported (a failed call never has one): the prompt was sent
		// all the same, and may have been billed.
		res.TokensIn, res.TokensEstimated = estimate, true
	}
	r.settle(estimate, res.TokensIn+res.TokensOut)
	outcome := "ok"
	if err != nil {
		var ce *callError
		outcome = "error"
		if errors.As(err, &ce) {
			outcome = ce.reason
		}
		res.Engine = "bm25 (rerank failed: " + outcome + ")"
		r.log.Warn("rerank failed; bm25 order stands", "outcome", outcome, "host", r.host)
	} else {
		r.store(key, scores)
		res.Candidates = Merge(cands, sent, scores, r.o.Confident)
		res.Engine, res.Reranked = r.Label(rep.model), true
	}
	r.egress(query, public, res, outcome)
	return res
}

// egress appends the call's record; a failure to write it is logged, not fatal
// to the search.
func (r *Reranker) egress(query string, sent []Candidate, res Result, outcome string) {
	if r.o.EgressPath == "" {
		return
	}
	paths := make([]string, len(sent))
	for i, c := range sent {
		paths[i] = c.Path
	}
	h := sha256.Sum256([]byte(query))
	e := Egress{Time: r.o.Now().UTC(), Host: r.host, Model: r.o.Model, QueryHash: hex.EncodeToString(h[:]),
		Paths: paths, TokensIn: res.TokensIn, TokensOut: res.TokensOut, Estimated: res.TokensEstimated,
		LatencyMS: float64(res.Latency.Microseconds()) / 1000, Outcome: outcome}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := appendEgress(r.o.EgressPath, e); err != nil {
		r.log.Error("rerank egress record not written", "err", err)
	}
}

// cacheKey is the model, the query and the sent candidates' ids and revisions.
func cacheKey(model, query string, sent []Candidate) string {
	h := sha256.New()
	for _, s := range []string{model, query} {
		fmt.Fprintf(h, "%d:%s", len(s), s)
	}
	for _, c := range sent {
		fmt.Fprintf(h, "%d:%s%d:%s", len(c.ID), c.ID, len(c.Revision), c.Revision)
	}
	return string(h.Sum(nil))
}

func (r *Reranker) cached(key string) (map[string]float64, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.cache[key]
	return s, ok
}

func (r *Reranker) store(key string, scores map[string]float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.cache[key]; ok {
		return
	}
	if len(r.fifo) >= cacheSize {
		delete(r.cache, r.fifo[0])
		r.fifo = r.fifo[1:]
	}
	r.cache[key] = scores
	r.fifo = append(r.fifo, key)
}

// spend reserves one call and estimate tokens of today's budget, or says no.
func (r *Reranker) spend(estimate int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if day := r.o.Now().UTC().Format(time.DateOnly); day != r.day {
		r.day, r.calls, r.tokens = day, 0, 0
	}
	if r.calls >= r.o.CallsPerDay || r.tokens+estimate > r.o.TokensPerDay {
		return false
	}
	r.calls++
	r.tokens += estimate
	return true
}

// settle replaces a call's estimate by the tokens it used.
func (r *Reranker) settle(estimate, used int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tokens += used - estimate
}
