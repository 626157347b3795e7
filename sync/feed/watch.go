package feed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gorilla/websocket"
)

// WatchOptions say where Watch connects and what it asks for.
type WatchOptions struct {
	// URL is the server's base (http://host:port) or the endpoint itself
	// (ws://host:port/v1/events).
	URL   string
	Token string
	// Query is what to ask for; Query.Since is where to start ("": live from
	// now).
	Query Query
	// MinBackoff and MaxBackoff bound the wait before a reconnection (defaults
	// 250 ms and 30 s); the wait doubles after each failed attempt.
	MinBackoff, MaxBackoff time.Duration
	Logger                 *slog.Logger
}

// Watch follows the feed until ctx ends, fn fails, or the server refuses it
// (ErrRefused): it hands fn every message but hello and, when the connection
// drops (a network failure, a server restart, being cut off for falling behind),
// reconnects with backoff and resumes with since set to the last commit it was
// told about, so fn sees every commit exactly once. fn's error ends Watch.
func Watch(ctx context.Context, opts WatchOptions, fn func(Message) error) error {
	if opts.MinBackoff <= 0 {
		opts.MinBackoff = 250 * time.Millisecond
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = 30 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	endpoint, err := endpointURL(opts.URL)
	if err != nil {
		return err
	}
	w := &watcher{opts: opts, endpoint: endpoint, q: opts.Query, fn: fn}
	wait := opts.MinBackoff
	for {
		hello, err := w.session(ctx)
		if ctx.Err() != nil {
			return nil
		}
		var fnErr fnError
		switch {
		case errors.As(err, &fnErr):
			return fnErr.err
		case errors.Is(err, ErrRefused):
			return err
		}
		if hello {
			wait = opts.MinBackoff
		}
		opts.Logger.Warn("feed connection lost; reconnecting", "err", err, "since", w.q.Since.Short(), "in", wait)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		wait = min(wait*2, opts.MaxBackoff)
	}
}

type watcher struct {
	opts     WatchOptions
	endpoint *url.URL
	q        Query
	fn       func(Message) error
}

// fnError is the callback's error, which ends Watch.
type fnError struct{ err error }

func (e fnError) Error() string { return e.err.Error() }

// session runs one connection; hello reports whether the server said hello.
func (w *watcher) session(ctx context.Context) (hello bool, err error) {
	u := *w.endpoint
	v := w.q.Values()
	u.RawQuery = v.Encode()
	h := http.Header{}
	if w.opts.Token != "" {
		h.Set("Authorization", "Bearer "+w.opts.Token)
	}
	conn, resp, err := websocket.DefaultDialer.DialContext(ctx, u.String(), h)
	if err != nil {
		return false, dialError(resp, err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	for {
		_, b, err := conn.ReadMessage()
		if err != nil {
			return hello, fmt.Errorf("read: %w", err)
		}
		var m Message
		if err := json.Unmarshal(b, &m); err != nil {
			return hello, fmt.Errorf("decode message: %w", err)
		}
		if m.Type == TypeHello {
			if m.Protocol != Protocol {
				return hello, fmt.Errorf("%w: server speaks feed protocol %d, this client %d", ErrRefused, m.Protocol, Protocol)
			}
			hello = true
			if w.q.Since == "" {
				w.q.Since = m.Head
			}
			continue
		}
		if err := w.fn(m); err != nil {
			return hello, fnError{err}
		}
		if c := m.Cursor(); c != "" {
			w.q.Since = c
		}
	}
}

// dialError classifies a failed handshake: a refusal with a JSON error body
// (400, 401, 403) is ErrRefused, anything else can be retried.
func dialError(resp *http.Response, err error) error {
	if resp == nil {
		return fmt.Errorf("dial: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	var e struct{ Error, Message string }
	json.Unmarshal(body, &e)
	switch resp.StatusCode {
	case http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
		return fmt.Errorf("%w: %s: %s", ErrRefused, resp.Status, e.Message)
	}
	return fmt.Errorf("dial: %s: %w", resp.Status, err)
}

// endpointURL turns a server's base URL into the events endpoint's ws URL.
func endpointURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return nil, badQueryf("url %q is not an absolute URL", s)
	}
	switch u.Scheme {
	case "http", "ws":
		u.Scheme = "ws"
	case "https", "wss":
		u.Scheme = "wss"
	default:
		return nil, badQueryf("url %q: scheme must be http, https, ws or wss", s)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = Path
	} else if !strings.HasSuffix(u.Path, Path) {
		u.Path = strings.TrimSuffix(u.Path, "/") + Path
	}
	u.RawQuery = ""
	return u, nil
}
