package config

import (
	"bytes"
	"strings"

	"github.com/norn-vault/norn/note"
	"go.yaml.in/yaml/v3"
)

// Privacy is the `privacy:` section. A note is private when its path is under one of
// Folders or its frontmatter says `private: true`. Private notes never leave the
// machine (rerank never sends them) and agents cannot overwrite, move or archive them.
type Privacy struct {
	// Folders are folder prefixes, each with a trailing slash. Default
	// ["personal-notes/"]. An empty list leaves only `private: true` notes private.
	Folders []string `yaml:"folders"`
}

func defaultPrivacy() Privacy {
	return Privacy{Folders: []string{"personal-notes/"}}
}

func (p *Privacy) decode(d *decoder, n *yaml.Node, key string) {
	d.mapping(n, key, []string{"folders"}, func(k, full string, v *yaml.Node) {
		d.strs(v, full, &p.Folders, folder)
	})
}

// IsPrivate reports whether the note at path p, with top-level frontmatter fields fm
// (nil when it has none), is private: p is under a privacy folder, or fm has `private`
// set to true.
//
// It errs on the side of privacy: folders match case-insensitively (a vault on a
// case-insensitive file system has one "Personal-Notes/" folder, not two), and the
// strings "true", "yes" and "on" count as true as well as the YAML boolean.
func (c Config) IsPrivate(p note.Path, fm map[string]any) bool {
	return c.Privacy.IsPrivate(p, fm)
}

// IsPrivate is Config.IsPrivate under these privacy settings.
func (pv Privacy) IsPrivate(p note.Path, fm map[string]any) bool {
	lp := strings.ToLower(string(p))
	for _, f := range pv.Folders {
		if strings.HasPrefix(lp, strings.ToLower(f)) {
			return true
		}
	}
	return Truthy(fm["private"])
}

// NotePrivate reports whether the note at p with bytes raw is private: p is under
// a privacy folder, or its content is private (ParsedPrivate). n and err are what
// note.Parse made of raw.
func (pv Privacy) NotePrivate(p note.Path, n *note.Note, err error, raw []byte) bool {
	return pv.IsPrivate(p, nil) || ParsedPrivate(n, err, raw)
}

// ContentPrivate reports whether a note's bytes make it private: `private: true`
// (or yes/on) in its frontmatter. Bytes that do not parse but mention "private"
// count as private (fail closed).
func ContentPrivate(p note.Path, raw []byte) bool {
	if !bytes.Contains(raw, []byte("private")) && !bytes.ContainsRune(raw, '\\') {
		return false
	}
	n, err := note.Parse(p, raw)
	return ParsedPrivate(n, err, raw)
}

// ParsedPrivate is ContentPrivate for a note already parsed: n and err are what
// note.Parse made of raw.
func ParsedPrivate(n *note.Note, err error, raw []byte) bool {
	if err != nil {
		return bytes.Contains(raw, []byte("private"))
	}
	return n != nil && n.Frontmatter != nil && Truthy(n.Frontmatter.Fields["private"])
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
