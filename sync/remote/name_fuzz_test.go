package remote_test

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/norn-vault/norn/sync/remote"
)

func FuzzParseURL(f *testing.F) {
	for _, s := range []string{
		"/srv/git/notes.git", "file:///srv/git/notes.git", "https://github.com/me/notes.git",
		"http://127.0.0.1:8080/notes.git", "ssh://git@host:2222/me/notes.git", "git@github.com:me/notes.git",
		"https://me:secretpw@host/x.git", "ssh://me:pw@host/x", "relative/x", "-oProxyCommand=x",
		"ext::sh", "file://host/x", "https://host/x?q=1", "host:path", "@h:p", "a@b@c:d", "ssh://[::1]:22/x",
		"https://%zz/x", "ssh://-x/y", "https://h/x\x00",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		kind, err := remote.ParseURL(raw)
		if err != nil {
			if !errors.Is(err, remote.ErrInvalid) || kind != "" {
				t.Fatalf("ParseURL(%q) = %q, %v: want ErrInvalid", raw, kind, err)
			}
			if i := strings.Index(raw, "://"); i > 0 {
				if u, perr := url.Parse(raw); perr == nil && u.User != nil {
					if pw, ok := u.User.Password(); ok && len(pw) >= 6 && strings.Contains(err.Error(), pw) {
						t.Fatalf("error shows the password of %q: %v", raw, err)
					}
				}
			}
			return
		}
		switch kind {
		case remote.KindLocal, remote.KindHTTP, remote.KindSSH:
		default:
			t.Fatalf("ParseURL(%q) = unknown kind %q", raw, kind)
		}
		if strings.HasPrefix(raw, "-") || strings.ContainsAny(raw, "\x00\n\r\t ") {
			t.Fatalf("ParseURL accepted %q", raw)
		}
		if u, perr := url.Parse(raw); perr == nil && u.User != nil && strings.Contains(raw, "://") {
			if _, ok := u.User.Password(); ok {
				t.Fatalf("ParseURL accepted a password in %q", raw)
			}
		}
	})
}

func FuzzCheckName(f *testing.F) {
	for _, s := range []string{"origin", "backup-2", "a.b_c", "", "-x", ".x", "a..b", "x.lock", "a/b", "ü", "a b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		err := remote.CheckName(name)
		if err != nil {
			if !errors.Is(err, remote.ErrInvalid) {
				t.Fatalf("CheckName(%q) = %v: want ErrInvalid", name, err)
			}
			return
		}
		if name == "" || len(name) > 64 || strings.ContainsAny(name, "/\\ :~^?*[@{\"\x00\n") ||
			strings.Contains(name, "..") || strings.HasPrefix(name, "-") || strings.HasPrefix(name, ".") ||
			strings.HasSuffix(name, ".lock") {
			t.Fatalf("CheckName accepted %q", name)
		}
	})
}
