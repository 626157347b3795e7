package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/norn-vault/norn/errcode"
	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// The local query endpoint lets a one-shot command (`norn search`, `norn links`, …)
// beside a running `norn serve` use the index that server holds: pebble admits one
// process, so without it those commands would scan. The server listens on a random
// loopback port and advertises it, with a secret, in .git/norn/serve.json (mode
// 0600: whoever can read it can read the notes anyway). A command that finds the
// index locked posts its Query there; the answer is exactly what it would have
// computed itself. A command that writes sends its transaction ("apply",
// "capture": localwrite.go) before it opens the vault, so that the server's
// committer makes the commit. The transaction names its author and roles, as the
// command would apply it: the secret is what the server trusts, and whoever can
// read it can write to .git directly.

// ErrNoLocalServer means no running norn serve answers local queries for the vault.
var ErrNoLocalServer = errors.New("no norn serve answers local queries")

// LocalEndpointPath is where a running norn serve advertises its local endpoint.
func LocalEndpointPath(gitDir string) string { return filepath.Join(gitDir, "norn", "serve.json") }

const (
	localQueryPath = "/query"
	// localMaxBody bounds a request (a write's content, base64 in JSON, is most
	// of it): a command with more to send does the work itself (askLocal).
	localMaxBody = 8 << 20
	// localSearchWait bounds how long a forwarded search waits for the server's
	// index to reach HEAD (the answer says index_stale when it had to stop).
	localSearchWait = 5 * time.Second
)

// localEndpoint is the content of serve.json.
type localEndpoint struct {
	PID     int       `json:"pid"`
	Addr    string    `json:"addr"`
	Secret  string    `json:"secret"`
	Started time.Time `json:"started"`
}

// Query is one question (or, for apply and capture, one write) a command asks: Op
// names it, the other fields are its arguments (those of VaultStats, NoteLinks, the
// Vault's graph methods, Apply and Capture).
type Query struct {
	Op           string                     `json:"op"` // search, stats, links, neighborhood, hubs, orphans, path, ping, refresh, rebuild, apply, capture
	Search       *vault.SearchRequest       `json:"search,omitempty"`
	Note         note.Path                  `json:"note,omitempty"`
	To           note.Path                  `json:"to,omitempty"`
	Limit        int                        `json:"limit,omitempty"`
	Offset       int                        `json:"offset,omitempty"`
	MaxDepth     int                        `json:"max_depth,omitempty"`
	Neighborhood *graph.NeighborhoodOptions `json:"neighborhood,omitempty"`
	// Tx is the transaction of "apply", as the command would apply it itself
	// (its author and roles included); Capture the request of "capture".
	Tx      *repo.Tx              `json:"tx,omitempty"`
	Capture *vault.CaptureRequest `json:"capture,omitempty"`
}

// searchAnswer carries a SearchResponse with its hits (which its own JSON leaves out).
type searchAnswer struct {
	Response *vault.SearchResponse `json:"response"`
	Hits     []graph.Hit           `json:"hits"`
}

// Answer computes q's answer on v.
//
// The asking process may have just committed (a `norn write`, the git CLI), and
// it must see that commit: the vault is refreshed from disk first (a search does
// so itself, as a search that waits for pending writes).
//
// "rebuild" is what norn reindex asks when the index is this server's: it
// rebuilds the index from HEAD (Indexer.Rebuild) and answers a RebuildAnswer.
//
// "refresh" is what a command that committed asks (NotifyCommitted): the server
// takes in the commit at once — the HEAD its reads see, and its index — instead of
// at its next maintenance round. It takes no data and changes nothing but the
// server's view of the vault.
//
// "apply" applies q.Tx (v.Apply) and answers an *ApplyAnswer; "capture" runs
// q.Capture (v.Capture) and answers the same.
func Answer(ctx context.Context, v *vault.Vault, q Query) (any, error) {
	return answer(ctx, v, nil, slog.Default(), q)
}

// answer is Answer; s, when not nil, says where an applied commit stands against
// the default remote.
func answer(ctx context.Context, v *vault.Vault, s *vault.Syncer, log *slog.Logger, q Query) (any, error) {
	switch q.Op {
	case "ping":
		return struct{}{}, nil
	case "refresh":
		if err := v.Refresh(ctx); err != nil {
			return nil, fmt.Errorf("local refresh: %w", err)
		}
		// Refresh caught the index up unless a catch-up was under way; make sure.
		if err := v.Index.CatchUp(ctx); err != nil {
			return nil, fmt.Errorf("local refresh: %w", err)
		}
		return struct{}{}, nil
	case "rebuild":
		// norn reindex beside this server: the index is this process's to rebuild.
		if err := v.Index.Rebuild(ctx, nil); err != nil {
			return nil, fmt.Errorf("local rebuild: %w", err)
		}
		commit, _ := v.Index.Status()
		return RebuildAnswer{Commit: commit}, nil
	}
	if q.Op != "search" {
		if err := v.Refresh(ctx); err != nil {
			return nil, fmt.Errorf("local query: %w", err)
		}
	}
	switch q.Op {
	case "apply":
		return apply(ctx, v, s, log, q.Tx)
	case "capture":
		return capture(ctx, v, s, log, q.Capture)
	case "search":
		if q.Search == nil {
			return nil, fmt.Errorf("local query: search without a request: %w", repo.ErrInvalid)
		}
		r := *q.Search
		r.WaitForPendingWrites, r.Wait = true, localSearchWait
		resp, err := v.Search(ctx, r)
		if err != nil {
			return nil, err
		}
		return searchAnswer{Response: resp, Hits: resp.Hits}, nil
	case "stats":
		return vault.VaultStats(ctx, v, q.Limit, q.Offset)
	case "links":
		return vault.NoteLinks(ctx, v, q.Note, q.Limit)
	case "neighborhood":
		if q.Neighborhood == nil {
			return nil, fmt.Errorf("local query: neighborhood without options: %w", repo.ErrInvalid)
		}
		return v.Neighborhood(ctx, q.Note, *q.Neighborhood)
	case "hubs":
		return v.Hubs(ctx, q.Limit, q.Offset)
	case "orphans":
		return v.Orphans(ctx, q.Limit, q.Offset)
	case "path":
		return v.ShortestPath(ctx, q.Note, q.To, q.MaxDepth)
	}
	return nil, fmt.Errorf("local query: unknown op %q: %w", q.Op, repo.ErrInvalid)
}

// RebuildAnswer is the answer to "rebuild": the commit the rebuilt index is at.
type RebuildAnswer struct {
	Commit string `json:"index_commit"`
}

// LocalError is a failure the server reported, with the code errcode.Classify gave
// it there: the client's errcode.Classify returns that code, so every surface
// renders it as if the command had failed itself. It also unwraps to the sentinel
// its code stands for, for callers that branch with errors.Is (a malformed query,
// Query, to graph.ErrQuery).
type LocalError struct {
	Code    errcode.Code `json:"code"`
	Message string       `json:"error"`
	// Query: the failure was a malformed query (graph.ErrQuery).
	Query bool `json:"query,omitempty"`
	// Conflict and Violations are the failure's conflict (repo.ConflictError) and
	// gate violations (hooks.Rejection), for the client to render as its own.
	Conflict   *repo.ConflictError `json:"conflict,omitempty"`
	Violations []hooks.Violation   `json:"violations,omitempty"`
}

func (e *LocalError) Error() string { return e.Message }

// ErrorCode is the code the server classified the failure as.
func (e *LocalError) ErrorCode() errcode.Code { return e.Code }

func (e *LocalError) Unwrap() []error {
	var out []error
	switch {
	case e.Query:
		out = append(out, graph.ErrQuery)
	case e.Code == errcode.NotFound:
		out = append(out, repo.ErrNotFound)
	case e.Code == errcode.InvalidInput:
		out = append(out, repo.ErrInvalid)
	}
	if e.Conflict != nil {
		out = append(out, e.Conflict)
	}
	if e.Violations != nil {
		out = append(out, &hooks.Rejection{Violations: e.Violations})
	}
	return out
}

func localErrorOf(err error) *LocalError {
	ce, vs := typedCause(err)
	return &LocalError{Code: errcode.Classify(err), Message: err.Error(), Query: errors.Is(err, graph.ErrQuery),
		Conflict: ce, Violations: vs}
}

// LocalServer answers local queries for one vault.
type LocalServer struct {
	v      *vault.Vault
	syncer *vault.Syncer
	log    *slog.Logger
	path   string
	secret string
	srv    *http.Server
	done   chan struct{}
}

// LocalOptions configure StartLocal.
type LocalOptions struct {
	Logger *slog.Logger // nil: slog.Default()
	// Syncer, when set, says where a commit made for a command ("apply") stands
	// against the vault's default remote, as the command would report it.
	Syncer *vault.Syncer
}

// StartLocal starts the local endpoint of v and advertises it, unless another
// running server already answers there (then it returns ErrLocalTaken).
func StartLocal(ctx context.Context, v *vault.Vault, o LocalOptions) (*LocalServer, error) {
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	path := LocalEndpointPath(v.GitDir())
	if err := askLocal(ctx, path, Query{Op: "ping"}, nil, 500*time.Millisecond); err == nil {
		return nil, ErrLocalTaken
	}
	var key [32]byte
	rand.Read(key[:])
	l := &LocalServer{v: v, syncer: o.Syncer, log: log, path: path, secret: hex.EncodeToString(key[:]), done: make(chan struct{})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("local endpoint: listen: %w", err)
	}
	b, _ := json.Marshal(localEndpoint{PID: os.Getpid(), Addr: ln.Addr().String(), Secret: l.secret, Started: time.Now().UTC()})
	if err := writePrivateFile(path, b); err != nil {
		ln.Close()
		return nil, fmt.Errorf("local endpoint: %w", err)
	}
	l.srv = &http.Server{Handler: l, ReadHeaderTimeout: 5 * time.Second,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug)}
	go func() {
		defer close(l.done)
		if err := l.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			log.Warn("local endpoint stopped", "err", err)
		}
	}()
	return l, nil
}

// ErrLocalTaken means another running norn serve already answers local queries.
var ErrLocalTaken = errors.New("another norn serve answers local queries for this vault")

// Close stops answering, waits for queries in flight, and removes the
// advertisement if it is still this server's.
func (l *LocalServer) Close() error {
	err := l.srv.Shutdown(context.Background())
	<-l.done
	if ep, rerr := readEndpoint(l.path); rerr == nil && ep.Secret == l.secret {
		if rerr := os.Remove(l.path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			err = errors.Join(err, fmt.Errorf("local endpoint: %w", rerr))
		}
	}
	return err
}

func (l *LocalServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != localQueryPath {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), []byte("Bearer "+l.secret)) != 1 {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	var q Query
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, localMaxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&q); err != nil {
		writeLocal(w, http.StatusBadRequest, localErrorOf(fmt.Errorf("local query: %w: %w", repo.ErrInvalid, err)))
		return
	}
	res, err := answer(r.Context(), l.v, l.syncer, l.log, q)
	if err != nil {
		writeLocal(w, http.StatusOK, localErrorOf(err))
		return
	}
	writeLocal(w, http.StatusOK, struct {
		Result any `json:"result"`
	}{res})
}

// writeLocal writes body as JSON; an answer that does not encode becomes a
// LocalError (the client reports it) rather than a truncated body.
func writeLocal(w http.ResponseWriter, status int, body any) {
	b, err := json.Marshal(body)
	if err != nil {
		status = http.StatusOK
		b, _ = json.Marshal(localErrorOf(fmt.Errorf("local query: encode answer: %w", err)))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// AskLocal asks the norn serve running on the vault whose git folder is gitDir and
// decodes its answer into out (for "search", a *SearchResponse, hits included). It
// returns an error wrapping ErrNoLocalServer when none answers (no advertisement,
// or a stale one), and a *LocalError when the server answered with a failure.
func AskLocal(ctx context.Context, gitDir string, q Query, out any) error {
	return askLocal(ctx, LocalEndpointPath(gitDir), q, out, 0)
}

// notifyTimeout bounds how long NotifyCommitted waits for the server.
const notifyTimeout = time.Second

// NotifyCommitted tells the norn serve running on the vault whose git folder is
// gitDir, if any, that a commit landed, so that its reads and its index are current
// at once instead of at its next maintenance round. It is best effort and quick:
// without a server it fails at once, and a server that does not answer within
// notifyTimeout is given up on; either way the error wraps ErrNoLocalServer (the
// server, if there is one, takes the commit in at its next round).
func NotifyCommitted(ctx context.Context, gitDir string) error {
	return askLocal(ctx, LocalEndpointPath(gitDir), Query{Op: "refresh"}, nil, notifyTimeout)
}

func askLocal(ctx context.Context, path string, q Query, out any, timeout time.Duration) error {
	ep, err := readEndpoint(path)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNoLocalServer, err)
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	body, err := json.Marshal(q)
	if err != nil {
		return fmt.Errorf("local query %s: %w", q.Op, err)
	}
	if len(body) > localMaxBody {
		// The server would refuse it; the command does the work itself.
		return fmt.Errorf("%w: a %s of %d bytes is over the local endpoint's %d", ErrNoLocalServer, q.Op, len(body), localMaxBody)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+ep.Addr+localQueryPath, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrNoLocalServer, path, err)
	}
	req.Header.Set("Authorization", "Bearer "+ep.Secret)
	req.Header.Set("Content-Type", "application/json")
	client := &http.Client{Transport: &http.Transport{
		Proxy:       nil, // loopback only, whatever $HTTP_PROXY says
		DialContext: (&net.Dialer{Timeout: time.Second}).DialContext,
	}}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil && timeout == 0 {
			return ctx.Err()
		}
		if op := (*net.OpError)(nil); (q.Op == "apply" || q.Op == "capture") && !(errors.As(err, &op) && op.Op == "dial") {
			// The transaction may have been sent, and applied: doing it again here
			// could write twice. Only a server never reached is no server.
			return fmt.Errorf("local %s: %s (pid %d) did not answer, the write may have landed (norn log shows): %w", q.Op, ep.Addr, ep.PID, err)
		}
		return fmt.Errorf("%w: %s (pid %d): %w", ErrNoLocalServer, ep.Addr, ep.PID, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusBadRequest {
		// Something else listens on that port now (the server died, the port was
		// reused): a norn serve answers a query with 200, or 400 and a LocalError.
		return fmt.Errorf("%w: %s answers %s", ErrNoLocalServer, ep.Addr, resp.Status)
	}
	var r struct {
		Result json.RawMessage `json:"result"`
		LocalError
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<30)).Decode(&r); err != nil {
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%w: %s answers %s, not a norn serve answer", ErrNoLocalServer, ep.Addr, resp.Status)
		}
		return fmt.Errorf("local query %s: read answer: %w", q.Op, err)
	}
	if r.Code != "" {
		return &r.LocalError
	}
	if out == nil {
		return nil
	}
	if sr, ok := out.(*vault.SearchResponse); ok {
		a := searchAnswer{Response: sr}
		if err := json.Unmarshal(r.Result, &a); err != nil {
			return fmt.Errorf("local query %s: decode answer: %w", q.Op, err)
		}
		sr.Hits, sr.Via = a.Hits, fmt.Sprintf("norn serve (pid %d)", ep.PID)
		return nil
	}
	if err := json.Unmarshal(r.Result, out); err != nil {
		return fmt.Errorf("local query %s: decode answer: %w", q.Op, err)
	}
	return nil
}

func readEndpoint(path string) (localEndpoint, error) {
	var ep localEndpoint
	b, err := os.ReadFile(path)
	if err != nil {
		return ep, err
	}
	if err := json.Unmarshal(b, &ep); err != nil || ep.Addr == "" || ep.Secret == "" {
		return ep, fmt.Errorf("%s: not an endpoint advertisement", path)
	}
	// The secret goes only to this machine's loopback, whatever the file says.
	host, _, err := net.SplitHostPort(ep.Addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return ep, fmt.Errorf("%s: address %q is not a loopback address", path, ep.Addr)
	}
	return ep, nil
}

// writePrivateFile replaces path with b, mode 0600 (os.CreateTemp's), atomically.
func writePrivateFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".serve-*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
