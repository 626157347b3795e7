package remote

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"github.com/skeema/knownhosts"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// session is what one transfer needs to authenticate: go-git's auth method, what
// to close afterwards, and the host key refusal, if any, to report.
type session struct {
	auth    transport.AuthMethod
	closers []func() error
	hostKey *hostKeyCheck
	secrets []string
}

func (s *session) close() {
	for _, c := range s.closers {
		c()
	}
}

// explain turns a transfer's error into ours, without secrets: a host key refusal
// (the check recorded it), refused credentials, an unreachable remote.
func (s *session) explain(err error) error {
	if err == nil {
		return nil
	}
	if s.hostKey != nil {
		if hk := s.hostKey.refused(); hk != nil {
			return hk
		}
	}
	switch {
	case errors.Is(err, transport.ErrAuthenticationRequired), errors.Is(err, transport.ErrAuthorizationFailed):
		err = fmt.Errorf("%w (check the token, username or password set for this remote in .git/norn/machine.yaml or the environment): %w", ErrAuth, err)
	case isSSHAuthFailure(err):
		err = fmt.Errorf("%w (check ssh_key, or that the ssh agent holds a key the server accepts): %w", ErrAuth, err)
	case errors.Is(err, transport.ErrRepositoryNotFound), errors.Is(err, transport.ErrInvalidAuthMethod),
		isNetError(err):
		err = fmt.Errorf("%w: %w", ErrUnreachable, err)
	}
	return redact(err, s.secrets...)
}

// isNetError reports a failure to reach the host (refused, unresolvable, timed out).
func isNetError(err error) bool {
	var ne net.Error
	var dns *net.DNSError
	return errors.As(err, &ne) || errors.As(err, &dns)
}

func isSSHAuthFailure(err error) bool {
	var ssherr *ssh.ServerAuthError
	if errors.As(err, &ssherr) {
		return true
	}
	return err != nil && containsAny(err.Error(), "unable to authenticate", "no supported methods remain")
}

// newSession prepares authentication for a remote of the given kind.
func newSession(rem Remote, c Credentials) (*session, error) {
	s := &session{secrets: c.secrets()}
	switch rem.Kind {
	case KindLocal:
		return s, nil
	case KindHTTP:
		switch {
		case c.Token != "":
			user := c.Username
			if user == "" {
				user = "norn"
			}
			s.auth = &githttp.BasicAuth{Username: user, Password: c.Token.Reveal()}
		case c.Password != "" || c.Username != "":
			s.auth = &githttp.BasicAuth{Username: c.Username, Password: c.Password.Reveal()}
		}
		return s, nil
	case KindSSH:
		if err := s.sshAuth(rem, c); err != nil {
			s.close()
			return nil, redact(err, s.secrets...)
		}
		return s, nil
	}
	return nil, fmt.Errorf("remote %s: %w: url: not a URL norn can use", rem.Name, ErrInvalid)
}

func (s *session) sshAuth(rem Remote, c Credentials) error {
	ep, err := transport.NewEndpoint(rem.URL)
	if err != nil {
		return fmt.Errorf("%w: url of %s: not a well-formed ssh URL", ErrInvalid, rem.Name)
	}
	user := ep.User
	if user == "" {
		user = c.Username
	}
	if user == "" {
		user = "git"
	}
	var methods []ssh.AuthMethod
	if c.SSHKey != "" {
		b, err := os.ReadFile(c.SSHKey)
		if err != nil {
			return fmt.Errorf("ssh key of %s: %w", rem.Name, err)
		}
		var signer ssh.Signer
		if c.SSHKeyPassphrase != "" {
			signer, err = ssh.ParsePrivateKeyWithPassphrase(b, []byte(c.SSHKeyPassphrase.Reveal()))
		} else {
			signer, err = ssh.ParsePrivateKey(b)
		}
		if err != nil {
			// x/crypto's messages hold no key material; keep only the kind.
			return fmt.Errorf("ssh key %s of %s: cannot use it (encrypted without a passphrase set, or not a private key)", c.SSHKey, rem.Name)
		}
		methods = append(methods, ssh.PublicKeys(signer))
	}
	if c.SSHAgent != "" {
		conn, err := net.Dial("unix", c.SSHAgent)
		if err != nil {
			return fmt.Errorf("ssh agent at %s: %w", c.SSHAgent, err)
		}
		s.closers = append(s.closers, conn.Close)
		methods = append(methods, ssh.PublicKeysCallback(agent.NewClient(conn).Signers))
	}
	if len(methods) == 0 {
		return fmt.Errorf("%w: remote %s is reached over ssh and no key is set: set ssh_key in .git/norn/machine.yaml, or run an ssh agent", ErrAuth, rem.Name)
	}
	port := ep.Port
	if port == 0 {
		port = 22
	}
	hk, err := newHostKeyCheck(c.KnownHosts, net.JoinHostPort(ep.Host, strconv.Itoa(port)))
	if err != nil {
		return err
	}
	s.hostKey = hk
	s.auth = &sshAuth{user: user, methods: methods, hk: hk}
	return nil
}

// sshConnectTimeout bounds an SSH connect and handshake.
const sshConnectTimeout = 30 * time.Second

// sshAuth is go-git's ssh.AuthMethod with our host key check and algorithms.
type sshAuth struct {
	user    string
	methods []ssh.AuthMethod
	hk      *hostKeyCheck
}

var _ gitssh.AuthMethod = (*sshAuth)(nil)

func (a *sshAuth) Name() string   { return "norn-ssh" }
func (a *sshAuth) String() string { return "user: " + a.user + ", name: norn-ssh" }

func (a *sshAuth) ClientConfig() (*ssh.ClientConfig, error) {
	return &ssh.ClientConfig{
		User:              a.user,
		Auth:              a.methods,
		HostKeyCallback:   a.hk.check,
		HostKeyAlgorithms: a.hk.algorithms,
		// go-git dials without the transfer's context: bound the connect and
		// handshake here (the context still bounds the transfer after it).
		Timeout: sshConnectTimeout,
	}, nil
}

// hostKeyCheck checks a host key against known_hosts files and remembers a
// refusal, so the error the caller sees says which key and how to trust it however
// the transport wraps it.
type hostKeyCheck struct {
	files      []string
	db         *knownhosts.HostKeyDB // nil: no file exists, every key is unknown
	algorithms []string

	mu  sync.Mutex
	err *HostKeyError
}

func newHostKeyCheck(files []string, hostWithPort string) (*hostKeyCheck, error) {
	hk := &hostKeyCheck{files: files}
	var existing []string
	for _, f := range files {
		if _, err := os.Stat(f); err == nil {
			existing = append(existing, f)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("known_hosts %s: %w", f, err)
		}
	}
	if len(existing) > 0 {
		db, err := knownhosts.NewDB(existing...)
		if err != nil {
			return nil, fmt.Errorf("known_hosts: %w", err)
		}
		hk.db = db
		hk.algorithms = db.HostKeyAlgorithms(hostWithPort)
	}
	return hk, nil
}

func (hk *hostKeyCheck) check(hostname string, addr net.Addr, key ssh.PublicKey) error {
	changed := false
	if hk.db != nil { // else no known_hosts file: every key is unknown
		err := hk.db.HostKeyCallback()(hostname, addr, key)
		if err == nil {
			return nil
		}
		changed = knownhosts.IsHostKeyChanged(err)
	}
	host := knownhosts.Normalize(hostname)
	refusal := &HostKeyError{
		Host:        host,
		Fingerprint: ssh.FingerprintSHA256(key),
		Line:        knownhosts.Line([]string{host}, key),
		Changed:     changed,
		KnownHosts:  hk.files,
	}
	hk.mu.Lock()
	hk.err = refusal
	hk.mu.Unlock()
	return refusal
}

func (hk *hostKeyCheck) refused() *HostKeyError {
	hk.mu.Lock()
	defer hk.mu.Unlock()
	return hk.err
}
