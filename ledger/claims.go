package ledger

import (
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// ClaimID names one claim record. It is 26 characters of lowercase base32
// (a-z, 2-7): 130 bits of a SHA-256 over the whole claim — its asserter, the
// nanosecond of assertion and everything it says (NewClaimID) — so two distinct
// claims, from two agents or two machines, never get the same id; the same
// claim made twice at the same nanosecond by the same agent would, and its
// file is created exclusively, so the second write is refused, never an
// overwrite.
type ClaimID string

// claimIDLen is the length of a ClaimID.
const claimIDLen = 26

// ClaimDir is the folder of the claim records, one YAML file per claim.
const ClaimDir = ".norn/claims/"

// ClaimKind says what a claim record does.
type ClaimKind string

// The kinds of claim record.
const (
	// KindAssertion asserts Value for (Subject, Property, Scope), read from Source.
	KindAssertion ClaimKind = "assertion"
	// KindRetraction is a tombstone: it supersedes a claim and asserts nothing,
	// so a retraction deletes nothing.
	KindRetraction ClaimKind = "retraction"
)

// Claim is one claim record: what .norn/claims/<id[:2]>/<id>.yaml holds.
type Claim struct {
	ID       ClaimID   `json:"id"`
	Kind     ClaimKind `json:"kind"`
	Subject  string    `json:"subject"`
	Property string    `json:"property"`
	Scope    string    `json:"scope"`
	// Value is what an assertion asserts ("" for a retraction).
	Value string `json:"value,omitempty"`
	// Source is where an assertion was read (zero for a retraction).
	Source Source `json:"source,omitzero"`
	// ValidFrom and ValidTo bound when the value holds: [ValidFrom, ValidTo),
	// a zero time leaving that end open.
	ValidFrom time.Time `json:"valid_from,omitzero"`
	ValidTo   time.Time `json:"valid_to,omitzero"`
	// Supersedes is the claim this one replaces: same subject, property and
	// scope (required for a retraction).
	Supersedes ClaimID     `json:"supersedes,omitempty"`
	AssertedBy repo.Author `json:"asserted_by"`
	AssertedAt time.Time   `json:"asserted_at"`
	// Private: the claim was read from a private note (or retracts such a
	// claim), so the record is private as the note is: a reader without the
	// private scope learns nothing of it (the vault's privacy rule).
	Private bool `json:"private,omitempty"`
}

// Limits of the claims profile.
const (
	MaxSubjectBytes  = 256
	MaxPropertyBytes = 128
	MaxScopeBytes    = 128
	MaxValueBytes    = 4096
	MaxNameBytes     = 256
	// MaxClaimBytes bounds a claim file; the decoder reads nothing larger.
	MaxClaimBytes = 16 << 10
)

// NewClaimID is the id of c: a digest of every field but the id, so it depends
// on nothing but the claim (a dry run and the write give the same id).
func NewClaimID(c *Claim) ClaimID {
	h := sha256.New()
	for _, f := range []string{string(c.Kind), c.Subject, c.Property, c.Scope, c.Value, string(c.Source.Path),
		string(c.Source.Revision), stamp(c.ValidFrom), stamp(c.ValidTo), string(c.Supersedes), c.AssertedBy.Name, c.AssertedBy.Email,
		fmt.Sprint(c.Private)} {
		fmt.Fprintf(h, "%d:%s\x00", len(f), f)
	}
	var ts [8]byte
	binary.BigEndian.PutUint64(ts[:], uint64(c.AssertedAt.UnixNano()))
	h.Write(ts[:])
	return ClaimID(idEncoding.EncodeToString(h.Sum(nil))[:claimIDLen])
}

var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// ParseClaimID checks s as a claim id (spaces around it are dropped).
func ParseClaimID(s string) (ClaimID, error) {
	s = strings.TrimSpace(s)
	if !validID(s) {
		return "", invalid("", "claim id %q is not a claim id: 26 characters of a-z and 2-7, as assert printed", clip(s))
	}
	return ClaimID(s), nil
}

func validID(s string) bool {
	if len(s) != claimIDLen {
		return false
	}
	for i := range len(s) {
		if c := s[i]; !('a' <= c && c <= 'z' || '2' <= c && c <= '7') {
			return false
		}
	}
	return true
}

// ClaimPath is where the claim id is stored: a folder per first two characters
// keeps every tree small at any number of claims.
func ClaimPath(id ClaimID) note.Path {
	return note.Path(ClaimDir + string(id[:2]) + "/" + string(id) + ".yaml")
}

// IsClaimPath reports whether p is under the claims folder (a claim record, or
// a file there that should not be).
func IsClaimPath(p note.Path) bool { return strings.HasPrefix(string(p), ClaimDir) }

// ErrInvalidClaim: a claim record or request breaks the claims profile. Errors
// that match it also match repo.ErrInvalid.
var ErrInvalidClaim = errors.New("invalid claim")

// ClaimError is a claim that breaks the claims profile: every problem found,
// each naming its rule. It matches ErrInvalidClaim and repo.ErrInvalid.
type ClaimError struct {
	Path     note.Path
	Problems []Problem
}

// Problem is one broken rule of the claims profile.
type Problem struct {
	Rule  string `json:"rule"`
	Field string `json:"field,omitempty"`
	Line  int    `json:"line,omitempty"`
	Msg   string `json:"message"`
}

func (e *ClaimError) Error() string {
	var b strings.Builder
	b.WriteString("invalid claim")
	if e.Path != "" {
		b.WriteString(" " + string(e.Path))
	}
	for i, p := range e.Problems {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		if p.Line > 0 {
			fmt.Fprintf(&b, "line %d: ", p.Line)
		}
		if p.Field != "" {
			b.WriteString(p.Field + ": ")
		}
		fmt.Fprintf(&b, "%s (rule %s)", p.Msg, p.Rule)
	}
	return b.String()
}

// Is makes a ClaimError match ErrInvalidClaim and repo.ErrInvalid.
func (e *ClaimError) Is(target error) bool {
	return target == ErrInvalidClaim || target == repo.ErrInvalid
}

func invalid(field, format string, a ...any) *ClaimError {
	return &ClaimError{Problems: []Problem{{Rule: "claim-invalid", Field: field, Msg: fmt.Sprintf(format, a...)}}}
}

// The rules of the claims profile.
const (
	RuleMissing  = "claim-field-missing"
	RuleTooLong  = "claim-field-too-long"
	RuleText     = "claim-field-text"
	RuleSource   = "claim-source"
	RuleWindow   = "claim-window"
	RuleKind     = "claim-kind"
	RuleSelf     = "claim-supersedes-self"
	RuleID       = "claim-id"
	RuleSyntax   = "claim-syntax"
	RuleTooLarge = "claim-too-large"
)

// Check applies the claims profile to c: the required fields, their lengths,
// text without control characters, a source that is a note with a revision, a
// window that is not empty, and a retraction that supersedes something and
// asserts nothing. It returns nil or a *ClaimError naming every problem.
func (c *Claim) Check() error {
	var ps []Problem
	add := func(rule, field, format string, a ...any) {
		ps = append(ps, Problem{Rule: rule, Field: field, Msg: fmt.Sprintf(format, a...)})
	}
	text := func(field, s string, limit int, required bool) {
		switch {
		case strings.TrimSpace(s) == "":
			if required {
				add(RuleMissing, field, "required: give a non-empty %s", field)
			}
		case len(s) > limit:
			add(RuleTooLong, field, "%d bytes; at most %d", len(s), limit)
		case !utf8.ValidString(s):
			add(RuleText, field, "not valid UTF-8")
		case s != strings.TrimSpace(s):
			add(RuleText, field, "spaces around the text: trim them")
		case strings.ContainsFunc(s, unicode.IsControl):
			add(RuleText, field, "holds a line break or another control character: one line of plain text")
		}
	}
	if !validID(string(c.ID)) {
		add(RuleID, "id", "%q is not a claim id (26 characters of a-z and 2-7)", clip(string(c.ID)))
	}
	text("subject", c.Subject, MaxSubjectBytes, true)
	text("property", c.Property, MaxPropertyBytes, true)
	text("scope", c.Scope, MaxScopeBytes, true)
	text("asserted_by.name", c.AssertedBy.Name, MaxNameBytes, true)
	text("asserted_by.email", c.AssertedBy.Email, MaxNameBytes, false)
	if c.AssertedAt.IsZero() {
		add(RuleMissing, "asserted_at", "required: the moment of assertion")
	}
	if c.Supersedes != "" {
		if !validID(string(c.Supersedes)) {
			add(RuleID, "supersedes", "%q is not a claim id", clip(string(c.Supersedes)))
		} else if c.Supersedes == c.ID {
			add(RuleSelf, "supersedes", "a claim cannot supersede itself")
		}
	}
	switch c.Kind {
	case KindAssertion:
		if c.Value == "" {
			add(RuleMissing, "value", "required: the value asserted")
		} else if len(c.Value) > MaxValueBytes {
			add(RuleTooLong, "value", "%d bytes; at most %d", len(c.Value), MaxValueBytes)
		} else if !utf8.ValidString(c.Value) || strings.ContainsRune(c.Value, 0) {
			add(RuleText, "value", "not valid UTF-8 text")
		}
		ps = append(ps, checkSource(c.Source)...)
		if !c.ValidFrom.IsZero() && !c.ValidTo.IsZero() && !c.ValidTo.After(c.ValidFrom) {
			add(RuleWindow, "valid_to", "valid_to (%s) must come after valid_from (%s)", c.ValidTo.Format(time.RFC3339), c.ValidFrom.Format(time.RFC3339))
		}
	case KindRetraction:
		if c.Supersedes == "" {
			add(RuleMissing, "supersedes", "a retraction names the claim it retracts")
		}
		if c.Value != "" || c.Source != (Source{}) || !c.ValidFrom.IsZero() || !c.ValidTo.IsZero() {
			add(RuleKind, "kind", "a retraction asserts nothing: no value, source or validity window")
		}
	default:
		add(RuleKind, "kind", "%q: want %s or %s", clip(string(c.Kind)), KindAssertion, KindRetraction)
	}
	if len(ps) == 0 {
		return nil
	}
	return &ClaimError{Problems: ps}
}

// checkSource applies the source rules: a note's path outside .norn/, and a
// full revision id.
func checkSource(s Source) []Problem {
	var ps []Problem
	p := string(s.Path)
	switch {
	case p == "":
		ps = append(ps, Problem{Rule: RuleMissing, Field: "source.path", Msg: "required: the note the value was read from"})
	case repo.ValidPath(p) != nil || !note.IsNote(s.Path) || strings.HasPrefix(p, ".norn/"):
		ps = append(ps, Problem{Rule: RuleSource, Field: "source.path", Msg: fmt.Sprintf("%q is not a note's path (a vault-relative .md path outside .norn/)", clip(p))})
	}
	if !isHex40(string(s.Revision)) {
		ps = append(ps, Problem{Rule: RuleSource, Field: "source.revision", Msg: fmt.Sprintf("%q is not a revision (a 40-character blob id)", clip(string(s.Revision)))})
	}
	return ps
}

func isHex40(s string) bool {
	if len(s) != 40 {
		return false
	}
	for i := range len(s) {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 60 {
		i := 60
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		return s[:i] + "…"
	}
	return s
}

// Key is the (subject, property, scope) a claim is about, as one string: the
// three joined by 0 bytes, which the profile keeps out of each.
func (c *Claim) Key() string { return KeyOf(c.Subject, c.Property, c.Scope) }

// KeyOf joins a subject, property and scope into a claim key.
func KeyOf(subject, property, scope string) string {
	return subject + "\x00" + property + "\x00" + scope
}

// SameKey reports whether a and b are about the same subject, property and scope.
func SameKey(a, b *Claim) bool {
	return a.Subject == b.Subject && a.Property == b.Property && a.Scope == b.Scope
}
