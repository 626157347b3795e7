package repo

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// commitObj is a decoded git commit.
type commitObj struct {
	tree      hash
	parents   []hash
	author    Author
	committer Author
	when      time.Time // author time
	message   string
}

// Trailer keys Norn writes at the end of every commit message.
const (
	trailerOp     = "Norn-Op"
	trailerReason = "Norn-Reason"
	trailerTxn    = "Norn-Txn"
)

func validIdentity(a Author) error {
	if strings.TrimSpace(a.Name) == "" {
		return invalidf("author name is empty")
	}
	for _, s := range []string{a.Name, a.Email} {
		if strings.ContainsAny(s, "<>") || !utf8.ValidString(s) || strings.ContainsFunc(s, unicode.IsControl) {
			return invalidf("author %q: name and email are UTF-8 text without <, > or control characters (line breaks, escape sequences)", s)
		}
	}
	return nil
}

func sig(a Author, t time.Time) string {
	_, off := t.Zone()
	sign := '+'
	if off < 0 {
		sign, off = '-', -off
	}
	return fmt.Sprintf("%s <%s> %d %c%02d%02d", a.Name, a.Email, t.Unix(), sign, off/3600, (off%3600)/60)
}

func encodeCommit(c *commitObj, committerTime time.Time) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "tree %s\n", c.tree)
	for _, p := range c.parents {
		fmt.Fprintf(&b, "parent %s\n", p)
	}
	fmt.Fprintf(&b, "author %s\n", sig(c.author, c.when))
	fmt.Fprintf(&b, "committer %s\n", sig(c.committer, committerTime))
	b.WriteByte('\n')
	b.WriteString(c.message)
	return b.Bytes()
}

func decodeCommit(data []byte) (*commitObj, error) {
	c := &commitObj{}
	head, msg, _ := bytes.Cut(data, []byte("\n\n"))
	c.message = string(msg)
	for _, line := range strings.Split(string(head), "\n") {
		k, val, _ := strings.Cut(line, " ")
		switch k {
		case "tree":
			id, ok := parseHash(val)
			if !ok {
				return nil, fmt.Errorf("decode commit: bad tree %q", val)
			}
			c.tree = id
		case "parent":
			id, ok := parseHash(val)
			if !ok {
				return nil, fmt.Errorf("decode commit: bad parent %q", val)
			}
			c.parents = append(c.parents, id)
		case "author":
			c.author, c.when = parseSig(val)
		case "committer":
			c.committer, _ = parseSig(val)
		}
	}
	if c.tree.isZero() {
		return nil, fmt.Errorf("decode commit: no tree")
	}
	return c, nil
}

func parseSig(s string) (Author, time.Time) {
	var a Author
	lt := strings.IndexByte(s, '<')
	gt := strings.LastIndexByte(s, '>')
	if lt < 0 || gt < lt {
		return Author{Name: s}, time.Time{}
	}
	a.Name = strings.TrimSpace(s[:lt])
	a.Email = s[lt+1 : gt]
	fields := strings.Fields(s[gt+1:])
	var t time.Time
	if len(fields) >= 1 {
		if sec, err := strconv.ParseInt(fields[0], 10, 64); err == nil {
			t = time.Unix(sec, 0)
			if len(fields) >= 2 && len(fields[1]) == 5 {
				h, _ := strconv.Atoi(fields[1][1:3])
				m, _ := strconv.Atoi(fields[1][3:5])
				off := h*3600 + m*60
				if fields[1][0] == '-' {
					off = -off
				}
				t = t.In(time.FixedZone("", off))
			}
		}
	}
	return a, t
}

// MaxSubjectBytes bounds a commit subject (Tx.Message).
const MaxSubjectBytes = 200

// ValidSubject checks a commit subject a writer gives (Tx.Message, spaces around
// it trimmed): at most MaxSubjectBytes bytes of UTF-8 on one line, without
// control characters. A line break would let the subject add lines of its own to
// the message, fake Norn-Op or Norn-Reason trailers among them. "" is valid (the
// default subject). Errors match ErrInvalid.
func ValidSubject(s string) error {
	switch {
	case len(s) > MaxSubjectBytes:
		return invalidf("message is %d bytes; a commit subject is at most %d: write one short line", len(s), MaxSubjectBytes)
	case !utf8.ValidString(s):
		return invalidf("message is not valid UTF-8")
	}
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return invalidf("message %q holds a line break or another control character: a commit subject is one line of plain text", s)
		}
	}
	return nil
}

// Subject makes s, text of Norn's own (a path, a title), a subject ValidSubject
// accepts: runs of spaces and control characters become one space, and text over
// MaxSubjectBytes is cut on a character boundary, ending in "…".
func Subject(s string) string {
	var b strings.Builder
	gap := false
	for _, r := range strings.TrimSpace(s) {
		if unicode.IsControl(r) || unicode.IsSpace(r) {
			gap = true
			continue
		}
		if gap && b.Len() > 0 {
			b.WriteByte(' ')
		}
		gap = false
		b.WriteRune(r)
	}
	out := b.String()
	if len(out) > MaxSubjectBytes {
		cut := MaxSubjectBytes - len("…")
		for cut > 0 && !utf8.RuneStart(out[cut]) {
			cut--
		}
		out = out[:cut] + "…"
	}
	return out
}

// buildMessage builds a commit message: subject, optional body, then the trailers.
func buildMessage(subject string, trailers [][2]string) string {
	var b strings.Builder
	b.WriteString(strings.TrimRight(subject, "\n"))
	b.WriteString("\n\n")
	for _, t := range trailers {
		if t[1] == "" {
			continue
		}
		b.WriteString(t[0])
		b.WriteString(": ")
		b.WriteString(t[1])
		b.WriteByte('\n')
	}
	return b.String()
}

// parseTrailers reads "Key: value" lines from the message's last paragraph.
func parseTrailers(msg string) map[string]string {
	msg = strings.TrimRight(msg, "\n")
	i := strings.LastIndex(msg, "\n\n")
	if i < 0 {
		return nil
	}
	out := map[string]string{}
	for _, line := range strings.Split(msg[i+2:], "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if !ok || strings.ContainsAny(k, " \t") {
			return nil
		}
		out[k] = v
	}
	return out
}

func (v *Vault) readCommit(id hash) (*commitObj, error) {
	data, err := v.objs.readTyped(id, "commit")
	if err != nil {
		return nil, err
	}
	c, err := decodeCommit(data)
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", id, err)
	}
	return c, nil
}

// toCommit turns a decoded commit into the public form.
func toCommit(id hash, c *commitObj) Commit {
	out := Commit{
		ID: CommitID(id.String()), Author: c.author, Committer: c.committer, When: c.when,
		Message: c.message, Parents: make([]CommitID, 0, len(c.parents)), // a root commit's is [], not null
	}
	out.Subject, _, _ = strings.Cut(c.message, "\n")
	for _, p := range c.parents {
		out.Parents = append(out.Parents, CommitID(p.String()))
	}
	if t := parseTrailers(c.message); t != nil {
		out.Op, out.Reason, out.Txn = Op(t[trailerOp]), Reason(t[trailerReason]), t[trailerTxn]
	}
	return out
}
