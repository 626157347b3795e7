package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/norn-vault/norn/note"
)

// MaxSize is the largest config file Parse accepts.
const MaxSize = 1 << 20

// Config is a vault's settings, from .norn/config.yaml. Every field has a default
// (see Default); a file only needs the keys it changes. The yaml tags name the keys, so
// yaml.Marshal of a Config writes a file Parse reads back to the same Config.
type Config struct {
	// Gates configures the write gates (package hooks).
	Gates Gates `yaml:"gates"`
	// Privacy says which notes are private.
	Privacy Privacy `yaml:"privacy"`
	// Inbox is the folder captures go to, with a trailing slash. Default "inbox/".
	Inbox string `yaml:"inbox"`
	// Edges configures typed edges.
	Edges Edges `yaml:"edges"`
	// Search configures ranking (package graph).
	Search Search `yaml:"search"`
	// Rerank configures the optional reranker (package rerank).
	Rerank Rerank `yaml:"rerank"`
	// GC configures git housekeeping.
	GC GC `yaml:"gc"`
	// Synthesis is the budget of synthesis freshness checks (package ledger).
	Synthesis Synthesis `yaml:"synthesis"`

	// Ignored lists the per-machine settings the file names (rerank.endpoint,
	// remotes, serve, …; see Machine): Parse ignores them, since a committed file
	// must never point this machine at a server nor hold a secret. A write of such
	// a file through Norn is refused; one that arrives by a hand edit or a pull is
	// in force without them, and doctor and the server's log show the warnings.
	Ignored []Warning `yaml:"-"`
}

// Warning is a setting Parse ignored: which key, on which line, and why. It never
// holds the setting's value (it may be a secret).
type Warning struct {
	Line int
	Key  string
	Msg  string
}

func (w Warning) String() string { return (&Error{Line: w.Line, Key: w.Key, Msg: w.Msg}).Error() }

// ignore records the per-machine setting v at key (unless it says nothing: null,
// "", {} or []).
func (c *Config) ignore(key string, line int, v *yaml.Node) {
	if inert(v) {
		return
	}
	c.Ignored = append(c.Ignored, Warning{Line: line, Key: key,
		Msg: "a per-machine setting, ignored in the committed .norn/config.yaml (it must not point this machine at a server nor hold a secret); set it in .git/norn/machine.yaml or the environment (docs/config.md)"})
}

// Default returns the settings of a vault without a config file. Each call returns
// fresh slices and maps, so callers may change them.
func Default() Config {
	return Config{
		Gates:   defaultGates(),
		Privacy: defaultPrivacy(),
		Inbox:   "inbox/",
		Edges:   defaultEdges(),
		Search:  defaultSearch(),
		Rerank:  defaultRerank(),
		GC:      defaultGC(),

		Synthesis: defaultSynthesis(),
	}
}

// topKeys returns the top-level keys of config.yaml, in documentation order.
func topKeys() []string {
	return []string{"gates", "privacy", "inbox", "edges", "search", "rerank", "gc", "synthesis"}
}

// machineOnlyKeys are the sections of machine.yaml with no shared part: a committed
// file naming them is ignored with a Warning.
func machineOnlyKeys() []string {
	var out []string
	for _, k := range machineTopKeys() {
		if !contains(topKeys(), k) {
			out = append(out, k)
		}
	}
	return out
}

// Parse reads the bytes of a .norn/config.yaml. Keys the file leaves out, or gives an
// empty (null) value, take their defaults; empty input gives Default(). Unknown keys,
// repeated keys, YAML aliases, values of the wrong type or out of range, and more than
// one YAML document are errors: each is an *Error naming the key and line, and Parse
// reports them all (joined with errors.Join). On error the Config is the zero value.
func Parse(b []byte) (Config, error) {
	if len(b) > MaxSize {
		return Config{}, &Error{Msg: fmt.Sprintf("file is %d bytes; the limit is %d", len(b), MaxSize)}
	}
	cfg := Default()
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var doc yaml.Node
	if err := decodeNode(dec, &doc); err != nil {
		if errors.Is(err, io.EOF) {
			return cfg, nil
		}
		return Config{}, syntaxError(err)
	}
	var extra yaml.Node
	if err := decodeNode(dec, &extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return Config{}, syntaxError(err)
		}
		return Config{}, &Error{Line: extra.Line, Msg: "the file holds more than one YAML document (---); keep one"}
	}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return cfg, nil
		}
		root = root.Content[0]
	}
	d := &decoder{}
	if d.usable(root, "") && root.Kind != yaml.MappingNode {
		d.errorf(root, "", "the file must be a mapping of %s; got %s", strings.Join(topKeys(), ", "), describe(root))
	} else {
		cfg.decode(d, root)
	}
	if len(d.errs) > 0 {
		if len(d.errs) == 1 {
			return Config{}, d.errs[0]
		}
		return Config{}, errors.Join(d.errs...)
	}
	return cfg, nil
}

func (c *Config) decode(d *decoder, n *yaml.Node) {
	d.mappingAlso(n, "", topKeys(), machineOnlyKeys(), c.ignore, func(k, full string, v *yaml.Node) {
		switch k {
		case "gates":
			c.Gates.decode(d, v, full)
		case "privacy":
			c.Privacy.decode(d, v, full)
		case "inbox":
			var s string
			if d.str(v, full, &s) {
				f, msg := folder(s)
				if msg != "" {
					d.errorf(v, full, "%s", msg)
					return
				}
				c.Inbox = f
			}
		case "edges":
			c.Edges.decode(d, v, full)
		case "search":
			c.Search.decode(d, v, full)
		case "rerank":
			c.Rerank.decode(d, v, full, c)
		case "gc":
			c.GC.decode(d, v, full)
		case "synthesis":
			c.Synthesis.decode(d, v, full)
		}
	})
}

// syntaxError turns a YAML library error ("yaml: line 3: did not find expected key")
// into an *Error with the line split out.
func syntaxError(err error) error {
	line, msg, _ := note.YAMLErrorLine(err)
	return &Error{Line: line, Msg: "YAML syntax: " + msg}
}

// decodeNode reads the next YAML document into n. A panic inside the YAML library
// becomes an error, so Parse never panics whatever the input.
func decodeNode(dec *yaml.Decoder, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: internal error: %v", r)
		}
	}()
	return dec.Decode(n)
}
