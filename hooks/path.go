package hooks

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/norn-vault/norn/note"
)

// MaxPathBytes is the longest path a note may have.
const MaxPathBytes = 1024

// MaxNameBytes is the longest file or folder name (one path component) a write may
// create: 255 bytes is the name limit of the common file systems (ext4, XFS, Btrfs,
// APFS, NTFS counts UTF-16 units, which never exceed bytes). Norn writes a working-tree
// file through a temporary file beside it named TempPrefix and 12 hex digits (22
// bytes), which always fits, so the limit on a note's own name is not lowered for it.
const MaxNameBytes = 255

// TempPrefix starts the names of Norn's temporary working-tree files (package repo
// creates them and removes strays). No component of a written path may start with it,
// in any case: such a note would be taken for a stray temporary file.
const TempPrefix = ".norn-tmp-"

// nornDir is the folder of Norn's own files at the vault root.
const nornDir = ".norn"

// ValidPath checks path safety alone: the rules path-invalid, path-absolute,
// path-dotdot, path-git-dir and path-not-markdown (a note ends in ".md"; a file under
// .norn/ ends in ".yaml"). It needs no writer, config or repository, so package repo
// can run it before anything else. It returns nil or a *Rejection naming every rule
// the path breaks. The role-dependent path-norn-dir and the repository-dependent
// path-symlink-escape are Check's.
//
// ValidPath judges p as a path to write: its names must fit the file system
// (MaxNameBytes) and must not look like Norn's temporary files (TempPrefix). A path a
// change only removes (an archive, a move's source) is spared those two checks, so a
// file committed with such a name by other means can still be archived or moved away.
func ValidPath(p string) error {
	return reject(pathViolations(p, true))
}

// pathViolations applies the pure path rules to p; written adds the rules for a path
// the write creates (name length, Norn's temporary prefix).
func pathViolations(p string, written bool) []Violation {
	at := note.Path(p)
	v := func(rule, format string, a ...any) Violation {
		return Violation{Rule: rule, Path: at, Message: fmt.Sprintf(format, a...)}
	}
	if p == "" {
		return []Violation{v(RulePathInvalid, "the path is empty; give a relative path such as \"tech/bloom-filters.md\"")}
	}
	var bad []string
	var vs []Violation
	if len(p) > MaxPathBytes {
		bad = append(bad, fmt.Sprintf("it is %d bytes long (the limit is %d); use shorter folder and file names", len(p), MaxPathBytes))
	}
	if !utf8.ValidString(p) {
		bad = append(bad, "it is not valid UTF-8")
	}
	if strings.IndexByte(p, 0) >= 0 {
		bad = append(bad, "it contains a NUL byte")
	}
	if hasControl(p) {
		bad = append(bad, "it contains a control character (newline, tab, …); remove it")
	}
	if strings.IndexByte(p, '\\') >= 0 {
		bad = append(bad, `it contains a backslash; separate folders with "/"`)
	}
	if strings.HasSuffix(p, "/") {
		bad = append(bad, "it ends with \"/\"; name a file, e.g. \"folder/note.md\"")
	}
	if strings.HasPrefix(p, "/") || hasDrive(p) {
		vs = append(vs, v(RulePathAbsolute, "the path is absolute; give it relative to the vault root, e.g. \"tech/bloom-filters.md\""))
	}
	parts := strings.Split(strings.TrimLeft(strings.TrimSuffix(p, "/"), "/"), "/")
	var dotdot, dot, empty, git bool
	var long, temp string
	for _, part := range parts {
		if written && len(part) > MaxNameBytes && long == "" {
			long = part
		}
		if written && len(part) >= len(TempPrefix) && strings.EqualFold(part[:len(TempPrefix)], TempPrefix) && temp == "" {
			temp = part
		}
		switch {
		case part == "..":
			dotdot = true
		case part == ".":
			dot = true
		case part == "":
			empty = true
		case isGitName(part):
			git = true
		}
	}
	if dot {
		bad = append(bad, `it has a "." component; remove it`)
	}
	if empty {
		bad = append(bad, `it has an empty folder name ("//"); remove the extra "/"`)
	}
	if long != "" {
		bad = append(bad, fmt.Sprintf("the name %q is %d bytes long, over the file system's limit of %d bytes for one file or folder name; shorten it", shorten(long), len(long), MaxNameBytes))
	}
	if temp != "" {
		bad = append(bad, fmt.Sprintf("the name %q starts with %q, which Norn reserves for its temporary files (they are deleted as leftovers); rename it", shorten(temp), TempPrefix))
	}
	if len(bad) > 0 {
		vs = append(vs, v(RulePathInvalid, "invalid path: %s", strings.Join(bad, "; ")))
	}
	if dotdot {
		vs = append(vs, v(RulePathDotDot, `the path has a ".." component, which could leave the vault; give the path from the vault root without ".."`))
	}
	if git {
		vs = append(vs, v(RulePathGitDir, "the path goes into a .git folder, which holds the repository itself; notes cannot be written there"))
	}
	if r, ok := notMarkdown(p, parts); ok {
		vs = append(vs, v(RulePathNotMarkdown, "%s", r))
	}
	return vs
}

// shorten cuts a long name for a message.
func shorten(s string) string {
	if len(s) <= 40 {
		return s
	}
	cut := 32
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// notMarkdown applies path-not-markdown and returns its message.
func notMarkdown(p string, parts []string) (string, bool) {
	base := parts[len(parts)-1]
	if inNornDir(p) {
		if len(parts) < 2 || !hasSuffixFold(base, ".yaml") {
			return "files under .norn/ are Norn's YAML settings and records and must end in \".yaml\"", true
		}
		return "", false
	}
	if !note.IsNote(note.Path(base)) {
		stem := base
		if i := strings.LastIndexByte(stem, '.'); i > 0 {
			stem = stem[:i]
		}
		if strings.Trim(stem, ".") == "" {
			stem = "note"
		}
		return fmt.Sprintf("notes are Markdown files and must end in \".md\": write %q, not %q", stem+".md", base), true
	}
	return "", false
}

// inNornDir reports whether p is under the vault's .norn/ folder (matched
// case-insensitively: on a case-insensitive file system ".Norn" is the same folder).
func inNornDir(p string) bool {
	first, _, _ := strings.Cut(strings.TrimLeft(p, "/"), "/")
	return strings.EqualFold(first, nornDir)
}

func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

// hasControl reports whether s holds a C0 or C1 control character or DEL, other than
// NUL (reported on its own).
func hasControl(s string) bool {
	for _, r := range s {
		if r != 0 && (r < 0x20 || r >= 0x7f && r <= 0x9f) {
			return true
		}
	}
	return false
}

// hasDrive reports whether p starts with a Windows drive ("C:", "c:\", "C:/").
func hasDrive(p string) bool {
	return len(p) >= 2 && p[1] == ':' && (p[0] >= 'a' && p[0] <= 'z' || p[0] >= 'A' && p[0] <= 'Z')
}

// isGitName reports whether a path component names git's own folder on some file
// system, the way git's verify_path does: ".git" in any case, with trailing dots or
// spaces (Windows drops them), with Unicode code points that HFS+ ignores, or as the
// NTFS short name "git~1".
func isGitName(part string) bool {
	var b strings.Builder
	for _, r := range part {
		if hfsIgnorable(r) {
			continue
		}
		b.WriteRune(r)
	}
	s := strings.TrimRight(b.String(), ". ")
	return strings.EqualFold(s, ".git") || strings.EqualFold(s, "git~1")
}

// hfsIgnorable reports code points HFS+ ignores when comparing names.
func hfsIgnorable(r rune) bool {
	switch {
	case r >= 0x200c && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x206a && r <= 0x206f, r == 0xfeff:
		return true
	}
	return false
}
