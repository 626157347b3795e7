package auth

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/norn-vault/norn/repo"
)

// TokenPrefix starts every token Norn hands out, so a token is recognisable in a
// config file or a secret scanner.
const TokenPrefix = "norn_"

// MaxPrincipalName is the longest principal (token or --agent) name, in bytes.
const MaxPrincipalName = 64

// ErrNoTokens: the HTTP server would need a bearer token but the tokens file has none.
// Nothing was started. Run `norn token add NAME`.
var ErrNoTokens = errors.New("no tokens")

// TokensPath is where a vault keeps its tokens: .git/norn/tokens, per machine and never
// committed.
func TokensPath(gitDir string) string { return filepath.Join(gitDir, "norn", "tokens") }

// TokenInfo describes one token without its secret or digest.
type TokenInfo struct {
	Name    string    `json:"name"`
	Scopes  []Scope   `json:"scopes"`
	Created time.Time `json:"created"`
}

// tokenRecord is one line of the tokens file.
type tokenRecord struct {
	Name    string    `json:"name"`
	SHA256  string    `json:"sha256"`
	Scopes  []Scope   `json:"scopes"`
	Created time.Time `json:"created"`
}

type tokenEntry struct {
	rec    tokenRecord
	digest TokenKey
}

// TokenKey identifies one token: the SHA-256 digest of its secret. The zero key is
// no token (the unauthenticated local agent), which Tokens.holds always holds.
type TokenKey [sha256.Size]byte

// tokensHeader opens every tokens file Norn writes.
const tokensHeader = "# norn bearer tokens: one JSON object per line {name, sha256, scopes, created}.\n" +
	"# Only SHA-256 digests are stored. Manage with `norn token add|list|revoke`.\n"

// Tokens is a vault's tokens file: the bearer tokens the HTTP server accepts, stored
// as SHA-256 digests. It re-reads the file whenever it changes (checked with a stat
// on every Authenticate), so tokens added or revoked by another process take effect
// without a restart. A file that does not parse fails closed: no token authenticates
// until it is fixed. Tokens is safe for concurrent use.
//
// The file has one JSON object per line, {"name", "sha256" (hex digest of the whole
// token string), "scopes", "created"}; blank lines and lines starting with # are
// ignored. Norn writes it atomically (tokens.lock, fsync, rename) with mode 0600.
type Tokens struct {
	path string
	log  *slog.Logger

	mu      sync.Mutex
	loaded  bool
	stat    fs.FileInfo // of the version in entries; nil when the file is missing
	entries []tokenEntry
	err     error  // why the current version is unusable
	gen     uint64 // counts the versions read, so holders of a key know to check it again
}

// OpenTokens returns the tokens file at path (usually TokensPath(v.GitDir())). It
// does not read the file yet; a missing file holds no tokens. A nil logger logs to
// slog.Default().
func OpenTokens(path string, log *slog.Logger) *Tokens {
	if log == nil {
		log = slog.Default()
	}
	return &Tokens{path: path, log: log}
}

// Path returns the file's path.
func (t *Tokens) Path() string { return t.path }

// ValidPrincipalName checks a token or agent name: it becomes the commit author of the
// principal's writes, so it must be a usable git author name — non-empty, at most
// MaxPrincipalName bytes of UTF-8, no '<', '>' or control characters, and no space at
// either end. The error matches repo.ErrInvalid.
func ValidPrincipalName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: empty name", repo.ErrInvalid)
	case len(name) > MaxPrincipalName:
		return fmt.Errorf("%w: name is %d bytes, at most %d", repo.ErrInvalid, len(name), MaxPrincipalName)
	case !utf8.ValidString(name):
		return fmt.Errorf("%w: name is not UTF-8", repo.ErrInvalid)
	case strings.TrimSpace(name) != name:
		return fmt.Errorf("%w: name %q starts or ends with a space", repo.ErrInvalid, name)
	case strings.ContainsAny(name, "<>"):
		return fmt.Errorf("%w: name %q holds '<' or '>'", repo.ErrInvalid, name)
	case strings.ContainsFunc(name, unicode.IsControl):
		return fmt.Errorf("%w: name %q holds a control character", repo.ErrInvalid, name)
	}
	return nil
}

// checkScopes validates scopes and returns them without duplicates, in order. The
// error matches repo.ErrInvalid.
func checkScopes(scopes []Scope) ([]Scope, error) {
	if len(scopes) == 0 {
		return nil, fmt.Errorf("%w: no scopes", repo.ErrInvalid)
	}
	var out []Scope
	for _, s := range scopes {
		if !ValidScope(s) {
			return nil, fmt.Errorf("%w: unknown scope %q (scopes: %s)", repo.ErrInvalid, s, ScopeList(AllScopes))
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

func ScopeList(scopes []Scope) string {
	s := make([]string, len(scopes))
	for i, sc := range scopes {
		s[i] = string(sc)
	}
	return strings.Join(s, ",")
}

// Add creates a token for name with the given scopes and returns it; only its SHA-256
// digest is stored, so this is the one time it can be seen. An invalid name or an
// unknown scope matches repo.ErrInvalid, a name that already has a token
// repo.ErrConflict; either way the file is unchanged.
func (t *Tokens) Add(name string, scopes []Scope) (string, error) {
	if err := ValidPrincipalName(name); err != nil {
		return "", fmt.Errorf("add token: %w", err)
	}
	scopes, err := checkScopes(scopes)
	if err != nil {
		return "", fmt.Errorf("add token %q: %w", name, err)
	}
	var secret [32]byte
	if _, err := rand.Read(secret[:]); err != nil {
		return "", fmt.Errorf("add token %q: %w", name, err)
	}
	token := TokenPrefix + base64.RawURLEncoding.EncodeToString(secret[:])
	digest := sha256.Sum256([]byte(token))
	err = t.update(func(recs []tokenRecord) ([]tokenRecord, error) {
		for _, r := range recs {
			if r.Name == name {
				return nil, fmt.Errorf("%w: a token named %q exists (revoke it first)", repo.ErrConflict, name)
			}
		}
		return append(recs, tokenRecord{Name: name, SHA256: hex.EncodeToString(digest[:]), Scopes: scopes,
			Created: time.Now().UTC().Truncate(time.Second)}), nil
	})
	if err != nil {
		return "", fmt.Errorf("add token %q: %w", name, err)
	}
	return token, nil
}

// Revoke removes name's token. An unknown name matches repo.ErrNotFound.
func (t *Tokens) Revoke(name string) error {
	err := t.update(func(recs []tokenRecord) ([]tokenRecord, error) {
		for i, r := range recs {
			if r.Name == name {
				return slices.Delete(recs, i, i+1), nil
			}
		}
		return nil, fmt.Errorf("%w: no token named %q", repo.ErrNotFound, name)
	})
	if err != nil {
		return fmt.Errorf("revoke token %q: %w", name, err)
	}
	return nil
}

// List returns the tokens in the order they were added, without digests. A tokens
// file that does not parse is an error.
func (t *Tokens) List() ([]TokenInfo, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.refreshLocked()
	if t.err != nil {
		return nil, t.err
	}
	out := make([]TokenInfo, len(t.entries))
	for i, e := range t.entries {
		out[i] = TokenInfo{Name: e.rec.Name, Scopes: slices.Clone(e.rec.Scopes), Created: e.rec.Created}
	}
	return out, nil
}

// Authenticate returns the principal whose token this is. It reads the file again
// first if it changed. Every stored digest is compared in constant time. A tokens file
// that cannot be read or parsed authenticates nobody (and says why in the log, once
// per version of the file).
func (t *Tokens) Authenticate(token string) (Principal, bool) {
	p, _, ok := t.AuthenticateKey(token)
	return p, ok
}

// AuthenticateKey is Authenticate that also returns the token's key, for Holds.
func (t *Tokens) AuthenticateKey(token string) (Principal, TokenKey, bool) {
	digest := TokenKey(sha256.Sum256([]byte(token)))
	t.mu.Lock()
	defer t.mu.Unlock()
	t.refreshLocked()
	if t.err != nil {
		return Principal{}, TokenKey{}, false
	}
	found := -1
	for i := range t.entries {
		if subtle.ConstantTimeCompare(digest[:], t.entries[i].digest[:]) == 1 {
			found = i
		}
	}
	if found < 0 {
		return Principal{}, TokenKey{}, false
	}
	e := t.entries[found]
	return Principal{Name: e.rec.Name, Scopes: slices.Clone(e.rec.Scopes)}, digest, true
}

// Holds reports whether the token with key k still authenticates: it is in the file
// (read again first if it changed) and the file is usable. The zero key (no token)
// is always held.
func (t *Tokens) Holds(k TokenKey) bool {
	if k == (TokenKey{}) {
		return true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.refreshLocked()
	if t.err != nil {
		return false
	}
	for i := range t.entries {
		if t.entries[i].digest == k {
			return true
		}
	}
	return false
}

// Generation changes whenever another version of the file is read (or found
// unusable): a key held at one generation is held until the next.
func (t *Tokens) Generation() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.refreshLocked()
	return t.gen
}

// refreshLocked re-reads the file if it is not the version held. Callers hold t.mu.
func (t *Tokens) refreshLocked() {
	fi, err := os.Stat(t.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !t.loaded || t.stat != nil || t.err != nil {
			t.gen++
		}
		t.loaded, t.stat, t.entries, t.err = true, nil, nil, nil
		return
	case err != nil:
		t.setErrLocked(nil, fmt.Errorf("read tokens %s: %w", t.path, err))
		return
	}
	if t.loaded && t.stat != nil && sameVersion(t.stat, fi) {
		return
	}
	f, err := os.Open(t.path)
	if err != nil {
		t.setErrLocked(fi, fmt.Errorf("read tokens %s: %w", t.path, err))
		return
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		t.setErrLocked(nil, fmt.Errorf("read tokens %s: %w", t.path, err))
		return
	}
	b, err := readAll(f)
	if err != nil {
		t.setErrLocked(fi, fmt.Errorf("read tokens %s: %w", t.path, err))
		return
	}
	recs, err := parseTokens(b)
	if err != nil {
		t.setErrLocked(fi, fmt.Errorf("tokens file %s: %w", t.path, err))
		return
	}
	entries := make([]tokenEntry, len(recs))
	for i, r := range recs {
		entries[i].rec = r
		hex.Decode(entries[i].digest[:], []byte(r.SHA256)) // checked by parseTokens
	}
	t.loaded, t.stat, t.entries, t.err = true, fi, entries, nil
	t.gen++
}

// setErrLocked makes the tokens unusable until the file changes, logging why once for
// each version of the file (fi nil: the file could not be stat'ed; logged every time
// the cause changes).
func (t *Tokens) setErrLocked(fi fs.FileInfo, err error) {
	same := t.err != nil && (fi == nil && t.stat == nil && t.err.Error() == err.Error() ||
		fi != nil && t.stat != nil && sameVersion(t.stat, fi))
	t.loaded, t.stat, t.entries, t.err = true, fi, nil, err
	t.gen++
	if !same {
		t.log.Error("tokens file unusable: no token authenticates until it is fixed", "path", t.path, "err", err)
	}
}

// sameVersion reports whether two stats describe the same version of a file: same
// file (device and inode), size and modification time. Norn replaces the file by
// rename, so each of its writes is a new inode.
func sameVersion(a, b fs.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

func readAll(f *os.File) ([]byte, error) {
	var buf bytes.Buffer
	_, err := buf.ReadFrom(f)
	return buf.Bytes(), err
}

// parseTokens parses the tokens file. Any bad line makes the whole file invalid (fail
// closed): a line that is not a JSON object of the known fields, an invalid name, a
// digest that is not 64 hex digits, an unknown or missing scope, a repeated name.
func parseTokens(b []byte) ([]tokenRecord, error) {
	var recs []tokenRecord
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		var r tokenRecord
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if dec.More() {
			return nil, fmt.Errorf("line %d: more than one JSON value", n)
		}
		if err := ValidPrincipalName(r.Name); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if d, err := hex.DecodeString(r.SHA256); err != nil || len(d) != sha256.Size {
			return nil, fmt.Errorf("line %d: sha256 must be %d hex digits", n, 2*sha256.Size)
		}
		if _, err := checkScopes(r.Scopes); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if seen[r.Name] {
			return nil, fmt.Errorf("line %d: a second token named %q", n, r.Name)
		}
		seen[r.Name] = true
		r.SHA256 = strings.ToLower(r.SHA256)
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return recs, nil
}

// update changes the file under its lock: tokens.lock is created exclusively (like
// git's lock files), the current file is read and parsed (a file that does not parse
// is never overwritten), change makes the new records, which are written to the lock
// file, fsynced and renamed over the file; then the folder is fsynced. An error leaves
// the file as it was.
func (t *Tokens) update(change func([]tokenRecord) ([]tokenRecord, error)) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(t.path), 0o700); err != nil {
		return err
	}
	lock := t.path + ".lock"
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s exists: another norn is changing the tokens (remove it if none is)", lock)
	}
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			f.Close()
			os.Remove(lock)
		}
	}()
	var recs []tokenRecord
	b, err := os.ReadFile(t.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	default:
		if recs, err = parseTokens(b); err != nil {
			return fmt.Errorf("tokens file %s: %w (fix or remove it)", t.path, err)
		}
	}
	recs, err = change(recs)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	out.WriteString(tokensHeader)
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			return err
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	if _, err := f.Write(out.Bytes()); err != nil {
		return err
	}
	if err := f.Chmod(0o600); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(lock, t.path); err != nil {
		return err
	}
	done = true
	if d, err := os.Open(filepath.Dir(t.path)); err == nil {
		err = d.Sync()
		d.Close()
		if err != nil {
			return err
		}
	}
	t.loaded = false // re-read on next use
	return nil
}
