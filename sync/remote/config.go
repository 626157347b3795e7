package remote

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"
)

// Remote is one git remote of the vault.
type Remote struct {
	Name string `json:"name"`
	URL  string `json:"url"`
	Kind Kind   `json:"kind"`
}

// List returns the vault's remotes from .git/config, sorted by name. A remote
// whose URL Norn would not accept (set with the git CLI) is listed with Kind "".
func (r *Remotes) List() ([]Remote, error) {
	cfg, err := r.readConfig()
	if err != nil {
		return nil, err
	}
	var out []Remote
	for _, sub := range cfg.Section("remote").Subsections {
		rem := Remote{Name: sub.Name, URL: sub.Option("url")}
		rem.Kind, _ = ParseURL(rem.URL)
		out = append(out, rem)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Get returns the remote called name, or ErrNotFound.
func (r *Remotes) Get(name string) (Remote, error) {
	if err := CheckName(name); err != nil {
		return Remote{}, err
	}
	list, err := r.List()
	if err != nil {
		return Remote{}, err
	}
	for _, rem := range list {
		if rem.Name == name {
			if rem.Kind == "" {
				if _, err := ParseURL(rem.URL); err != nil {
					return Remote{}, fmt.Errorf("remote %s (set outside norn): %w", name, err)
				}
			}
			return rem, nil
		}
	}
	return Remote{}, fmt.Errorf("%w: %s", ErrNotFound, name)
}

// Add stores a remote as git does (`[remote "NAME"]` with url and the fetch
// refspec +refs/heads/*:refs/remotes/NAME/*). A bad name or URL, or a name in use,
// writes nothing.
func (r *Remotes) Add(name, url string) error {
	if err := CheckName(name); err != nil {
		return err
	}
	if _, err := ParseURL(url); err != nil {
		return err
	}
	return r.editConfig(func(cfg *gitconfig.Config) error {
		if cfg.Section("remote").HasSubsection(name) {
			return fmt.Errorf("%w: %s (norn remote remove %s first to change its URL)", ErrExists, name, name)
		}
		cfg.Section("remote").Subsection(name).
			SetOption("url", url).
			SetOption("fetch", "+refs/heads/*:refs/remotes/"+name+"/*")
		return nil
	})
}

// Remove deletes a remote from .git/config, with its remote-tracking refs, as `git
// remote remove` does. The remote itself is not touched.
func (r *Remotes) Remove(name string) error {
	if err := CheckName(name); err != nil {
		return err
	}
	err := r.editConfig(func(cfg *gitconfig.Config) error {
		if !cfg.Section("remote").HasSubsection(name) {
			return fmt.Errorf("%w: %s", ErrNotFound, name)
		}
		cfg.RemoveSubsection("remote", name)
		for _, b := range cfg.Section("branch").Subsections {
			if b.Option("remote") == name {
				b.RemoveOption("remote")
				b.RemoveOption("merge")
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return r.removeTrackingRefs(name)
}

func (r *Remotes) configPath() string { return filepath.Join(r.gitDir, "config") }

func (r *Remotes) readConfig() (*gitconfig.Config, error) {
	b, err := os.ReadFile(r.configPath())
	if err != nil {
		return nil, fmt.Errorf("read git config: %w", err)
	}
	cfg := gitconfig.New()
	if err := gitconfig.NewDecoder(bytes.NewReader(b)).Decode(cfg); err != nil {
		return nil, fmt.Errorf("read git config %s: %w", r.configPath(), err)
	}
	return cfg, nil
}

// editConfig changes .git/config under git's own lock (config.lock, created
// exclusively): read, edit, write the lock file, fsync, rename. When edit fails
// nothing is written.
func (r *Remotes) editConfig(edit func(*gitconfig.Config) error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return withLockFile(r.configPath(), 0, func(old []byte) ([]byte, error) {
		cfg := gitconfig.New()
		if err := gitconfig.NewDecoder(bytes.NewReader(old)).Decode(cfg); err != nil {
			return nil, fmt.Errorf("read git config %s: %w", r.configPath(), err)
		}
		if err := edit(cfg); err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		if err := gitconfig.NewEncoder(&buf).Encode(cfg); err != nil {
			return nil, fmt.Errorf("encode git config: %w", err)
		}
		return buf.Bytes(), nil
	})
}

// withLockFile rewrites path as git does: PATH.lock created exclusively (a git
// process editing the file at the same time makes this fail, not race), the new
// bytes written and fsynced, then renamed over PATH. If change fails, the lock is
// removed and PATH is untouched. A missing PATH reads as empty. A lock older than
// stale (0: never) is a killed writer's: it is taken over. Git's own files keep
// git's rule (a person removes the lock); Norn's own state file, which only
// Norn writes and only for milliseconds, must not stay locked for good.
func withLockFile(path string, stale time.Duration, change func(old []byte) ([]byte, error)) (err error) {
	lock := path + ".lock"
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) && stale > 0 {
		if fi, serr := os.Stat(lock); serr == nil && time.Since(fi.ModTime()) > stale {
			os.Remove(lock)
			f, err = os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		}
	}
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s is locked by another git process (if none is running, remove %s)", path, lock)
	}
	if err != nil {
		return fmt.Errorf("lock %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(lock)
		}
	}()
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", path, err)
	}
	b, err := change(old)
	if err != nil {
		return err
	}
	if _, err = f.Write(b); err != nil {
		return fmt.Errorf("write %s: %w", lock, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", lock, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", lock, err)
	}
	if err = os.Rename(lock, path); err != nil {
		return fmt.Errorf("rename %s: %w", lock, err)
	}
	return nil
}

// removeTrackingRefs deletes refs/remotes/NAME/* (loose and packed).
func (r *Remotes) removeTrackingRefs(name string) error {
	if err := os.RemoveAll(filepath.Join(r.gitDir, "refs", "remotes", name)); err != nil {
		return fmt.Errorf("remove tracking refs of %s: %w", name, err)
	}
	packed := filepath.Join(r.gitDir, "packed-refs")
	if _, err := os.Stat(packed); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	prefix := "refs/remotes/" + name + "/"
	return withLockFile(packed, 0, func(old []byte) ([]byte, error) {
		var out []string
		dropping := false
		for _, line := range strings.SplitAfter(string(old), "\n") {
			if strings.HasPrefix(line, "^") && dropping {
				continue // the peeled value of a dropped tag
			}
			_, ref, _ := strings.Cut(strings.TrimSpace(line), " ")
			dropping = strings.HasPrefix(ref, prefix)
			if !dropping {
				out = append(out, line)
			}
		}
		return []byte(strings.Join(out, "")), nil
	})
}
