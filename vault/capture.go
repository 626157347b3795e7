package vault

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// maxCaptureBytes bounds one capture's text.
const maxCaptureBytes = 64 << 10

// CaptureRequest asks to append Text (optionally titled) to today's inbox note.
type CaptureRequest struct {
	Text   string
	Title  string
	Author repo.Author
	Roles  []string
	DryRun bool
	// Now is the capture's time (zero: time.Now); its UTC day names the inbox note.
	Now time.Time
	// Hidden hides notes the requester may not see (nil: none): a hidden inbox
	// note cannot be appended to. It is not part of the request's JSON (the
	// local endpoint's capture): a command sees every note.
	Hidden graph.Hidden `json:"-"`
}

// Captured is the commit of a capture, to the inbox note Path.
type Captured struct {
	NoteWrite
	Path note.Path
	// Created: the inbox note did not exist and was created.
	Created bool
}

// Capture appends r.Text as a new timestamped entry to today's inbox note
// (<inbox>/YYYY-MM-DD.md, from the vault's settings), creating it when missing,
// in one commit (Norn-Op: capture). It changes nothing else. Captures through
// this Vault go one at a time; one that loses a race with another process's write
// to the note reads it again and appends again (append-only, so nothing is lost).
func (v *Vault) Capture(ctx context.Context, r CaptureRequest) (*Captured, error) {
	text := strings.TrimSpace(r.Text)
	if text == "" {
		return nil, invalidf("text is required")
	}
	if len(r.Text) > maxCaptureBytes {
		return nil, invalidf("text is %d bytes; a capture takes at most %d: write a note instead", len(r.Text), maxCaptureBytes)
	}
	title := strings.Join(strings.Fields(r.Title), " ")
	now := r.Now
	if now.IsZero() {
		now = time.Now()
	}
	now = now.UTC()
	day := now.Format("2006-01-02")
	cfg, _, _ := v.Settings.Current(ctx)
	inbox := strings.Trim(cfg.Inbox, "/")
	p := note.Path(day + ".md")
	if inbox != "" {
		p = note.Path(inbox + "/" + day + ".md")
	}
	if v.hiddenAt(r.Hidden, p) {
		// Capture takes no path, so a "choose another path" would be no help.
		e := invalidf("today's inbox note %s is one you cannot see, so a capture cannot append to it: write a note of your own with write_note instead, or ask the vault's owner (nothing was written)", p)
		e.Path = p
		return nil, e
	}
	heading := "## " + now.Format("15:04:05") + " UTC"
	if title != "" {
		heading += " · " + title
	}
	entry := "\n" + heading + "\n\n" + text + "\n"
	msg := "capture " + string(p)
	if title != "" {
		msg += ": " + title
	}
	v.captureMu.Lock()
	defer v.captureMu.Unlock()
	for attempt := 0; ; attempt++ {
		old := fmt.Appendf(nil, "---\ntitle: Inbox %s\ntype: inbox\nstatus: active\ntags: [inbox, capture]\nupdated: %s\n---\n# Inbox %s\n", day, day, day)
		rev := v.Revision(p)
		if rev != "" {
			b, err := v.ReadRevision(ctx, rev)
			if err != nil {
				return nil, fmt.Errorf("capture %s: %w", p, err)
			}
			old = b
		}
		next := append([]byte(nil), old...)
		if len(next) > 0 && next[len(next)-1] != '\n' {
			next = append(next, '\n')
		}
		next = append(next, entry...)
		ch := repo.Change{Kind: repo.Put, Path: p, Content: next, ExpectedRevision: rev}
		rl := v.Relinks(ctx, []repo.Change{ch}, r.Hidden)
		res, err := v.Apply(ctx, repo.Tx{Author: r.Author, Roles: r.Roles, Op: repo.OpCapture, Message: repo.Subject(msg), DryRun: r.DryRun, Changes: []repo.Change{ch}})
		var busy *repo.BusyError
		if errors.Is(err, repo.ErrConflict) && !errors.As(err, &busy) && attempt < 3 {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("capture %s: %w", p, err)
		}
		return &Captured{NoteWrite: *noteWrite(p, res, rev, rl), Path: p, Created: rev == ""}, nil
	}
}
