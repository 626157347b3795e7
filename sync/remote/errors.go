package remote

import (
	"errors"
	"fmt"
	"strings"

	"github.com/norn-vault/norn/repo"
)

// Sentinel errors; match them with errors.Is. Those that are a kind of repo error
// (bad input, not found, conflict) match that repo sentinel too, so one classifier
// renders them.
var (
	// ErrInvalid: a remote's name or URL is not acceptable. Nothing was written.
	ErrInvalid error = &kindError{"invalid remote", repo.ErrInvalid}
	// ErrExists: a remote of that name already exists. Nothing was written.
	ErrExists error = &kindError{"remote exists", repo.ErrInvalid}
	// ErrNotFound: no remote of that name.
	ErrNotFound error = &kindError{"no such remote", repo.ErrNotFound}
	// ErrRemoteMoved: a push was refused because the remote branch is no longer at the
	// tip the caller expected: fetch, merge and push again. Nothing moved there.
	ErrRemoteMoved error = &kindError{"rejected: remote moved", repo.ErrConflict}
	// ErrNotFastForward: the pushed commit does not descend from the remote tip the
	// caller expected (merge first). Nothing moved on the remote.
	ErrNotFastForward error = &kindError{"rejected: not a fast-forward", repo.ErrConflict}
	// ErrRejected: the remote refused the push for a reason of its own (a hook, a
	// protected branch, a non-bare repository with the branch checked out).
	ErrRejected = errors.New("rejected by the remote")
	// ErrAuth: the remote refused the credentials, or wanted some and had none.
	// Fix the machine's settings: it matches repo.ErrInvalid.
	ErrAuth error = &kindError{"authentication failed", repo.ErrInvalid}
	// ErrHostKey: an SSH server's host key is unknown or changed; see *HostKeyError.
	// Trust the key (after checking it): it matches repo.ErrInvalid.
	ErrHostKey error = &kindError{"ssh host key not trusted", repo.ErrInvalid}
	// ErrUnreachable: the remote could not be reached or is not a git repository.
	ErrUnreachable = errors.New("remote unreachable")
	// ErrSyncBusy: the remote (or the vault) kept moving for every round of a
	// sync; nothing is lost, sync again. It matches repo.ErrConflict (retryable).
	ErrSyncBusy error = &kindError{"sync did not settle: the remote kept moving", repo.ErrConflict}
	// ErrFetchIncomplete: a fetch ended without the remote's tip in the object
	// store (a pack it needed was merged away or deleted while it ran); the
	// tracking ref was left where it was. Fetch again (Sync does). It matches
	// repo.ErrConflict (retryable).
	ErrFetchIncomplete error = &kindError{"fetch incomplete: the remote's tip did not arrive", repo.ErrConflict}
	// ErrNotCommit: a commit id given to the package is not a commit in the vault.
	ErrNotCommit error = &kindError{"not a commit of this vault", repo.ErrNotFound}
)

// kindError is a sentinel that also matches a broader repo sentinel.
type kindError struct {
	msg  string
	kind error
}

func (e *kindError) Error() string        { return e.msg }
func (e *kindError) Is(target error) bool { return target == e.kind }

// HostKeyError says which SSH host key was refused and how to trust it. It matches
// ErrHostKey. It holds only public data (the host's public key).
type HostKeyError struct {
	// Host is the host as known_hosts names it ("host" or "[host]:port").
	Host string
	// Fingerprint is the SHA-256 fingerprint of the key offered ("SHA256:…").
	Fingerprint string
	// Line is the known_hosts line that would trust the key.
	Line string
	// Changed: the host is known with a different key (possibly an attack).
	Changed bool
	// KnownHosts are the files that were checked.
	KnownHosts []string
}

func (e *HostKeyError) Error() string {
	files := strings.Join(e.KnownHosts, ", ")
	if files == "" {
		files = "(no known_hosts file set)"
	}
	if e.Changed {
		return fmt.Sprintf("ssh host key of %s CHANGED: it offered %s, which is not the key %s has for it; "+
			"someone may be intercepting the connection. If the server's key really changed, remove its old line "+
			"from %s and trust the new one with: norn remote trust NAME %s", e.Host, e.Fingerprint, files, files, e.Fingerprint)
	}
	return fmt.Sprintf("ssh host key of %s is unknown: it offered %s, and %s does not list it. "+
		"Check the fingerprint with whoever runs the server (ssh-keygen -lf on its host key), then run: "+
		"norn remote trust NAME %s (or add this line to a known_hosts file: %s)", e.Host, e.Fingerprint, files, e.Fingerprint, e.Line)
}

// Is makes a *HostKeyError match ErrHostKey (and so repo.ErrInvalid).
func (e *HostKeyError) Is(target error) bool {
	return target == ErrHostKey || errors.Is(ErrHostKey, target)
}

// redactedError is an error whose text had secrets replaced; it keeps the chain
// for errors.Is/As.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redact returns err with every non-empty secret replaced in its text.
func redact(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	out := msg
	for _, s := range secrets {
		if s != "" {
			out = strings.ReplaceAll(out, s, "[redacted]")
		}
	}
	if out == msg {
		return err
	}
	return &redactedError{out, err}
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
