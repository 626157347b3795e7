package config

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Profile selects how much the write gates check (see docs/gates.md).
type Profile string

const (
	// ProfileDefault checks path safety, size, the note codec's rules, a derivable
	// title, tag format, a final newline and typed edges.
	ProfileDefault Profile = "default"
	// ProfileStrict adds Muninn's contract: title, type, status, 2–5 tags, a real
	// `updated` date, no aliases, exactly one final newline.
	ProfileStrict Profile = "strict"
	// ProfileOff checks only path safety and size (plus protected blocks and private
	// notes, which guard existing content rather than judge a note's format).
	ProfileOff Profile = "off"
)

// MaxNoteBytesLimit is the largest value gates.max_note_bytes accepts (1 GiB).
const MaxNoteBytesLimit = 1 << 30

// Gates is the `gates:` section: the write gates' settings.
type Gates struct {
	// Profile is default, strict or off. Default "default".
	Profile Profile `yaml:"profile"`
	// MaxNoteBytes is the largest file a write may store. Default 1 MiB.
	MaxNoteBytes int `yaml:"max_note_bytes"`
	// ProtectedBlocks are marked blocks that must stay byte-identical unless the
	// writer holds the maintenance role. Default: the generated "related" block.
	ProtectedBlocks []ProtectedBlock `yaml:"protected_blocks"`
}

// ProtectedBlock is a block of a note from a Start marker line to an End marker,
// markers included.
type ProtectedBlock struct {
	// Name identifies the block in messages, e.g. "related".
	Name string `yaml:"name"`
	// Start and End are the exact marker strings, e.g. "<!-- norn:related:start -->".
	Start string `yaml:"start"`
	End   string `yaml:"end"`
}

func defaultGates() Gates {
	return Gates{
		Profile:      ProfileDefault,
		MaxNoteBytes: 1 << 20,
		ProtectedBlocks: []ProtectedBlock{{
			Name:  "related",
			Start: "<!-- norn:related:start -->",
			End:   "<!-- norn:related:end -->",
		}},
	}
}

func (g *Gates) decode(d *decoder, n *yaml.Node, key string) {
	d.mapping(n, key, []string{"profile", "max_note_bytes", "protected_blocks"}, func(k, full string, v *yaml.Node) {
		switch k {
		case "profile":
			var s string
			if d.str(v, full, &s) {
				switch p := Profile(s); p {
				case ProfileDefault, ProfileStrict, ProfileOff:
					g.Profile = p
				default:
					d.errorf(v, full, "unknown profile %q; allowed: default, strict, off", s)
				}
			}
		case "max_note_bytes":
			d.integer(v, full, 1, MaxNoteBytesLimit, &g.MaxNoteBytes)
		case "protected_blocks":
			g.decodeBlocks(d, v, full)
		}
	})
}

func (g *Gates) decodeBlocks(d *decoder, n *yaml.Node, key string) {
	if !d.usable(n, key) {
		return
	}
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, key, "want a list of {name, start, end}, got %s", d.describe(n))
		return
	}
	blocks := make([]ProtectedBlock, 0, len(n.Content))
	names, starts := map[string]bool{}, map[string]bool{}
	before := len(d.errs)
	for i, item := range n.Content {
		ikey := fmt.Sprintf("%s[%d]", key, i)
		var b ProtectedBlock
		got := map[string]bool{}
		d.mapping(item, ikey, []string{"name", "start", "end"}, func(k, full string, v *yaml.Node) {
			var s string
			if !d.str(v, full, &s) {
				return
			}
			got[k] = true
			switch k {
			case "name":
				b.Name = s
			case "start":
				b.Start = s
			case "end":
				b.End = s
			}
		})
		if item.Kind == yaml.ScalarNode && item.ShortTag() == "!!null" {
			d.errorf(item, ikey, "empty list item; remove it")
			continue
		}
		if item.Kind != yaml.MappingNode {
			continue // reported by mapping
		}
		for _, k := range []string{"name", "start", "end"} {
			if !got[k] {
				d.errorf(item, ikey+"."+k, "missing; every protected block needs a non-empty name, start and end")
			}
		}
		if !got["name"] || !got["start"] || !got["end"] {
			continue
		}
		switch {
		case b.Name == "" || b.Start == "" || b.End == "":
			d.errorf(item, ikey, "name, start and end must all be non-empty")
		case strings.ContainsAny(b.Start+b.End, "\r\n"):
			d.errorf(item, ikey, "start and end markers must each fit on one line")
		case b.Start == b.End:
			d.errorf(item, ikey, "start and end markers must differ, e.g. \"<!-- norn:%s:start -->\" and \"<!-- norn:%s:end -->\"", b.Name, b.Name)
		case names[b.Name]:
			d.errorf(item, ikey+".name", "block name %q is used twice; names must be unique", b.Name)
		case starts[b.Start]:
			d.errorf(item, ikey+".start", "start marker %q is used twice; markers must be unique", b.Start)
		default:
			names[b.Name], starts[b.Start] = true, true
			blocks = append(blocks, b)
		}
	}
	if len(d.errs) == before {
		g.ProtectedBlocks = blocks
	}
}
