package remote

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/skeema/knownhosts"
	"golang.org/x/crypto/ssh"
)

// errGotKey ends the handshake once the host key is seen.
var errGotKey = errors.New("host key seen")

// HostKey asks the SSH server of the remote called name for its host key and
// returns it as a *HostKeyError-shaped record (host, fingerprint, known_hosts
// line), without authenticating or running anything there.
func (r *Remotes) HostKey(ctx context.Context, name string) (*HostKeyError, error) {
	rem, err := r.Get(name)
	if err != nil {
		return nil, err
	}
	if rem.Kind != KindSSH {
		return nil, fmt.Errorf("%w: remote %s is not reached over ssh", ErrInvalid, name)
	}
	ep, err := transport.NewEndpoint(rem.URL)
	if err != nil {
		return nil, fmt.Errorf("%w: url of %s: not a well-formed ssh URL", ErrInvalid, name)
	}
	port := ep.Port
	if port == 0 {
		port = 22
	}
	addr := net.JoinHostPort(ep.Host, strconv.Itoa(port))
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("host key of %s: %w: %w", name, ErrUnreachable, err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	var got *HostKeyError
	_, _, _, err = ssh.NewClientConn(conn, addr, &ssh.ClientConfig{
		User: "norn",
		HostKeyCallback: func(hostname string, _ net.Addr, key ssh.PublicKey) error {
			host := knownhosts.Normalize(hostname)
			got = &HostKeyError{Host: host, Fingerprint: ssh.FingerprintSHA256(key), Line: knownhosts.Line([]string{host}, key)}
			return errGotKey
		},
	})
	if got == nil {
		return nil, fmt.Errorf("host key of %s: %w: %w", name, ErrUnreachable, err)
	}
	return got, nil
}

// Trust adds the host key of the remote called name to the known_hosts file, if
// the key the server offers has the fingerprint given ("SHA256:…", checked with
// whoever runs the server). A different key writes nothing. It returns the line
// added (or already there).
func (r *Remotes) Trust(ctx context.Context, name, fingerprint, file string) (string, error) {
	if !strings.HasPrefix(fingerprint, "SHA256:") {
		return "", fmt.Errorf("%w: fingerprint: want SHA256:… as ssh-keygen -lf prints it", ErrInvalid)
	}
	if !filepath.IsAbs(file) {
		return "", fmt.Errorf("%w: known_hosts file: want an absolute path", ErrInvalid)
	}
	hk, err := r.HostKey(ctx, name)
	if err != nil {
		return "", err
	}
	if hk.Fingerprint != fingerprint {
		return "", fmt.Errorf("trust %s: %w: %s offers %s, not %s; nothing was written", name, ErrHostKey, hk.Host, hk.Fingerprint, fingerprint)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return "", fmt.Errorf("trust %s: %w", name, err)
	}
	old, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("trust %s: %w", name, err)
	}
	for _, l := range strings.Split(string(old), "\n") {
		if strings.TrimSpace(l) == hk.Line {
			return hk.Line, nil
		}
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return "", fmt.Errorf("trust %s: %w", name, err)
	}
	line := hk.Line + "\n"
	if len(old) > 0 && old[len(old)-1] != '\n' {
		line = "\n" + line
	}
	if _, err := f.WriteString(line); err != nil {
		f.Close()
		return "", fmt.Errorf("trust %s: %w", name, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return "", fmt.Errorf("trust %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("trust %s: %w", name, err)
	}
	return hk.Line, nil
}
