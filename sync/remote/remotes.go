package remote

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/repo"
)

// Credentials are how this machine authenticates to one remote. cmd/norn fills
// them from .git/norn/machine.yaml and the environment; this package never reads
// either. Secrets never appear in errors or logs.
type Credentials struct {
	// Username goes with Password or Token over HTTP(S), and is the SSH user when
	// the URL names none (default "git").
	Username string
	// Password is an HTTP(S) password.
	Password config.Secret
	// Token is an HTTP(S) access token, sent as the Basic-auth password (the way
	// GitHub, GitLab and Gitea take one) with Username, or "norn" when unset.
	Token config.Secret
	// SSHKey is a private key file; SSHKeyPassphrase unlocks it if it is encrypted.
	SSHKey           string
	SSHKeyPassphrase config.Secret
	// SSHAgent is the socket of an ssh-agent ($SSH_AUTH_SOCK), tried after SSHKey.
	SSHAgent string
	// KnownHosts are the known_hosts files an SSH host key is checked against. With
	// none, every host key is refused.
	KnownHosts []string
}

func (c Credentials) secrets() []string {
	return []string{c.Password.Reveal(), c.Token.Reveal(), c.SSHKeyPassphrase.Reveal()}
}

// Options configure Remotes.
type Options struct {
	// Branch is the vault's branch, fetched and pushed (default "main").
	Branch string
	// Credentials returns the credentials for a remote by name; nil: none.
	Credentials func(name string) Credentials
	// Logger receives one line per transfer (never a secret); nil: slog.Default().
	Logger *slog.Logger
}

// Remotes are a vault's git remotes and the transfers to and from them. Its
// methods are safe for concurrent use; transfers run one at a time.
type Remotes struct {
	gitDir string
	opts   Options
	mu     sync.Mutex // serialises .git/config edits and go-git use
	// stateMu serialises this process's edits of the sync state (state.go).
	stateMu sync.Mutex
}

// Open returns the remotes of the git repository whose git directory is gitDir
// (a vault's repo.Vault.GitDir()).
func Open(gitDir string, opts Options) (*Remotes, error) {
	if fi, err := os.Stat(filepath.Join(gitDir, "config")); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("open remotes: %s has no git config: %w", gitDir, repo.ErrNotVault)
	}
	if opts.Branch == "" {
		opts.Branch = "main"
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Credentials == nil {
		opts.Credentials = func(string) Credentials { return Credentials{} }
	}
	return &Remotes{gitDir: gitDir, opts: opts}, nil
}
