package feed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/gorilla/websocket"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// Access is who a connection is and what it may see.
type Access struct {
	// Principal is the name the hello message announces.
	Principal string
	// Visible reports whether the client may see the note at path p with
	// revision rev (the blob; "" only for a change that has neither an old nor a
	// new one), nil: everything. It is the caller's privacy rule, by folder or by
	// content; a change is judged on both its sides (see render), and nothing of a
	// hidden side is ever sent.
	Visible func(p note.Path, rev repo.Revision) bool
	// Holds reports whether the credential the connection was opened with is
	// still good (nil: always). It is asked before every batch of messages and at
	// every ping; once false the connection is closed with 1008 and nothing more
	// is sent.
	Holds func() bool
}

// RevokedReason is the close reason of a connection whose credential was
// revoked.
const RevokedReason = "credential revoked"

// maxClientFrame caps what a client may send (it has nothing to say but pongs
// and close frames).
const maxClientFrame = 4096

// session is one connection being served: the reader goroutine handles pongs
// and notices the client leaving; the serving goroutine writes every frame.
type session struct {
	h      *Hub
	conn   *websocket.Conn
	c      *client
	q      Query
	access Access
	// cursor is the last commit the client was told it is at: the resume hint.
	cursor repo.CommitID
	// skipTo: queued events at or before this commit (the vault's head, replayed
	// ahead of the hub) are skipped; "" once one after it was seen.
	skipTo repo.CommitID
	sent   bool // a frame was written since the last head tick
	ping   *time.Ticker
}

// serve runs one websocket connection until the client leaves, falls behind, or
// the hub closes. It closes conn.
func (h *Hub) serve(conn *websocket.Conn, a Access, q Query) {
	c := newClient(h.opts.QueueSize)
	start, err := h.register(c)
	if err != nil {
		h.closeConn(conn, websocket.CloseGoingAway, "server shutting down")
		conn.Close()
		return
	}
	defer h.unregister(c)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		defer cancel()
		h.read(conn)
	}()
	s := &session{h: h, conn: conn, c: c, q: q, access: a, ping: time.NewTicker(h.opts.PingInterval)}
	defer s.ping.Stop()
	if err := s.run(ctx, start); err != nil && ctx.Err() == nil {
		h.log.Debug("feed: connection ended", "principal", a.Principal, "err", err)
	}
	conn.Close()
	<-readerDone
}

// read consumes the client's frames (pongs, close) until the connection fails;
// a client silent for PongWait is gone.
func (h *Hub) read(conn *websocket.Conn) {
	conn.SetReadLimit(maxClientFrame)
	conn.SetReadDeadline(time.Now().Add(h.opts.PongWait))
	conn.SetPongHandler(func(string) error {
		return conn.SetReadDeadline(time.Now().Add(h.opts.PongWait))
	})
	for {
		if _, _, err := conn.NextReader(); err != nil {
			return
		}
	}
}

func (s *session) run(ctx context.Context, start repo.CommitID) error {
	if !s.holds() {
		return s.revoked()
	}
	if err := s.send(Message{Type: TypeHello, Protocol: Protocol, Head: start, Principal: s.access.Principal}); err != nil {
		return err
	}
	s.cursor = start
	if s.q.Since != "" {
		// Replay as of the vault's head, which may be ahead of the hub's (events
		// on their way): a client resuming from a commit it just made is not told
		// to resync, and the queued events up to that head are skipped.
		target := start
		if head := s.h.src.Head(); head != "" && head != start {
			target, s.skipTo = head, head
		}
		if err := s.replay(ctx, target); err != nil {
			return err
		}
	}
	return s.live(ctx)
}

// replay sends every commit after since up to start (the last commit published
// before the client was registered; every later one is in its queue), or a
// resync when since cannot be replayed from.
func (s *session) replay(ctx context.Context, start repo.CommitID) error {
	since := s.q.Since
	s.cursor = since
	if since == start {
		return nil
	}
	if detail, err := s.h.replayable(ctx, since, start); err != nil {
		return err
	} else if detail != "" {
		s.cursor = start
		return s.send(Message{Type: TypeResync, Head: start, Detail: detail})
	}
	after := repo.CommitID("")
	for {
		evs, next, err := s.h.src.CommitsBetween(ctx, since, start, after, s.h.opts.ReplayPage)
		if err != nil {
			return fmt.Errorf("replay after %s: %w", since.Short(), err)
		}
		for i := range evs {
			if err := s.sendEvent(&evs[i]); err != nil {
				return err
			}
		}
		if next == "" {
			return nil
		}
		after = next
		select {
		case <-s.h.done:
			return nil // live says goodbye
		default:
		}
		if s.c.overflowed() {
			return s.evict()
		}
		if !s.holds() {
			return s.revoked()
		}
		if err := s.pingIfDue(); err != nil {
			return err
		}
	}
}

// replayable says why since cannot be replayed up to start ("" when it can):
// it is not a commit of the vault, or not an ancestor of start.
func (h *Hub) replayable(ctx context.Context, since, start repo.CommitID) (string, error) {
	if start == "" {
		return "the vault has no commits", nil
	}
	// since is an ancestor of start iff nothing is reachable from since but not
	// from start.
	extra, _, err := h.src.CommitsBetween(ctx, start, since, "", 1)
	switch {
	case errors.Is(err, repo.ErrNotFound) || errors.Is(err, repo.ErrInvalid):
		return fmt.Sprintf("since %s is not a commit of this vault", since.Short()), nil
	case err != nil:
		return "", fmt.Errorf("place since %s: %w", since.Short(), err)
	case len(extra) > 0:
		return fmt.Sprintf("since %s is not an ancestor of head %s (history was rewritten)", since.Short(), start.Short()), nil
	}
	return "", nil
}

// live sends queued commits as they come, pings, and tells an idle client its
// cursor, until the client leaves, falls behind or the hub closes.
func (s *session) live(ctx context.Context) error {
	head := time.NewTicker(s.h.opts.HeadInterval)
	defer head.Stop()
	var batch []Update
	for {
		select {
		case <-s.c.wake:
			if !s.holds() {
				return s.revoked()
			}
			var slow bool
			batch, slow = s.c.take(batch[:0])
			for _, u := range batch {
				if u.Rewind != nil {
					// What the client holds may be gone from the branch: it
					// reloads as of the new head, and goes on from there.
					s.skipTo = ""
					if err := s.send(rewindMessage(u.Rewind)); err != nil {
						return err
					}
					s.cursor = u.Rewind.To
					continue
				}
				if s.skip(ctx, u.Event) {
					continue
				}
				if err := s.sendEvent(u.Event); err != nil {
					return err
				}
			}
			clear(batch)
			if slow {
				return s.evict()
			}
		case <-s.ping.C:
			if !s.holds() {
				return s.revoked()
			}
			if err := s.writePing(); err != nil {
				return err
			}
		case <-head.C:
			if !s.sent && s.cursor != "" {
				if err := s.send(Message{Type: TypeHead, Head: s.cursor}); err != nil {
					return err
				}
			}
			s.sent = false
		case <-ctx.Done():
			return nil
		case <-s.h.done:
			s.h.closeConn(s.conn, websocket.CloseGoingAway, "server shutting down; resume with since="+string(s.cursor))
			return nil
		}
	}
}

// skip reports whether e was replayed already (at or before skipTo).
func (s *session) skip(ctx context.Context, e *repo.Event) bool {
	if s.skipTo == "" {
		return false
	}
	if s.h.atOrBefore(ctx, e, s.skipTo) {
		if e.ID == s.skipTo {
			s.skipTo = ""
		}
		return true
	}
	s.skipTo = ""
	return false
}

// atOrBefore reports whether e is to or an ancestor of it.
func (h *Hub) atOrBefore(ctx context.Context, e *repo.Event, to repo.CommitID) bool {
	if e.ID == to {
		return true
	}
	newer, _, err := h.src.CommitsBetween(ctx, to, e.ID, "", 1)
	return err == nil && len(newer) == 0
}

func (s *session) holds() bool { return s.access.Holds == nil || s.access.Holds() }

// revoked closes a client whose credential is no longer good.
func (s *session) revoked() error {
	s.h.log.Info("feed: credential revoked; connection closed", "principal", s.access.Principal)
	s.h.closeConn(s.conn, websocket.ClosePolicyViolation, RevokedReason)
	return nil
}

// evict closes a client that fell behind with code 1008 and the resume hint.
func (s *session) evict() error {
	s.h.log.Info("feed: client fell behind; cut off", "principal", s.access.Principal, "cursor", s.cursor.Short())
	s.h.closeConn(s.conn, websocket.ClosePolicyViolation, SlowReason+string(s.cursor))
	return nil
}

// SlowReason starts the close reason of a client cut off for falling behind;
// the commit to resume from follows it.
const SlowReason = "slow consumer; resume with since="

func (h *Hub) closeConn(conn *websocket.Conn, code int, reason string) {
	_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason),
		time.Now().Add(h.opts.WriteTimeout))
}

func (s *session) sendEvent(e *repo.Event) error {
	if err := s.send(render(e, &s.q, s.access.Visible)); err != nil {
		return err
	}
	s.cursor = e.ID
	return nil
}

func (s *session) send(m Message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode %s message: %w", m.Type, err)
	}
	s.conn.SetWriteDeadline(time.Now().Add(s.h.opts.WriteTimeout))
	if err := s.conn.WriteMessage(websocket.TextMessage, b); err != nil {
		return fmt.Errorf("write %s message: %w", m.Type, err)
	}
	s.sent = true
	return nil
}

func (s *session) pingIfDue() error {
	select {
	case <-s.ping.C:
		return s.writePing()
	default:
		return nil
	}
}

func (s *session) writePing() error {
	return s.conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(s.h.opts.WriteTimeout))
}
