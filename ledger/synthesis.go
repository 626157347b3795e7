package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// A synthesis registration binds a summary note to the notes it summarises, with
// the revision of each it was written from. It lives at RegistrationPath(summary),
// one YAML file per summary, so registrations of different summaries never touch
// the same file:
//
//	# norn synthesis registration: the sources of a summary note, with the
//	# revisions it was written from. Written by register_synthesis.
//	summary: tech/overview.md
//	sources:
//	  - path: tech/bloom.md
//	    revision: 3f2a…(40 hex)
//
// Sources are sorted by path; EncodeRegistration writes the one canonical form
// and DecodeRegistration reads it back strictly.

// SynthesisDir is the folder of the registrations.
const SynthesisDir = ".norn/synthesis/"

// MaxSources is the most sources one summary may name.
const MaxSources = 32

// maxRegistrationBytes bounds a registration file: 32 sources of at most 1 KiB
// paths each, with room for comments.
const maxRegistrationBytes = 64 << 10

// maxPathBytes bounds a path in a registration (the gates' own limit).
const maxPathBytes = 1024

// ErrInvalidRegistration: the bytes of a registration, or the summary and
// sources given for one, break its format's rules. Every decoding error wraps it.
var ErrInvalidRegistration = errors.New("invalid synthesis registration")

// Source is a note and the revision (blob id) it was read at: a claim's source,
// or one source of a summary.
type Source struct {
	Path     note.Path     `yaml:"path" json:"path"`
	Revision repo.Revision `yaml:"revision" json:"revision"`
}

// Registration is a summary with its sources, sorted by path.
type Registration struct {
	Summary note.Path `yaml:"summary" json:"summary"`
	Sources []Source  `yaml:"sources" json:"sources"`
}

// RegistrationPath is where the registration of summary lives: the summary's
// path under SynthesisDir with ".yaml" appended (tech/a.md →
// .norn/synthesis/tech/a.md.yaml), a stable layout a person can read.
func RegistrationPath(summary note.Path) note.Path {
	return note.Path(SynthesisDir + string(summary) + ".yaml")
}

// SummaryOf is the summary whose registration lives at p, and whether p is a
// registration's path at all.
func SummaryOf(p note.Path) (note.Path, bool) {
	s, ok := strings.CutPrefix(string(p), SynthesisDir)
	if !ok {
		return "", false
	}
	s, ok = strings.CutSuffix(s, ".yaml")
	if !ok || !note.IsNote(note.Path(s)) {
		return "", false
	}
	return note.Path(s), true
}

// IsRegistrationPath reports whether p is under SynthesisDir (a file there that
// SummaryOf does not accept is refused by the gates).
func IsRegistrationPath(p note.Path) bool { return strings.HasPrefix(string(p), SynthesisDir) }

// Check reports every way r breaks the format's rules, joined, each wrapping
// ErrInvalidRegistration: the summary a note path; 1 to MaxSources sources,
// each a note path other than the summary, named once, with a 40-hex revision.
func (r *Registration) Check() error {
	var errs []error
	bad := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrInvalidRegistration}, a...)...))
	}
	if msg := NotePathProblem(r.Summary); msg != "" {
		bad("summary %q: %s", r.Summary, msg)
	}
	switch n := len(r.Sources); {
	case n == 0:
		bad("no sources: name 1 to %d source notes", MaxSources)
	case n > MaxSources:
		bad("%d sources: at most %d; summarise in layers (register intermediate summaries and name those)", n, MaxSources)
	}
	seen := make(map[note.Path]bool, len(r.Sources))
	for _, s := range r.Sources {
		switch msg := NotePathProblem(s.Path); {
		case msg != "":
			bad("source %q: %s", s.Path, msg)
		case s.Path == r.Summary:
			bad("source %q is the summary itself", s.Path)
		case seen[s.Path]:
			bad("source %q named twice", s.Path)
		}
		seen[s.Path] = true
		if !isHexID(string(s.Revision)) {
			bad("source %q: revision %q is not a 40-character lowercase hex blob id", s.Path, s.Revision)
		}
	}
	return errors.Join(errs...)
}

// NotePathProblem says why p cannot name a note in a registration ("" when it
// can): a relative, clean, UTF-8 path to a Markdown note outside .norn/.
func NotePathProblem(p note.Path) string {
	s := string(p)
	switch {
	case s == "":
		return "empty path"
	case len(s) > maxPathBytes:
		return fmt.Sprintf("path of %d bytes (at most %d)", len(s), maxPathBytes)
	case !utf8.ValidString(s):
		return "path is not UTF-8"
	case strings.HasPrefix(s, "/") || strings.HasSuffix(s, "/") || strings.Contains(s, "//") || strings.ContainsRune(s, '\\'):
		return "not a clean relative path"
	case strings.HasPrefix(s, ".norn/") || strings.HasPrefix(s, ".git/"):
		return "Norn's own files are not notes"
	case !note.IsNote(p):
		return "not a Markdown note (.md)"
	}
	for _, part := range strings.Split(s, "/") {
		if part == "." || part == ".." {
			return "not a clean relative path"
		}
	}
	for _, c := range s {
		if c < 0x20 || c == 0x7f {
			return "path holds a control character"
		}
	}
	return ""
}

// isHexID reports whether s is a 40-character lowercase hex object id.
func isHexID(s string) bool {
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

// NewRegistration returns the registration of summary with sources, sorted, and
// checked (Check).
func NewRegistration(summary note.Path, sources []Source) (*Registration, error) {
	r := &Registration{Summary: summary, Sources: slices.Clone(sources)}
	slices.SortFunc(r.Sources, func(a, b Source) int { return strings.Compare(string(a.Path), string(b.Path)) })
	if err := r.Check(); err != nil {
		return nil, err
	}
	return r, nil
}

// registrationHeader opens every registration file.
const registrationHeader = "# norn synthesis registration: the sources of a summary note, with the\n" +
	"# revisions it was written from. Written by register_synthesis.\n"

// EncodeRegistration writes r (checked, sources sorted) in the canonical form.
func EncodeRegistration(r *Registration) ([]byte, error) {
	if err := r.Check(); err != nil {
		return nil, err
	}
	if !slices.IsSortedFunc(r.Sources, func(a, b Source) int { return strings.Compare(string(a.Path), string(b.Path)) }) {
		return nil, fmt.Errorf("%w: sources not sorted by path", ErrInvalidRegistration)
	}
	var b bytes.Buffer
	b.WriteString(registrationHeader)
	b.WriteString("summary: " + quote(string(r.Summary)) + "\n")
	b.WriteString("sources:\n")
	for _, s := range r.Sources {
		b.WriteString("  - path: " + quote(string(s.Path)) + "\n")
		b.WriteString("    revision: \"" + string(s.Revision) + "\"\n")
	}
	return b.Bytes(), nil
}

// quote writes s as a YAML double-quoted scalar (JSON's escaping is a subset).
func quote(s string) string {
	out, err := yaml.Marshal(s)
	if err == nil && !bytes.ContainsAny(out[:len(out)-1], "\n") {
		return string(bytes.TrimSuffix(out, []byte("\n")))
	}
	return fmt.Sprintf("%q", s)
}

// DecodeRegistration reads a registration file strictly: one YAML document, a
// mapping of exactly summary and sources, each source a mapping of exactly path
// and revision, no aliases, anchors or tags beyond the plain ones, and the
// result must pass Check. Sources must be sorted by path (as written). Every
// error wraps ErrInvalidRegistration and names the line.
func DecodeRegistration(b []byte) (*Registration, error) {
	if len(b) > maxRegistrationBytes {
		return nil, fmt.Errorf("%w: %d bytes (at most %d)", ErrInvalidRegistration, len(b), maxRegistrationBytes)
	}
	if !utf8.Valid(b) {
		return nil, fmt.Errorf("%w: not UTF-8", ErrInvalidRegistration)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var doc yaml.Node
	if err := decodeNode(dec, &doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: empty file", ErrInvalidRegistration)
		}
		return nil, fmt.Errorf("%w: YAML syntax: %v", ErrInvalidRegistration, err)
	}
	var extra yaml.Node
	if err := decodeNode(dec, &extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: more than one YAML document", ErrInvalidRegistration)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	r := &Registration{}
	if err := decodeTop(root, r); err != nil {
		return nil, err
	}
	if err := r.Check(); err != nil {
		return nil, err
	}
	if !slices.IsSortedFunc(r.Sources, func(a, b Source) int { return strings.Compare(string(a.Path), string(b.Path)) }) {
		return nil, fmt.Errorf("%w: sources not sorted by path", ErrInvalidRegistration)
	}
	return r, nil
}

// decodeNode reads the next document; a panic in the YAML library is an error.
func decodeNode(dec *yaml.Decoder, n *yaml.Node) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("yaml: internal error: %v", p)
		}
	}()
	return dec.Decode(n)
}

// nodeErr is an error at n's line.
func nodeErr(n *yaml.Node, format string, a ...any) error {
	return fmt.Errorf("%w: line %d: "+format, append([]any{ErrInvalidRegistration, n.Line}, a...)...)
}

// fields walks a mapping node whose keys must be exactly want, each once.
func fields(n *yaml.Node, what string, want []string, set func(key string, v *yaml.Node) error) error {
	if n.Kind != yaml.MappingNode || n.Anchor != "" || n.Style&yaml.TaggedStyle != 0 {
		return nodeErr(n, "%s must be a mapping of %s", what, strings.Join(want, " and "))
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || !slices.Contains(want, k.Value) {
			return nodeErr(k, "%s: unknown key %q; allowed: %s", what, k.Value, strings.Join(want, ", "))
		}
		if seen[k.Value] {
			return nodeErr(k, "%s: key %q given twice", what, k.Value)
		}
		seen[k.Value] = true
		if err := set(k.Value, v); err != nil {
			return err
		}
	}
	for _, k := range want {
		if !seen[k] {
			return nodeErr(n, "%s: missing key %q", what, k)
		}
	}
	return nil
}

// scalar is n's text: a plain or quoted scalar without an anchor or an explicit
// tag (Check judges the text).
func scalar(n *yaml.Node, what string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Anchor != "" || n.Style&yaml.TaggedStyle != 0 {
		return "", nodeErr(n, "%s must be a string", what)
	}
	return n.Value, nil
}

func decodeTop(root *yaml.Node, r *Registration) error {
	return fields(root, "the file", []string{"summary", "sources"}, func(k string, v *yaml.Node) error {
		switch k {
		case "summary":
			s, err := scalar(v, "summary")
			r.Summary = note.Path(s)
			return err
		default:
			if v.Kind != yaml.SequenceNode || v.Anchor != "" || v.Style&yaml.TaggedStyle != 0 {
				return nodeErr(v, "sources must be a list of {path, revision}")
			}
			if len(v.Content) > MaxSources {
				return nodeErr(v, "%d sources: at most %d", len(v.Content), MaxSources)
			}
			for _, item := range v.Content {
				var s Source
				err := fields(item, "a source", []string{"path", "revision"}, func(k string, v *yaml.Node) error {
					val, err := scalar(v, "a source's "+k)
					if k == "path" {
						s.Path = note.Path(val)
					} else {
						s.Revision = repo.Revision(val)
					}
					return err
				})
				if err != nil {
					return err
				}
				r.Sources = append(r.Sources, s)
			}
			return nil
		}
	})
}
