package feed

import (
	"fmt"
	"time"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// Protocol is the version of the message schema a hello announces. Changelog:
//
//	1: hello, event, head, resync.
const Protocol = 1

// MessageType names a message of the feed.
type MessageType string

// The messages a client receives, in this order: one hello; then, when since was
// given, either a resync or the replay of every commit after since; then one
// event or head per new commit, and a head now and then while idle.
const (
	// TypeHello: the first message, with Protocol, the vault's Head and the
	// Principal the connection is authenticated as.
	TypeHello MessageType = "hello"
	// TypeEvent: one commit with the changes the client may see.
	TypeEvent MessageType = "event"
	// TypeHead: the client's cursor is Head. Sent for a commit whose every change
	// is hidden or filtered out (so that it is never replayed again), and
	// periodically while idle.
	TypeHead MessageType = "head"
	// TypeResync: since could not be replayed from (unknown, or no longer an
	// ancestor of the branch's head), or the branch was moved back or onto
	// rewritten history while the client was connected (a `git reset` made by
	// hand): the client should reload its state as of Head; the stream continues
	// live from Head.
	TypeResync MessageType = "resync"
)

// Message is one frame of the feed (a JSON text message). Fields a type does not
// use are left out.
type Message struct {
	Type MessageType `json:"type"`
	// hello
	Protocol  int    `json:"protocol,omitempty"`
	Principal string `json:"principal,omitempty"`
	// hello, head, resync
	Head repo.CommitID `json:"head,omitempty"`
	// resync: why since was not replayed.
	Detail string `json:"detail,omitempty"`
	// event
	Commit  repo.CommitID      `json:"commit,omitempty"`
	Parents []repo.CommitID    `json:"parents,omitempty"`
	Author  *repo.Author       `json:"author,omitempty"`
	Op      repo.Op            `json:"op,omitempty"`
	Reason  repo.Reason        `json:"reason,omitempty"`
	Time    time.Time          `json:"time,omitzero"`
	Source  repo.Source        `json:"source,omitempty"`
	Changes []repo.EventChange `json:"changes,omitempty"`
}

// Cursor is the commit a message tells the client it is at ("" for a message
// that moves no cursor).
func (m *Message) Cursor() repo.CommitID {
	if m.Type == TypeEvent {
		return m.Commit
	}
	return m.Head
}

// rewindMessage is the resync a connected client is sent when the branch moved
// from rw.From to rw.To, which does not contain it.
func rewindMessage(rw *repo.Rewind) Message {
	return Message{Type: TypeResync, Head: rw.To,
		Detail: fmt.Sprintf("the branch moved from %s to %s, which does not contain it (history was rewritten)", rw.From.Short(), rw.To.Short())}
}

// render turns a commit event into what one client may see: the changes visible
// to it and matching q; an event with nothing left (or filtered out by op) is a
// head message, so that the cursor moves without telling anything about it.
// Subject and message are never sent: they may name a hidden path.
func render(ev *repo.Event, q *Query, visible func(note.Path, repo.Revision) bool) Message {
	head := Message{Type: TypeHead, Head: ev.ID}
	if !q.matchOp(ev.Op) {
		return head
	}
	var kept []repo.EventChange
	hidden := false
	for _, c := range ev.Changes {
		c, ok := seen(c, visible)
		if !ok {
			hidden = true
			continue
		}
		if q.matchPath(c.Path) || (c.From != "" && q.matchPath(c.From)) {
			kept = append(kept, c)
		}
	}
	if len(kept) == 0 && (hidden || len(ev.Changes) > 0 || q.pathFiltered()) {
		return head
	}
	author := ev.Author
	return Message{Type: TypeEvent, Commit: ev.ID, Parents: ev.Parents, Author: &author, Op: ev.Op,
		Reason: ev.Reason, Time: ev.When, Source: ev.Source, Changes: kept}
}

// seen is a change as a client that sees only what visible allows sees it. A
// change has an old side (the note at From, or Path, with OldRevision) and a new
// side (Path with Revision); each is judged with its own revision, since privacy
// may follow a note's content. A change whose one visible side is the new one is
// an addition, whose one visible side is the old one an archive; with neither
// visible it is not seen at all.
func seen(c repo.EventChange, visible func(note.Path, repo.Revision) bool) (repo.EventChange, bool) {
	if visible == nil {
		return c, true
	}
	oldPath := c.Path
	if c.From != "" {
		oldPath = c.From
	}
	hasOld, hasNew := c.OldRevision != "", c.Revision != ""
	if !hasOld && !hasNew {
		return c, visible(c.Path, "")
	}
	oldOK := hasOld && visible(oldPath, c.OldRevision)
	newOK := hasNew && visible(c.Path, c.Revision)
	switch {
	case (oldOK || !hasOld) && (newOK || !hasNew):
		return c, true
	case newOK:
		return repo.EventChange{Kind: repo.EventAdded, Path: c.Path, Revision: c.Revision}, true
	case oldOK:
		return repo.EventChange{Kind: repo.EventArchived, Path: oldPath, OldRevision: c.OldRevision}, true
	}
	return c, false
}
