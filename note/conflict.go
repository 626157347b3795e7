package note

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// ErrMachineName is returned by ConflictPath and ConflictNote for a machine name
// that cannot be part of a note's file name.
var ErrMachineName = errors.New("invalid machine name")

// The frontmatter keys ConflictNote adds to the sibling note.
const (
	ConflictOfKey      = "conflict_of"      // a wikilink to the conflicted note
	ConflictMachineKey = "conflict_machine" // the machine that merged
	ConflictDateKey    = "conflict_date"    // the day of the merge, YYYY-MM-DD
)

// machineForbidden are the characters a machine name may not hold: path
// separators, characters file systems refuse, and wikilink syntax.
const machineForbidden = `/\:*?"<>|[]#^`

// maxMachineName bounds a machine name in bytes.
const maxMachineName = 64

// checkMachine applies the machine name rules.
func checkMachine(machine string) error {
	switch {
	case machine == "":
		return fmt.Errorf("%w: empty", ErrMachineName)
	case len(machine) > maxMachineName:
		return fmt.Errorf("%w: %d bytes, the limit is %d", ErrMachineName, len(machine), maxMachineName)
	case !utf8.ValidString(machine):
		return fmt.Errorf("%w: not UTF-8", ErrMachineName)
	case strings.TrimSpace(machine) != machine:
		return fmt.Errorf("%w: %q starts or ends with a space", ErrMachineName, machine)
	case strings.ContainsAny(machine, machineForbidden):
		return fmt.Errorf("%w: %q holds one of %s", ErrMachineName, machine, machineForbidden)
	case strings.IndexFunc(machine, unicode.IsControl) >= 0:
		return fmt.Errorf("%w: %q holds a control character", ErrMachineName, machine)
	}
	return nil
}

// ConflictPath returns the path of the sibling that keeps theirs' version of the
// conflicted file p: "NAME (conflict YYYY-MM-DD machine).md" in p's folder, with
// day's date (in day's location) and the name of the machine that merged. A file
// that is not a note keeps its extension the same way ("img (conflict …).png").
// When that path is taken, n = 2, 3, … gives "NAME (conflict YYYY-MM-DD machine
// n).md"; n <= 1 gives the plain name.
func ConflictPath(p Path, day time.Time, machine string, n int) (Path, error) {
	if err := checkMachine(machine); err != nil {
		return "", fmt.Errorf("conflict path for %s: %w", p, err)
	}
	s := string(p)
	dir, name := "", s
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		dir, name = s[:i+1], s[i+1:]
	}
	ext := ""
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		name, ext = name[:i], name[i:]
	}
	tag := day.Format(time.DateOnly) + " " + machine
	if n > 1 {
		tag += fmt.Sprintf(" %d", n)
	}
	return Path(dir + name + conflictTag + tag + ")" + ext), nil
}

// conflictTag opens the tag ConflictPath puts in a sibling's name.
const conflictTag = " (conflict "

// ConflictOrigin is the inverse of ConflictPath's naming: the path of the file
// the sibling p keeps theirs' version of, in p's folder, and true; false when p
// is not named as a conflict sibling.
func ConflictOrigin(p Path) (Path, bool) {
	s := string(p)
	i, j := strings.LastIndex(s, conflictTag), strings.LastIndexByte(s, ')')
	if i < 0 || j < i || strings.Contains(s[j:], "/") {
		return "", false
	}
	return Path(s[:i] + s[j+1:]), true
}

// ConflictTag reads the day and machine back from a sibling's name made by
// ConflictPath: "2026-01-05" and "laptop" from "n (conflict 2026-01-05
// laptop).md". A copy number (n > 1) stays on the machine ("laptop 2"): a
// machine name may itself end in a space and digits, so the two cannot be told
// apart. False when p is not named as a sibling or its tag does not start with
// a date.
func ConflictTag(p Path) (day, machine string, ok bool) {
	s := string(p)
	i, j := strings.LastIndex(s, conflictTag), strings.LastIndexByte(s, ')')
	if i < 0 || j < i || strings.Contains(s[j:], "/") {
		return "", "", false
	}
	tag := s[i+len(conflictTag) : j]
	d, m, found := strings.Cut(tag, " ")
	if !found || m == "" {
		return "", "", false
	}
	if _, err := time.Parse(time.DateOnly, d); err != nil {
		return "", "", false
	}
	return d, m, true
}

// ConflictNote returns the sibling note's bytes: theirs' full text, with
// frontmatter keys linking it to the conflicted note p (ConflictOfKey) and saying
// which machine merged it on what day. The keys are added to theirs' own block
// when it can be edited in place; otherwise (no valid block to edit, or theirs
// already has one of the keys) a new block holding only them is put in front of
// theirs' bytes, which stay exactly as they were.
func ConflictNote(p Path, theirs []byte, day time.Time, machine string) ([]byte, error) {
	if err := checkMachine(machine); err != nil {
		return nil, fmt.Errorf("conflict note for %s: %w", p, err)
	}
	target := string(p)
	if IsNote(p) {
		target = target[:len(target)-3]
	}
	fields := []struct {
		key   string
		value any
	}{
		{ConflictOfKey, "[[" + target + "]]"},
		{ConflictMachineKey, machine},
		{ConflictDateKey, day.Format(time.DateOnly)},
	}
	if s := splitNote(theirs, "their"); s.fm != nil {
		var err error
		out := theirs
		for _, f := range fields {
			if _, taken := s.fm.fields[f.key]; taken {
				out = nil
				break
			}
			if out, err = SetField(out, f.key, f.value); err != nil {
				break
			}
		}
		if out != nil && err == nil {
			return out, nil
		}
	}
	var head []byte
	for _, f := range fields {
		var err error
		if head, err = SetField(head, f.key, f.value); err != nil {
			return nil, fmt.Errorf("conflict note for %s: %w", p, err)
		}
	}
	if eolOf(theirs) == "\r\n" {
		head = withEOL(head, "\r\n")
	}
	return append(head, theirs...), nil
}

// maxTrailerItems bounds the conflicts ConflictTrailer lists one by one.
const maxTrailerItems = 8

// ConflictTrailer returns the value of a "Norn-Conflict:" commit trailer for the
// conflicted note p whose theirs' version went to sibling, e.g.
// "tech/a.md: field status, lines 12-14; theirs at tech/a (conflict 2026-12-07
// laptop).md". It is one line: control characters in paths become '?'.
func ConflictTrailer(p, sibling Path, conflicts []Conflict) string {
	var items []string
	for i, c := range conflicts {
		if i == maxTrailerItems {
			items = append(items, fmt.Sprintf("and %d more", len(conflicts)-i))
			break
		}
		switch c.Kind {
		case ConflictField:
			items = append(items, "field "+c.Key)
		case ConflictLines:
			if c.Lines > 1 {
				items = append(items, fmt.Sprintf("lines %d-%d", c.Line, c.Line+c.Lines-1))
			} else {
				items = append(items, fmt.Sprintf("line %d", c.Line))
			}
		default:
			items = append(items, "whole note")
		}
	}
	what := strings.Join(items, ", ")
	if what == "" {
		what = "whole note"
	}
	return oneLine(fmt.Sprintf("%s: %s; theirs at %s", p, what, sibling))
}

// oneLine replaces control characters (line breaks included) with '?'.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '?'
		}
		return r
	}, string(bytes.ToValidUTF8([]byte(s), []byte("?"))))
}
