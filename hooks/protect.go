package hooks

import (
	"bytes"
	"fmt"
	"regexp"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/note"
)

// protectedBlocks applies protected-block-changed: every protected block in Old (the
// bytes at existing) must appear byte-identical in New, unless the writer holds the
// maintenance role. An archive removes the note, so archiving a note that holds a
// protected block needs the maintenance role too: otherwise archive-then-create
// would rewrite the block in two steps.
func (g *Gates) protectedBlocks(w Writer, c Change, existing note.Path) []Violation {
	if w.Has(RoleMaintenance) {
		return nil
	}
	var vs []Violation
	for _, b := range g.cfg.Gates.ProtectedBlocks {
		for _, blk := range findBlocks(c.Old, b) {
			oldLine := 1 + bytes.Count(c.Old[:blk.start], []byte{'\n'})
			desc := fmt.Sprintf("the protected %q block (%s … %s, line %d of the current revision of %s)", b.Name, b.Start, b.End, oldLine, existing)
			if c.Kind == KindArchive {
				vs = append(vs, Violation{Rule: RuleProtectedBlockChanged, Path: c.Path,
					Message: desc + " would leave the vault with the note: only a writer with the maintenance role may archive a note holding one"})
				continue
			}
			if bytes.Contains(c.New, c.Old[blk.start:blk.end]) {
				continue
			}
			line := 0
			if i := bytes.Index(c.New, []byte(b.Start)); i >= 0 {
				line = 1 + bytes.Count(c.New[:i], []byte{'\n'})
			}
			vs = append(vs, Violation{Rule: RuleProtectedBlockChanged, Path: c.Path, Line: line,
				Message: desc + " must stay byte-identical: copy it unchanged from the current revision (only a writer with the maintenance role may change it)"})
		}
	}
	return vs
}

// span is a byte range.
type span struct{ start, end int }

// findBlocks returns each occurrence of block b in raw: a Start marker, then the
// first End marker after it, both included. A Start without an End is not a block.
func findBlocks(raw []byte, b config.ProtectedBlock) []span {
	if b.Start == "" || b.End == "" {
		return nil
	}
	var out []span
	start, end := []byte(b.Start), []byte(b.End)
	for off := 0; off < len(raw); {
		i := bytes.Index(raw[off:], start)
		if i < 0 {
			break
		}
		s := off + i
		j := bytes.Index(raw[s+len(start):], end)
		if j < 0 {
			break
		}
		e := s + len(start) + j + len(end)
		out = append(out, span{s, e})
		off = e
	}
	return out
}

// privateNote applies private-note: an existing private note (under a privacy
// folder, or with `private: true` in Old) may be overwritten, moved or archived only
// by a writer holding the owner or private role. A writer with neither — an agent, or
// a writer with no roles at all — is refused (fail closed).
func (g *Gates) privateNote(w Writer, c Change, existing note.Path) []Violation {
	if w.Has(RoleOwner) || w.Has(RolePrivate) {
		return nil
	}
	why, line := g.privacy(existing, c.Old)
	if why == "" {
		return nil
	}
	verb := map[Kind]string{KindPut: "overwrite", KindMove: "move", KindArchive: "archive", KindRestore: "overwrite"}[c.Kind]
	return []Violation{{Rule: RulePrivateNote, Path: existing, Line: line,
		Message: fmt.Sprintf("%s is private (%s): a writer without the owner or private role may not %s it; ask the vault's owner to",
			existing, why, verb)}}
}

// privacy says why the note at p with bytes old is private ("" when it is not), and
// the line of its `private:` key when that is the reason. It follows the one rule
// (config.Privacy.NotePrivate), saying which part of it applies.
func (g *Gates) privacy(p note.Path, old []byte) (string, int) {
	pv := g.cfg.Privacy
	if f := pv.Folder(p); f != "" {
		return "it is under " + f + ", a privacy folder", 0
	}
	if !pv.ContentPrivate(p, old) {
		return "", 0
	}
	if n, err := note.Parse(p, old); err == nil {
		if n.Frontmatter != nil && config.Truthy(n.Frontmatter.Fields["private"]) {
			return "its frontmatter says private: true", n.Frontmatter.KeyLines["private"]
		}
		if t := pv.Tag(n.Tags); t != "" {
			return "it is tagged #" + t + ", a private tag", 0
		}
	}
	// The current revision does not parse, so its frontmatter cannot be read: look
	// for a `private:` line in a leading frontmatter block; else it mentions
	// "private" or a private tag, and the rule errs on the side of privacy.
	if line := privateLine(old); line > 0 {
		return "its frontmatter says private: true", line
	}
	return "it does not parse and mentions private or a private tag", 0
}

// privateLine returns the line of a top-level "private: true|yes|on" in the leading
// "---" block of raw, or 0.
func privateLine(raw []byte) int {
	re := regexp.MustCompile(`(?i)^private\s*:\s*["']?(true|yes|on)["']?\s*(#.*)?$`)
	lines := bytes.Split(raw, []byte{'\n'})
	if len(lines) == 0 || string(bytes.TrimRight(lines[0], " \t\r")) != "---" {
		return 0
	}
	for i, l := range lines[1:] {
		l = bytes.TrimRight(l, "\r")
		if s := string(bytes.TrimRight(l, " \t")); s == "---" || s == "..." {
			return 0
		}
		if re.Match(l) {
			return i + 2
		}
	}
	return 0
}
