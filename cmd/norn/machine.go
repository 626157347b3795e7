package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/norn-vault/norn/config"
)

// machinePath is where a vault's per-machine settings live: inside the git
// directory, which git never commits, pushes or pulls.
func machinePath(gitDir string) string { return filepath.Join(gitDir, "norn", "machine.yaml") }

// The environment variables that override machine.yaml (flags override them in
// turn, where a flag exists). Only cmd/norn reads the environment.
// NORN_RERANK_URL is the documented name of the endpoint's variable;
// NORN_RERANK_ENDPOINT, its first name, is still read when it is not set.
const (
	envRerankURL      = "NORN_RERANK_URL"
	envRerankEndpoint = "NORN_RERANK_ENDPOINT"
	envRerankModel    = "NORN_RERANK_MODEL"
	envRerankAPIKey   = "NORN_RERANK_API_KEY"
)

// loadMachine returns this machine's settings for the vault whose git directory is
// gitDir: the defaults, then .git/norn/machine.yaml (if any), then the environment.
// A file holding a secret that others may read is refused, as ssh refuses a key
// file others may read.
func loadMachine(e *env, gitDir string) (config.Machine, error) {
	path := machinePath(gitDir)
	m := config.DefaultMachine()
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return m, fmt.Errorf("machine settings: %w", err)
	default:
		if m, err = config.ParseMachine(b); err != nil {
			return m, fmt.Errorf("%s: %w", path, err)
		}
		if err := checkPrivate(path, m); err != nil {
			return m, err
		}
	}
	return m, applyMachineEnv(&m, e.getenv)
}

// checkPrivate refuses a machine.yaml that holds a secret and that users other
// than its owner may read or write.
func checkPrivate(path string, m config.Machine) error {
	secret := m.Rerank.APIKey != ""
	for _, r := range m.Remotes {
		secret = secret || r.Token != "" || r.Password != ""
	}
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("machine settings: %w", err)
	}
	if secret && fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%s holds a secret and others may read it (mode %04o); run chmod 600 %s: %w",
			path, fi.Mode().Perm(), path, config.ErrInvalid)
	}
	return nil
}

// applyMachineEnv lays the environment over m: NORN_RERANK_* (NORN_RERANK_URL
// before its alias NORN_RERANK_ENDPOINT) and the variable
// rerank.api_key_env names.
func applyMachineEnv(m *config.Machine, getenv func(string) string) error {
	for _, name := range []string{envRerankURL, envRerankEndpoint} {
		s := getenv(name)
		if s == "" {
			continue
		}
		if msg := config.CheckEndpoint(s); msg != "" {
			return fmt.Errorf("$%s: %s: %w", name, msg, config.ErrInvalid)
		}
		m.Rerank.Endpoint = s
		break
	}
	if s := getenv(envRerankModel); s != "" {
		m.Rerank.Model = s
	}
	switch {
	case getenv(envRerankAPIKey) != "":
		m.Rerank.APIKey = config.Secret(getenv(envRerankAPIKey))
	case m.Rerank.APIKeyEnv != "":
		m.Rerank.APIKey = config.Secret(getenv(m.Rerank.APIKeyEnv))
	}
	return nil
}

func runMachine(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("machine", g)
	args, err := parseArgs(fs, args, 1, 1)
	if err != nil {
		return err
	}
	if args[0] != "show" {
		return usagef("unknown machine command %q; want show", args[0])
	}
	v, _, err := openVault(ctx, e, g)
	if err != nil {
		return err
	}
	defer v.Close()
	m, err := loadMachine(e, v.GitDir())
	if err != nil {
		return err
	}
	if g.json {
		return printJSON(e, map[string]any{"file": machinePath(v.GitDir()), "settings": m})
	}
	fmt.Fprintf(e.stdout, "# %s, with the environment over it (secrets redacted)\n%s", machinePath(v.GitDir()), m)
	return nil
}
