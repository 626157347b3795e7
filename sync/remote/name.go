package remote

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// Kind is how a remote is reached.
type Kind string

// The kinds of remote.
const (
	KindLocal Kind = "local" // an absolute path or a file:// URL
	KindHTTP  Kind = "http"  // http:// or https://
	KindSSH   Kind = "ssh"   // ssh://[user@]host[:port]/path or user@host:path
)

// maxName and maxURL bound a remote's name and URL.
const (
	maxName = 64
	maxURL  = 2048
)

// CheckName returns nil if name can be a remote's name: 1 to 64 of the letters,
// digits, '.', '_' and '-', not starting with '.' or '-', without "..", not ending in
// ".lock" (so refs/remotes/NAME is a valid ref and no git option is injected).
func CheckName(name string) error {
	bad := func(why string) error {
		return fmt.Errorf("%w: name %q: %s; use one word such as origin or backup", ErrInvalid, clip(name), why)
	}
	switch {
	case name == "":
		return bad("empty")
	case len(name) > maxName:
		return bad(fmt.Sprintf("longer than %d bytes", maxName))
	case name[0] == '.' || name[0] == '-':
		return bad("starts with '.' or '-'")
	case strings.Contains(name, ".."):
		return bad("contains \"..\"")
	case strings.HasSuffix(name, ".lock"):
		return bad("ends in .lock")
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return bad(fmt.Sprintf("holds %q; only letters, digits, '.', '_' and '-' are allowed", c))
		}
	}
	return nil
}

// ParseURL checks a remote's URL and says how it is reached. Accepted: an absolute
// path, file:///abs/path, http(s)://host/path, ssh://[user@]host[:port]/path and
// user@host:path. Refused: credentials in the URL (they would sit in .git/config and
// show in `git remote -v`: give them in the machine settings instead), relative
// paths, other schemes, control characters and a leading '-'.
func ParseURL(raw string) (Kind, error) {
	bad := func(why string) error {
		return fmt.Errorf("%w: url: %s", ErrInvalid, why)
	}
	switch {
	case raw == "":
		return "", bad("empty")
	case len(raw) > maxURL:
		return "", bad(fmt.Sprintf("longer than %d bytes", maxURL))
	case strings.HasPrefix(raw, "-"):
		return "", bad("starts with '-'")
	case strings.IndexFunc(raw, func(c rune) bool { return c < 0x20 || c == 0x7f || c == ' ' }) >= 0:
		return "", bad("holds a space or a control character")
	}
	if filepath.IsAbs(raw) {
		return KindLocal, nil
	}
	if i := strings.Index(raw, "://"); i > 0 {
		return parseSchemeURL(raw, raw[:i], bad)
	}
	// scp-like user@host:path (no scheme). A colon before any slash marks it.
	colon, slash := strings.IndexByte(raw, ':'), strings.IndexByte(raw, '/')
	if colon > 0 && (slash < 0 || colon < slash) {
		userHost, path := raw[:colon], raw[colon+1:]
		host := userHost
		if at := strings.LastIndexByte(userHost, '@'); at >= 0 {
			host = userHost[at+1:]
			if strings.ContainsAny(userHost[:at], ":@") || at == 0 {
				return "", bad("the user part of user@host:path must be a plain user name")
			}
		}
		if host == "" || path == "" || strings.HasPrefix(host, "-") || strings.ContainsAny(host, "[]") {
			return "", bad("want user@host:path, such as git@github.com:me/notes.git")
		}
		return KindSSH, nil
	}
	return "", bad(fmt.Sprintf("%q is neither an absolute path nor a URL; want /srv/git/notes.git, "+
		"file:///srv/git/notes.git, https://host/me/notes.git, ssh://git@host/me/notes.git or git@host:me/notes.git", clip(raw)))
}

func parseSchemeURL(raw, scheme string, bad func(string) error) (Kind, error) {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Parse quotes the URL, which could hold a password: say only what.
		return "", bad("not a well-formed URL")
	}
	if u.User != nil {
		if _, hasPass := u.User.Password(); hasPass || scheme != "ssh" {
			return "", bad("credentials do not go in the URL (it is stored in .git/config and shown by git remote -v); " +
				"give them in this machine's settings or environment instead (docs/sync.md, \"Credentials\")")
		}
	}
	switch scheme {
	case "file":
		if u.Host != "" && u.Host != "localhost" || !filepath.IsAbs(u.Path) {
			return "", bad("want file:///absolute/path")
		}
		return KindLocal, nil
	case "http", "https":
		if u.Host == "" || u.Hostname() == "" {
			return "", bad("an http(s) URL needs a host")
		}
		if u.RawQuery != "" || u.Fragment != "" {
			return "", bad("an http(s) remote URL takes no ?query or #fragment")
		}
		return KindHTTP, nil
	case "ssh":
		if u.Hostname() == "" || strings.HasPrefix(u.Hostname(), "-") || u.Path == "" {
			return "", bad("want ssh://[user@]host[:port]/path")
		}
		return KindSSH, nil
	}
	return "", bad(fmt.Sprintf("scheme %q is not supported; use file, http, https or ssh", clip(scheme)))
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
