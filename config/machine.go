package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Machine is one machine's settings, from .git/norn/machine.yaml: never committed,
// never synced. It holds what must not travel with the vault — where this machine's
// reranker is, credentials, how this machine reaches its remotes and serves — so a
// pulled .norn/config.yaml can never point this machine at someone else's server nor
// carry a secret. Secrets are Secret values: they print as "[redacted]".
type Machine struct {
	// Rerank says where this machine's reranker is.
	Rerank MachineRerank `yaml:"rerank"`
	// Remotes holds per git remote (by name) how to authenticate to it.
	Remotes map[string]Remote `yaml:"remotes"`
	// Serve holds the defaults of `norn serve` on this machine.
	Serve Serve `yaml:"serve"`
}

// MachineRerank is the per-machine `rerank:` section. The shared part (the
// threshold) stays in .norn/config.yaml (Rerank).
type MachineRerank struct {
	// Endpoint is the base URL of an OpenAI-compatible API (http or https); empty
	// (the default) turns reranking off.
	Endpoint string `yaml:"endpoint"`
	// Model is the model name sent to the endpoint; empty lets the endpoint choose.
	Model string `yaml:"model"`
	// APIKey is sent as a bearer token. At most one of APIKey and APIKeyEnv is set.
	APIKey Secret `yaml:"api_key"`
	// APIKeyEnv names the environment variable holding the API key (read by
	// cmd/norn, never by a library).
	APIKeyEnv string `yaml:"api_key_env"`
	// Timeout bounds one call to the endpoint; default 2s, from 1ms to 10m.
	Timeout Duration `yaml:"timeout"`
}

// Remote is how this machine authenticates to one git remote. Inline secrets and
// the names of environment variables holding them are exclusive per secret.
type Remote struct {
	Token       Secret `yaml:"token"`
	TokenEnv    string `yaml:"token_env"`
	Username    string `yaml:"username"`
	Password    Secret `yaml:"password"`
	PasswordEnv string `yaml:"password_env"`
	// SSHKey and KnownHosts are absolute paths of files on this machine.
	SSHKey     string `yaml:"ssh_key"`
	KnownHosts string `yaml:"known_hosts"`
}

// Serve holds this machine's defaults for `norn serve`; its flags override them.
type Serve struct {
	// HTTP is the address to serve streamable HTTP on (HOST:PORT); empty: none.
	HTTP string `yaml:"http"`
	// MaxConcurrent is how many requests one principal may have running at once;
	// 0 (the default) leaves the server's default.
	MaxConcurrent int `yaml:"max_concurrent"`
	// AllowUnauthenticatedLoopback serves tokenless requests on a loopback address
	// as the local agent.
	AllowUnauthenticatedLoopback bool `yaml:"allow_unauthenticated_loopback"`
	// SyncInterval is how often a serving Norn syncs the vault's default remote
	// (from 10s to 24h); 0 (the default): no periodic sync.
	SyncInterval Duration `yaml:"sync_interval"`
}

// Secret is a credential. It prints, logs and marshals as "[redacted]" (empty when
// unset); Reveal gives the value to the code that sends it.
type Secret string

const redacted = "[redacted]"

// Reveal returns the secret itself.
func (s Secret) Reveal() string { return string(s) }

func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return redacted
}

// GoString keeps %#v from printing the value.
func (s Secret) GoString() string { return fmt.Sprintf("%q", s.String()) }

// MarshalText keeps JSON and YAML output from holding the value.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// MarshalYAML keeps YAML output from holding the value.
func (s Secret) MarshalYAML() (any, error) { return s.String(), nil }

// The bounds of a periodic sync's interval (Serve.SyncInterval, norn serve
// --sync-interval).
const (
	MinSyncInterval = 10 * time.Second
	MaxSyncInterval = 24 * time.Hour
)

// Duration is a time.Duration written as "2s" or "500ms".
type Duration time.Duration

// MarshalYAML writes d as time.Duration.String does.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

func (d Duration) String() string { return time.Duration(d).String() }

// DefaultMachine returns the per-machine settings of a machine without the file.
func DefaultMachine() Machine {
	return Machine{Rerank: MachineRerank{Timeout: Duration(2 * time.Second)}}
}

// String is m as YAML with every secret redacted.
func (m Machine) String() string {
	b, err := yaml.Marshal(m)
	if err != nil {
		return fmt.Sprintf("machine settings: %v", err)
	}
	return string(b)
}

// machineTopKeys are the sections of machine.yaml.
func machineTopKeys() []string { return []string{"rerank", "remotes", "serve"} }

// machineRerankKeys are the keys of machine.yaml's rerank section: per-machine, so
// ignored (with a Warning) in .norn/config.yaml.
func machineRerankKeys() []string {
	return []string{"endpoint", "model", "api_key", "api_key_env", "timeout"}
}

// ParseMachine reads the bytes of a machine.yaml as strictly as Parse reads a
// config.yaml (unknown keys, wrong types, aliases: *Error naming key and line, all
// reported, matching ErrInvalid). No error message holds a secret's value.
func ParseMachine(b []byte) (Machine, error) {
	if len(b) > MaxSize {
		return Machine{}, &Error{Msg: fmt.Sprintf("file is %d bytes; the limit is %d", len(b), MaxSize)}
	}
	m := DefaultMachine()
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var doc yaml.Node
	if err := decodeNode(dec, &doc); err != nil {
		if errors.Is(err, io.EOF) {
			return m, nil
		}
		return Machine{}, redactSyntax(syntaxError(err))
	}
	var extra yaml.Node
	if err := decodeNode(dec, &extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return Machine{}, redactSyntax(syntaxError(err))
		}
		return Machine{}, &Error{Line: extra.Line, Msg: "the file holds more than one YAML document (---); keep one"}
	}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return m, nil
		}
		root = root.Content[0]
	}
	d := &decoder{quiet: true}
	if d.usable(root, "") && root.Kind != yaml.MappingNode {
		d.errorf(root, "", "the file must be a mapping of %s; got %s", strings.Join(machineTopKeys(), ", "), kindOf(root))
	} else {
		m.decode(d, root)
	}
	if len(d.errs) > 0 {
		if len(d.errs) == 1 {
			return Machine{}, d.errs[0]
		}
		return Machine{}, errors.Join(d.errs...)
	}
	return m, nil
}

// redactSyntax drops the YAML library's message, which may quote the file's text
// (a secret), keeping the line.
func redactSyntax(err error) error {
	var ce *Error
	if errors.As(err, &ce) {
		return &Error{Line: ce.Line, Msg: "YAML syntax error (the text is not shown, as it may hold a secret)"}
	}
	return err
}

// kindOf names what a node is without quoting it (errors about machine.yaml, whose
// values may be secrets).
func kindOf(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return "a single value"
	}
	return "something else"
}

func (m *Machine) decode(d *decoder, n *yaml.Node) {
	d.mapping(n, "", machineTopKeys(), func(k, full string, v *yaml.Node) {
		switch k {
		case "rerank":
			m.Rerank.decode(d, v, full)
		case "remotes":
			m.decodeRemotes(d, v, full)
		case "serve":
			m.Serve.decode(d, v, full)
		}
	})
}

func (r *MachineRerank) decode(d *decoder, n *yaml.Node, key string) {
	d.mapping(n, key, machineRerankKeys(), func(k, full string, v *yaml.Node) {
		switch k {
		case "endpoint":
			var s string
			if d.str(v, full, &s) {
				if msg := CheckEndpoint(s); msg != "" {
					d.errorf(v, full, "%s", msg)
					return
				}
				r.Endpoint = s
			}
		case "model":
			d.str(v, full, &r.Model)
		case "api_key":
			d.secret(v, full, &r.APIKey)
		case "api_key_env":
			d.envName(v, full, &r.APIKeyEnv)
		case "timeout":
			d.duration(v, full, time.Millisecond, 10*time.Minute, &r.Timeout)
		}
	})
	d.exclusive(n, key, "api_key", r.APIKey != "", r.APIKeyEnv != "")
}

// CheckEndpoint checks a reranker's base URL: "" (off) or an http:// or https://
// URL with a host. It returns what is wrong, or "".
func CheckEndpoint(s string) string {
	if s == "" {
		return ""
	}
	u, err := url.Parse(s)
	if err == nil && u.User != nil {
		return "credentials do not go in the URL (it is shown in logs); set api_key or api_key_env"
	}
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Sprintf("want an http:// or https:// URL such as \"http://127.0.0.1:8080/v1\", or \"\" to turn reranking off; got %q", s)
	}
	return ""
}

func (m *Machine) decodeRemotes(d *decoder, n *yaml.Node, key string) {
	d.mapping(n, key, nil, func(name, full string, v *yaml.Node) {
		if _, msg := word(name); msg != "" || strings.ContainsAny(name, ":\\") {
			d.errorf(v, full, "a remote's name is one word as git names it, e.g. origin")
			return
		}
		var r Remote
		r.decode(d, v, full)
		if m.Remotes == nil {
			m.Remotes = map[string]Remote{}
		}
		m.Remotes[name] = r
	})
}

func (r *Remote) decode(d *decoder, n *yaml.Node, key string) {
	known := []string{"token", "token_env", "username", "password", "password_env", "ssh_key", "known_hosts"}
	d.mapping(n, key, known, func(k, full string, v *yaml.Node) {
		switch k {
		case "token":
			d.secret(v, full, &r.Token)
		case "token_env":
			d.envName(v, full, &r.TokenEnv)
		case "username":
			d.str(v, full, &r.Username)
		case "password":
			d.secret(v, full, &r.Password)
		case "password_env":
			d.envName(v, full, &r.PasswordEnv)
		case "ssh_key":
			d.absPath(v, full, &r.SSHKey)
		case "known_hosts":
			d.absPath(v, full, &r.KnownHosts)
		}
	})
	d.exclusive(n, key, "token", r.Token != "", r.TokenEnv != "")
	d.exclusive(n, key, "password", r.Password != "", r.PasswordEnv != "")
}

func (s *Serve) decode(d *decoder, n *yaml.Node, key string) {
	d.mapping(n, key, []string{"http", "max_concurrent", "allow_unauthenticated_loopback", "sync_interval"}, func(k, full string, v *yaml.Node) {
		switch k {
		case "http":
			var a string
			if d.str(v, full, &a) {
				if _, _, err := net.SplitHostPort(a); err != nil && a != "" {
					d.errorf(v, full, "want HOST:PORT, e.g. 127.0.0.1:7777; got %q", a)
					return
				}
				s.HTTP = a
			}
		case "max_concurrent":
			d.integer(v, full, 1, 10000, &s.MaxConcurrent)
		case "allow_unauthenticated_loopback":
			d.boolean(v, full, &s.AllowUnauthenticatedLoopback)
		case "sync_interval":
			d.duration(v, full, MinSyncInterval, MaxSyncInterval, &s.SyncInterval)
		}
	})
}

// exclusive reports a secret given both inline and by environment variable.
func (d *decoder) exclusive(n *yaml.Node, key, name string, inline, env bool) {
	if inline && env {
		d.errorf(n, join(key, name), "set %s or %s_env, not both", name, name)
	}
}

// envName decodes the name of an environment variable ([A-Za-z_][A-Za-z0-9_]*).
func (d *decoder) envName(n *yaml.Node, key string, dst *string) {
	var s string
	if !d.str(n, key, &s) {
		return
	}
	ok := s != ""
	for i, c := range s {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			ok = false
		}
	}
	if !ok {
		// Not quoted: a secret pasted here by mistake must not be shown.
		d.errorf(n, key, "want the name of an environment variable such as NORN_RERANK_API_KEY (the value given is not shown: it may be the secret itself)")
		return
	}
	*dst = s
}

// absPath decodes an absolute file path.
func (d *decoder) absPath(n *yaml.Node, key string, dst *string) {
	var s string
	if !d.str(n, key, &s) {
		return
	}
	if !filepath.IsAbs(s) || strings.ContainsRune(s, 0) {
		d.errorf(n, key, "want an absolute path such as /home/me/.ssh/id_ed25519; got %q", s)
		return
	}
	*dst = filepath.Clean(s)
}

// duration decodes a Go duration ("2s", "500ms") in [lo, hi].
func (d *decoder) duration(n *yaml.Node, key string, lo, hi time.Duration, dst *Duration) {
	var s string
	if !d.usable(n, key) {
		return
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		d.errorf(n, key, "want a duration such as 2s or 500ms, got %s", d.describe(n))
		return
	}
	s = n.Value
	v, err := time.ParseDuration(s)
	if err != nil || v < lo || v > hi {
		d.errorf(n, key, "want a duration from %s to %s, such as 2s; got %q", lo, hi, s)
		return
	}
	*dst = Duration(v)
}
