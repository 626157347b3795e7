package config

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/norn-vault/norn/note"
	"go.yaml.in/yaml/v3"
)

// Privacy is the `privacy:` section. A note is private when its path is under one of
// Folders, its frontmatter says `private: true`, or it carries one of Tags (in its
// frontmatter `tags` or as an inline #tag). Private notes never leave the machine
// (rerank never sends them), a principal without the private scope is told nothing
// of them, and agents cannot overwrite, move or archive them.
type Privacy struct {
	// Folders are folder prefixes, each with a trailing slash. Default
	// ["personal-notes/"]. An empty list leaves only `private: true` notes (and
	// tagged ones) private.
	Folders []string `yaml:"folders"`
	// Tags are tags, lowercase and without the '#', that make a note private:
	// the tag itself (in any case) and its nested tags ("diary" covers
	// "diary/2026"). Default none.
	Tags []string `yaml:"tags,omitempty"`
}

func defaultPrivacy() Privacy {
	return Privacy{Folders: []string{"personal-notes/"}}
}

func (p *Privacy) decode(d *decoder, n *yaml.Node, key string) {
	d.mapping(n, key, []string{"folders", "tags"}, func(k, full string, v *yaml.Node) {
		switch k {
		case "folders":
			d.strs(v, full, &p.Folders, folder)
		case "tags":
			d.strs(v, full, &p.Tags, privateTag)
			if len(p.Tags) == 0 {
				p.Tags = nil // none, however written
			}
		}
	})
}

// privateTag checks a private tag such as "diary" or "#health/private" and
// returns it lowercase without the '#', or an error message. It must be a tag a
// note can carry inline: letters, digits, '_', '-' and '/' between parts, with at
// least one letter.
func privateTag(s string) (string, string) {
	const hint = `a tag is a word such as "diary" or "health/private", without spaces`
	t := strings.ToLower(strings.TrimPrefix(s, "#"))
	letter := false
	for _, r := range t {
		switch {
		case unicode.IsLetter(r):
			letter = true
		case unicode.IsDigit(r), unicode.IsMark(r), r == '_', r == '-', r == '/':
		default:
			return "", fmt.Sprintf("%q: %q cannot be part of a tag; %s", s, r, hint)
		}
	}
	switch {
	case t == "":
		return "", "empty tag; " + hint
	case !letter:
		return "", fmt.Sprintf("%q has no letter, so no note can carry it; %s", s, hint)
	case strings.HasPrefix(t, "/") || strings.HasSuffix(t, "/") || strings.Contains(t, "//"):
		return "", fmt.Sprintf("%q has an empty part; %s", s, hint)
	}
	return t, ""
}

// IsPrivate reports whether the note at path p, with top-level frontmatter fields fm
// (nil when it has none), is private by its path or fm alone: p is under a privacy
// folder, or fm has `private` set to true. (Tags need the parsed note: see
// NotePrivate and ContentPrivate.)
//
// It errs on the side of privacy: folders match case-insensitively (a vault on a
// case-insensitive file system has one "Personal-Notes/" folder, not two), and the
// strings "true", "yes" and "on" count as true as well as the YAML boolean.
func (c Config) IsPrivate(p note.Path, fm map[string]any) bool {
	return c.Privacy.IsPrivate(p, fm)
}

// IsPrivate is Config.IsPrivate under these privacy settings.
func (pv Privacy) IsPrivate(p note.Path, fm map[string]any) bool {
	return pv.Folder(p) != "" || Truthy(fm["private"])
}

// Folder returns the privacy folder p is under, as configured ("" when none).
func (pv Privacy) Folder(p note.Path) string {
	lp := strings.ToLower(string(p))
	for _, f := range pv.Folders {
		if strings.HasPrefix(lp, strings.ToLower(f)) {
			return f
		}
	}
	return ""
}

// NotePrivate is the whole rule for the note at p with bytes raw: p is under a
// privacy folder, or its content is private (ParsedPrivate). n and err are what
// note.Parse made of raw.
func (pv Privacy) NotePrivate(p note.Path, n *note.Note, err error, raw []byte) bool {
	return pv.Folder(p) != "" || pv.ParsedPrivate(n, err, raw)
}

// ContentPrivate reports whether a note's bytes make it private: `private: true`
// (or yes/on) in its frontmatter, or a private tag among its tags (frontmatter
// and inline). Bytes that do not parse but mention "private" or a private tag
// count as private (fail closed).
func (pv Privacy) ContentPrivate(p note.Path, raw []byte) bool {
	// A `private` key is spelled out in the bytes unless a double-quoted key
	// escapes a letter ("\x70rivate"), and so is a private tag: without any of
	// them, skip parsing (the rule's main cost).
	if !bytes.Contains(raw, []byte("private")) && !bytes.ContainsRune(raw, '\\') && pv.mentionedTag(raw) == "" {
		return false
	}
	n, err := note.Parse(p, raw)
	return pv.ParsedPrivate(n, err, raw)
}

// ParsedPrivate is ContentPrivate for a note already parsed: n and err are what
// note.Parse made of raw.
func (pv Privacy) ParsedPrivate(n *note.Note, err error, raw []byte) bool {
	if err != nil {
		return bytes.Contains(raw, []byte("private")) || pv.mentionedTag(raw) != ""
	}
	if n == nil {
		return false
	}
	if n.Frontmatter != nil && Truthy(n.Frontmatter.Fields["private"]) {
		return true
	}
	return pv.Tag(n.Tags) != ""
}

// Tag returns the first of tags (a note's, as note.Parse gives them) that is a
// private tag or nested under one, as the note spells it ("" when none).
func (pv Privacy) Tag(tags []string) string {
	if len(pv.Tags) == 0 {
		return ""
	}
	for _, t := range tags {
		lt := strings.ToLower(t)
		for _, pt := range pv.Tags {
			if pt = strings.ToLower(pt); lt == pt || strings.HasPrefix(lt, pt+"/") {
				return t
			}
		}
	}
	return ""
}

// mentionedTag returns the first private tag whose text raw contains in any case
// ("" when none): a note that carries the tag mentions it, so a note that
// mentions none carries none.
func (pv Privacy) mentionedTag(raw []byte) string {
	if len(pv.Tags) == 0 {
		return ""
	}
	lower := bytes.ToLower(raw)
	for _, t := range pv.Tags {
		if bytes.Contains(lower, []byte(t)) {
			return t
		}
	}
	return ""
}

// Fingerprint identifies what of these settings a judgement of a note's content
// depends on (the private tags, in any order): a cache of content judgements is
// good only under the same fingerprint.
func (pv Privacy) Fingerprint() string {
	ts := slices.Clone(pv.Tags)
	for i, t := range ts {
		ts[i] = strings.ToLower(t)
	}
	slices.Sort(ts)
	return strings.Join(slices.Compact(ts), "\x00")
}

// Truthy reports whether a frontmatter value means "yes": the boolean true, or the
// string "true", "yes" or "on" in any case.
func Truthy(v any) bool {
	switch v := v.(type) {
	case bool:
		return v
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true", "yes", "on":
			return true
		}
	}
	return false
}
